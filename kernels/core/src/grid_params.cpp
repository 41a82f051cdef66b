// Axes and combo parameters by name (SPEC §5 canonical order), for printers and reports.
// A rules strategy's (SPEC §5a) are named by its params, viewing the program's names.
#include "wfod/grid_params.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace wfod {
namespace {

template <typename T>
AxisValues numbers(std::string_view name, ParamKind kind, const std::vector<T>& v) {
  AxisValues a{name, kind, {}, {}};
  a.numbers.assign(v.begin(), v.end());
  return a;
}

template <typename E>
AxisValues names(std::string_view name, const std::vector<E>& v) {
  AxisValues a{name, ParamKind::name, {}, {}};
  for (E e : v) a.names.push_back(to_string(e));
  return a;
}

ParamValue integer(std::string_view name, int v) {
  return {name, ParamKind::integer, static_cast<double>(v), {}};
}
ParamValue real(std::string_view name, double v) { return {name, ParamKind::real, v, {}}; }
template <typename E>
ParamValue named(std::string_view name, E v) {
  return {name, ParamKind::name, 0, to_string(v)};
}

// A rules parameter is a number (SPEC §5a); one with an integral value (a period, a level of
// 30) is written as an integer, like the built-in families' periods.
bool integral(double v) { return std::abs(v) <= 2147483647.0 && v == std::floor(v); }

}  // namespace

std::vector<AxisValues> axis_values(const Grid& g) {
  std::vector<AxisValues> out;
  switch (g.family) {
    case Family::ma_cross:
      out = {numbers("fast", ParamKind::integer, g.fast),
             numbers("slow", ParamKind::integer, g.slow), names("ma", g.ma), names("side", g.side),
             names("entry", g.entry)};
      break;
    case Family::channel_breakout:
      out = {numbers("n", ParamKind::integer, g.n), names("source", g.source),
             names("side", g.side)};
      break;
    case Family::bollinger:
      out = {numbers("n", ParamKind::integer, g.n), numbers("k", ParamKind::real, g.k),
             names("style", g.style), names("side", g.side)};
      break;
    case Family::rsi_reversion:
      out = {numbers("n", ParamKind::integer, g.n), numbers("lo", ParamKind::real, g.lo),
             numbers("hi", ParamKind::real, g.hi), names("side", g.side)};
      break;
    case Family::rules:  // an integer axis where every value is integral
      for (size_t i = 0; g.program && i < g.rule_axes.size(); ++i) {
        const std::vector<double>& v = g.rule_axes[i];
        const bool ints = std::all_of(v.begin(), v.end(), integral);
        out.push_back(
            numbers(g.program->params.at(i), ints ? ParamKind::integer : ParamKind::real, v));
      }
      break;
  }
  if (g.has_stops()) {  // all three, an axis not given as {0} (Grid::axes)
    auto stop_axis = [](std::string_view name, const std::vector<double>& v) {
      return numbers(name, ParamKind::real, v.empty() ? std::vector<double>{0.0} : v);
    };
    out.push_back(stop_axis("stop_loss", g.stop_loss));
    out.push_back(stop_axis("take_profit", g.take_profit));
    out.push_back(stop_axis("trailing_stop", g.trailing_stop));
  }
  if (g.has_vol_filter()) {
    out.push_back(numbers("vol_short", ParamKind::integer, g.vol_short));
    out.push_back(numbers("vol_long", ParamKind::integer, g.vol_long));
    out.push_back(numbers("vol_threshold", ParamKind::real, g.vol_threshold));
  }
  return out;
}

std::vector<ParamValue> combo_params(const Combo& c) {
  std::vector<ParamValue> out;
  switch (c.family) {
    case Family::ma_cross:
      out = {integer("fast", c.fast), integer("slow", c.slow), named("ma", c.ma),
             named("side", c.side), named("entry", c.entry)};
      break;
    case Family::channel_breakout:
      out = {integer("n", c.n), named("source", c.source), named("side", c.side)};
      break;
    case Family::bollinger:
      out = {integer("n", c.n), real("k", c.k), named("style", c.style), named("side", c.side)};
      break;
    case Family::rsi_reversion:
      out = {integer("n", c.n), real("lo", c.lo), real("hi", c.hi), named("side", c.side)};
      break;
    case Family::rules:
      for (size_t i = 0; c.program && i < c.rule_values.size(); ++i) {
        const double v = c.rule_values[i];
        const std::string_view name = c.program->params.at(i);
        out.push_back(integral(v) ? integer(name, static_cast<int>(v)) : real(name, v));
      }
      break;
  }
  if (c.has_stops) {
    out.push_back(real("stop_loss", c.stop_loss));
    out.push_back(real("take_profit", c.take_profit));
    out.push_back(real("trailing_stop", c.trailing_stop));
  }
  if (c.has_vol) {
    out.push_back(integer("vol_short", c.vol_short));
    out.push_back(integer("vol_long", c.vol_long));
    out.push_back(real("vol_threshold", c.vol_threshold));
  }
  return out;
}

std::string param_value_text(const ParamValue& p) {
  switch (p.kind) {
    case ParamKind::integer:
      return std::to_string(static_cast<long long>(p.number));
    case ParamKind::real: {
      char buf[32];
      const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, p.number);
      return std::string(buf, ec == std::errc() ? end : buf);
    }
    case ParamKind::name:
      return std::string(p.text);
  }
  return {};
}

}  // namespace wfod
