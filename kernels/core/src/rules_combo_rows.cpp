// RulesComboRows: the combo's distinct rows built once from its resolved arguments, each
// advanced by its own state over the input tail, the tail released in bulk (O(1) amortised).
#include "src/rules_combo_rows.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "wfod/indicators.hpp"

namespace wfod::detail {
namespace {

using rules::Kind;

}  // namespace

RulesComboRows::RulesComboRows(const Combo& c) {
  if (!c.program) throw std::invalid_argument("a rules combo without its program");
  const rules::Program& program = *c.program;
  // Periods and widths in range before any state is sized by them (rules::RuleError else).
  rules::check_arguments(program, c.rule_values);
  // One row per distinct (kind, period, width, high_low), as the cpu backend keys its rows
  // (bb_mid is sma; a width only for bands, high_low only for channels).
  std::map<std::tuple<int, int, double, bool>, size_t> keys;
  indicator_row_.assign(program.indicators.size(), 0);
  size_t longest = 1;
  for (size_t i = 0; i < program.indicators.size(); ++i) {
    const rules::Indicator& ind = program.indicators[i];
    if (!ind.used) {
      indicator_row_[i] = static_cast<size_t>(-1);  // the spare, fixed below
      continue;
    }
    const Kind kind = ind.kind == Kind::bb_mid ? Kind::sma : ind.kind;
    const bool band = kind == Kind::bb_upper || kind == Kind::bb_lower;
    const bool channel = kind == Kind::hh || kind == Kind::ll;
    const int n = static_cast<int>(rules::arg_value(ind.period, c.rule_values));
    const double k = band ? rules::arg_value(*ind.width, c.rule_values) : 0.0;
    const bool high_low = channel && ind.high_low;
    const auto [at, fresh] =
        keys.emplace(std::make_tuple(static_cast<int>(kind), n, k, high_low), rows_.size());
    indicator_row_[i] = at->second;
    if (!fresh) continue;
    longest = std::max(longest, static_cast<size_t>(n));
    used_rows_.push_back(rows_.size());
    switch (kind) {
      case Kind::sma:
        rows_.push_back({SmaState(n), Input::close});
        break;
      case Kind::ema:
        rows_.push_back({EmaState(n), Input::close});
        break;
      case Kind::wma:
        rows_.push_back({WmaState(n), Input::close});
        break;
      case Kind::hma:
        rows_.push_back({HmaState(n, n / 2, isqrt(n)), Input::close});
        break;
      case Kind::std:  // raw STD (SPEC §5a: "counts as 0" is the bands' and the filter's only)
        rows_.push_back({StdState(n), Input::close});
        break;
      case Kind::rsi:
        rows_.push_back({RsiState(n), Input::close});
        break;
      case Kind::hh:
        rows_.push_back({ExtremeState(n, true), high_low ? Input::high : Input::close});
        break;
      case Kind::ll:
        rows_.push_back({ExtremeState(n, false), high_low ? Input::low : Input::close});
        break;
      default:  // bands
        rows_.push_back({BandState{SmaState(n), VolState(n, kDeadBand), k, kind == Kind::bb_upper},
                         Input::close});
    }
  }
  const size_t spare = rows_.size();
  for (size_t& r : indicator_row_)
    if (r == static_cast<size_t>(-1)) r = spare;
  row_values_.assign(rows_.size() + 1, 0.0);
  if (c.has_vol) {
    has_vol_ = true;
    vol_short_ = VolState(c.vol_short, kDeadBand);
    vol_long_ = VolState(c.vol_long, kDeadBand);
    longest =
        std::max({longest, static_cast<size_t>(c.vol_short), static_cast<size_t>(c.vol_long)});
  }
  lookback_ = longest + 1;
}

SeriesTail RulesComboRows::tail(Input in) const {
  const std::vector<double>& x = in == Input::close ? close_ : in == Input::high ? high_ : low_;
  return {x.data(), base_, end_};
}

void RulesComboRows::next(const Bar& bar) {
  close_.push_back(bar.close);
  high_.push_back(bar.high);
  low_.push_back(bar.low);
  ++end_;
  for (size_t r = 0; r < rows_.size(); ++r) {
    const SeriesTail x = tail(rows_[r].input);
    row_values_[r] = std::visit(
        [&x](auto& s) {
          if constexpr (std::is_same_v<std::decay_t<decltype(s)>, BandState>) {
            const double m = s.mid.next(x), offset = s.k * s.sd.next(x);  // rounded once
            return s.upper ? m + offset : m - offset;
          } else {
            return s.next(x);
          }
        },
        rows_[r].state);
  }
  if (has_vol_) {
    const SeriesTail x = tail(Input::close);
    vol_short_value_ = vol_short_.next(x);
    vol_long_value_ = vol_long_.next(x);
  }
  trim();
}

bool RulesComboRows::all_used_defined() const {
  return std::none_of(used_rows_.begin(), used_rows_.end(),
                      [this](size_t r) { return std::isnan(row_values_[r]); });
}

// Keeps the last lookback() input bars, erasing older ones once they outnumber them.
void RulesComboRows::trim() {
  if (close_.size() < 2 * lookback_ + 256) return;
  const size_t drop = close_.size() - lookback_;
  for (std::vector<double>* x : {&close_, &high_, &low_})
    x->erase(x->begin(), x->begin() + static_cast<ptrdiff_t>(drop));
  base_ += drop;
}

size_t RulesComboRows::footprint_bytes() const {
  size_t bytes = (close_.capacity() + high_.capacity() + low_.capacity() + row_values_.capacity()) *
                 sizeof(double);
  for (const Row& r : rows_) {
    bytes += sizeof(Row);
    if (const auto* h = std::get_if<HmaState>(&r.state)) bytes += h->heap_bytes();
    if (const auto* e = std::get_if<ExtremeState>(&r.state)) bytes += e->heap_bytes();
  }
  return bytes;
}

}  // namespace wfod::detail
