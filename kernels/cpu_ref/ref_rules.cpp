// cpu_ref's rules evaluator (SPEC §5a): each bar's four conditions run over the compiled
// postorder program with a value stack, every number carrying its magnitude M for the dead
// band, indicators read from the oracle's own IndicatorCache (the values every built-in
// family reads), and the position moved by §5a's transitions.
#include "ref_rules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "ref_numeric.hpp"
#include "ref_vol_filter.hpp"

namespace wfod::ref {
namespace {

using rules::Field;
using rules::Kind;
using rules::Node;
using rules::Op;

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

// A number with its magnitude M (SPEC §5a): a leaf's |value|, then M(a±b) = M(a)+M(b),
// M(a·b) = M(a)·M(b), M(a/b) = (M(a) + |a/b|·M(b)) / |b|, each rounded once.
struct Value {
  double v = 0, m = 0;
};

Value leaf(double v) { return {v, std::abs(v)}; }

// a ≻ b (SPEC §5a): a − b > δ·max(M(a), M(b)), or a > b where the comparison is exact;
// false when either operand is not finite.
bool above(const Value& a, const Value& b, bool exact) {
  if (!std::isfinite(a.v) || !std::isfinite(b.v)) return false;
  if (exact) return a.v > b.v;
  return a.v - b.v > kDeadBand * std::max(a.m, b.m);
}

Value arithmetic(Op op, const Value& a, const Value& b) {
  switch (op) {
    case Op::add:
      return {a.v + b.v, a.m + b.m};
    case Op::sub:
      return {a.v - b.v, a.m + b.m};
    case Op::mul:
      return {a.v * b.v, a.m * b.m};
    default: {
      const double q = a.v / b.v;
      return {q, (a.m + std::abs(q) * b.m) / std::abs(b.v)};
    }
  }
}

class Evaluator {
 public:
  Evaluator(IndicatorCache& cache, const rules::Program& program, const std::vector<double>& values,
            std::span<const double> volume)
      : values_(values), history_(cache.history()), volume_(volume) {
    rules::check_arguments(program, values);
    if (program.uses_volume && volume.size() != history_.size())
      throw std::invalid_argument("cpu_ref: the rules read volume, but " +
                                  std::to_string(volume.size()) + " volumes were given for " +
                                  std::to_string(history_.size()) + " bars");
    series_.resize(program.indicators.size(), nullptr);
    owned_.resize(program.indicators.size());
    for (size_t i = 0; i < program.indicators.size(); ++i) {
      const rules::Indicator& ind = program.indicators[i];
      if (!ind.used) continue;  // declared but unused: never read, never "undefined"
      series_[i] = &series(cache, ind, i);
      used_.push_back(series_[i]);
    }
  }

  // SPEC §5a: an indicator named in the four conditions undefined at t makes p_t = 0.
  bool all_defined(size_t t) const {
    return std::none_of(used_.begin(), used_.end(),
                        [t](const std::vector<double>* s) { return std::isnan((*s)[t]); });
  }

  // A condition at bar t; an absent one is false.
  bool holds(const rules::Condition& c, size_t t) {
    if (!c.present()) return false;
    stack_.clear();
    truth_.clear();
    const auto& nodes = c.nodes;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      switch (n.op) {
        case Op::greater:
        case Op::less: {
          const Value b = pop(), a = pop();
          truth_.push_back(n.op == Op::greater ? above(a, b, n.exact) : above(b, a, n.exact));
          break;
        }
        case Op::crosses_above:
        case Op::crosses_below: {
          const Value b = pop(), a = pop();
          truth_.push_back(cross(nodes, n, i, a, b, t));
          break;
        }
        case Op::both:
        case Op::either: {
          const bool y = pop_truth(), x = pop_truth();
          truth_.push_back(n.op == Op::both ? (x && y) : (x || y));
          break;
        }
        case Op::negate:
          truth_.push_back(!pop_truth());
          break;
        default:
          step_number(n, t, stack_);
      }
    }
    return truth_.back();
  }

 private:
  // The series of one used indicator, from the cache (bands formed here as the bollinger
  // family forms them: M ± band_offset, SPEC §4).
  const std::vector<double>& series(IndicatorCache& cache, const rules::Indicator& ind, size_t i) {
    const int n = static_cast<int>(rules::arg_value(ind.period, values_));
    const Source source = ind.high_low ? Source::high_low : Source::close;
    switch (ind.kind) {
      case Kind::sma:
      case Kind::bb_mid:
        return cache.get(IndicatorKind::sma, n);
      case Kind::ema:
        return cache.get(IndicatorKind::ema, n);
      case Kind::wma:
        return cache.get(IndicatorKind::wma, n);
      case Kind::hma:
        return cache.get(IndicatorKind::hma, n);
      case Kind::std:
        return cache.get(IndicatorKind::std, n);  // raw STD: "counts as 0" is the bands' only
      case Kind::rsi:
        return cache.get(IndicatorKind::rsi, n);
      case Kind::hh:
        return cache.get(IndicatorKind::channel_high, n, source);
      case Kind::ll:
        return cache.get(IndicatorKind::channel_low, n, source);
      case Kind::bb_upper:
      case Kind::bb_lower:
        break;
    }
    const double k = rules::arg_value(*ind.width, values_);
    const auto& mid = cache.get(IndicatorKind::sma, n);
    const auto& sd = cache.get(IndicatorKind::std, n);
    std::vector<double>& out = owned_[i];
    out.assign(mid.size(), kUndefined);
    for (size_t t = 0; t < mid.size(); ++t) {
      if (std::isnan(mid[t]) || std::isnan(sd[t])) continue;
      const double offset = band_offset(mid[t], sd[t], k);
      out[t] = ind.kind == Kind::bb_upper ? mid[t] + offset : mid[t] - offset;
    }
    return out;
  }

  double field(Field f, size_t t) const {
    switch (f) {
      case Field::open:
        return history_.open[t];
      case Field::high:
        return history_.high[t];
      case Field::low:
        return history_.low[t];
      case Field::close:
        return history_.close[t];
      case Field::volume:
        return volume_[t];
    }
    return kUndefined;
  }

  void step_number(const Node& n, size_t t, std::vector<Value>& stack) const {
    switch (n.op) {
      case Op::number:
        stack.push_back(leaf(n.value));
        return;
      case Op::param:
        stack.push_back(leaf(values_[n.index]));
        return;
      case Op::field:
        stack.push_back(leaf(field(static_cast<Field>(n.index), t)));
        return;
      case Op::indicator:
        stack.push_back(leaf((*series_[n.index])[t]));
        return;
      default: {
        const Value b = stack.back();
        stack.pop_back();
        const Value a = stack.back();
        stack.pop_back();
        stack.push_back(arithmetic(n.op, a, b));
      }
    }
  }

  // The numeric range [begin, end) of a condition (an operand of a cross) at bar t.
  Value number_at(const std::vector<Node>& nodes, size_t begin, size_t end, size_t t) {
    scratch_.clear();
    for (size_t i = begin; i < end; ++i) step_number(nodes[i], t, scratch_);
    return scratch_.back();
  }

  // crosses_above(a, b): a ≺ b at t-1 and a ≻ b at t (crosses_below the mirror); false at
  // the anchor, and where a side is undefined at t-1 (NaN: its comparison is false).
  bool cross(const std::vector<Node>& nodes, const Node& n, size_t self, const Value& a,
             const Value& b, size_t t) {
    if (t == 0) return false;
    const Value a0 = number_at(nodes, n.lhs_begin, n.rhs_begin, t - 1);
    const Value b0 = number_at(nodes, n.rhs_begin, self, t - 1);
    if (n.op == Op::crosses_above) return above(b0, a0, n.exact) && above(a, b, n.exact);
    return above(a0, b0, n.exact) && above(b, a, n.exact);
  }

  Value pop() {
    const Value v = stack_.back();
    stack_.pop_back();
    return v;
  }
  bool pop_truth() {
    const bool v = truth_.back();
    truth_.pop_back();
    return v;
  }

  const std::vector<double>& values_;
  HistoryView history_;
  std::span<const double> volume_;
  std::vector<const std::vector<double>*> series_;
  std::vector<std::vector<double>> owned_;
  std::vector<const std::vector<double>*> used_;
  std::vector<Value> stack_, scratch_;
  std::vector<bool> truth_;
};

}  // namespace

std::vector<int8_t> rules_positions(IndicatorCache& cache, const rules::Program& program,
                                    const std::vector<double>& values, const RulesVolFilter* vol,
                                    std::span<const double> volume) {
  Evaluator eval(cache, program, values, volume);
  const VolFilter filter =
      vol == nullptr ? VolFilter(cache, false, 0, 0, 0)
                     : VolFilter(cache, true, vol->vol_short, vol->vol_long, vol->vol_threshold);
  using rules::Slot;
  const auto& long_entry = program.condition(Slot::long_entry);
  const auto& long_exit = program.condition(Slot::long_exit);
  const auto& short_entry = program.condition(Slot::short_entry);
  const auto& short_exit = program.condition(Slot::short_exit);
  std::vector<int8_t> p(cache.history().size(), 0);
  for (size_t t = 0; t < p.size(); ++t) {
    const int8_t prev = t == 0 ? 0 : p[t - 1];
    const FilterState fs = filter.at(t);
    if (!eval.all_defined(t) || fs == FilterState::undefined) {
      p[t] = 0;
    } else if (fs == FilterState::closed) {  // hold, whatever the conditions say
      p[t] = prev;
    } else if (prev == 0) {
      p[t] = eval.holds(long_entry, t) ? 1 : eval.holds(short_entry, t) ? -1 : 0;
    } else if (prev == 1) {
      p[t] = eval.holds(short_entry, t) ? -1 : eval.holds(long_exit, t) ? 0 : 1;
    } else {
      p[t] = eval.holds(long_entry, t) ? 1 : eval.holds(short_exit, t) ? 0 : -1;
    }
  }
  return p;
}

}  // namespace wfod::ref
