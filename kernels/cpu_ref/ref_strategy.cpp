// cpu_ref strategy state machines (SPEC §5): ma_cross (state and cross entries),
// channel_breakout, bollinger, rsi_reversion and the vol_filter, run bar by bar from the
// anchor exactly as written (on purpose not through the fast backends' shared rule); a rules
// strategy (SPEC §5a) through the literal evaluator of ref_rules.cpp.
#include "ref_strategy.hpp"

#include <cmath>
#include <optional>
#include <stdexcept>

#include "ref_numeric.hpp"
#include "ref_rules.hpp"
#include "ref_stops.hpp"
#include "ref_vol_filter.hpp"

namespace wfod::ref {
namespace {

int8_t short_position(Side side) { return side == Side::long_only ? 0 : -1; }

// Runs a family bar by bar from the anchor: flat while its indicators are undefined
// (decide(t, prev) returns nullopt) or the vol filter is; holding while the filter is closed,
// whatever signal bar t carries; else the family's decision at t.
template <typename Decide>
std::vector<int8_t> positions_by_bar(IndicatorCache& cache, const Combo& combo, Decide decide) {
  const VolFilter filter(cache, combo);
  std::vector<int8_t> p(cache.history().size(), 0);
  for (size_t t = 0; t < p.size(); ++t) {
    const int8_t prev = t == 0 ? 0 : p[t - 1];
    const std::optional<int8_t> decided = decide(t, prev);
    const FilterState fs = filter.at(t);
    if (!decided || fs == FilterState::undefined) {
      p[t] = 0;
    } else if (fs == FilterState::closed) {
      p[t] = prev;
    } else {
      p[t] = *decided;
    }
  }
  return p;
}

std::vector<int8_t> ma_cross_positions(IndicatorCache& cache, const Combo& combo) {
  const auto& fast = cache.moving_average(combo.ma, combo.fast);
  const auto& slow = cache.moving_average(combo.ma, combo.slow);
  const int8_t short_pos = short_position(combo.side);
  return positions_by_bar(cache, combo, [&](size_t t, int8_t prev) -> std::optional<int8_t> {
    if (std::isnan(fast[t]) || std::isnan(slow[t])) return std::nullopt;
    const Order now = dead_band_compare(fast[t], slow[t]);
    if (combo.entry == Entry::state)
      return now == Order::greater ? int8_t{1} : now == Order::less ? short_pos : prev;
    // Entry::cross: the comparison at t-1 must exist; an undefined one is "no cross".
    if (t == 0 || std::isnan(fast[t - 1]) || std::isnan(slow[t - 1])) return prev;
    const Order before = dead_band_compare(fast[t - 1], slow[t - 1]);
    if (before == Order::less && now == Order::greater) return int8_t{1};
    if (before == Order::greater && now == Order::less) return short_pos;
    return prev;
  });
}

std::vector<int8_t> channel_breakout_positions(IndicatorCache& cache, const Combo& combo) {
  const auto& high = cache.get(IndicatorKind::channel_high, combo.n, combo.source);
  const auto& low = cache.get(IndicatorKind::channel_low, combo.n, combo.source);
  const auto close = cache.history().close;
  const int8_t short_pos = short_position(combo.side);
  return positions_by_bar(cache, combo, [&](size_t t, int8_t prev) -> std::optional<int8_t> {
    if (std::isnan(high[t]) || std::isnan(low[t])) return std::nullopt;
    // Raw prices against the channel: exact comparisons, no dead band (SPEC §4).
    if (close[t] > high[t]) return int8_t{1};
    if (close[t] < low[t]) return short_pos;
    return prev;
  });
}

// The level families (SPEC §5), written out rule by rule. x_t is compared with the levels
// U_t > L_t and the middle M_t through the dead band.
struct Levels {
  double x, upper, lower, middle;
};

int8_t level_position(const Levels& v, bool reversion, int8_t prev, int8_t short_pos) {
  const Order vs_upper = dead_band_compare(v.x, v.upper);
  const Order vs_lower = dead_band_compare(v.x, v.lower);
  const Order vs_middle = dead_band_compare(v.x, v.middle);
  if (reversion) {
    if (vs_upper == Order::greater) return short_pos;
    if (vs_lower == Order::less) return 1;
    if (prev == 1 && vs_middle == Order::less) return 1;
    if (prev == -1 && vs_middle == Order::greater) return -1;
    return 0;
  }
  if (vs_upper == Order::greater) return 1;
  if (vs_lower == Order::less) return short_pos;
  if (prev == 1 && vs_middle == Order::greater) return 1;
  if (prev == -1 && vs_middle == Order::less) return -1;
  return 0;
}

// Runs a level family bar by bar; levels_at(t) returns nullopt while its indicators are
// undefined.
template <typename LevelsAt>
std::vector<int8_t> level_positions(IndicatorCache& cache, const Combo& combo, bool reversion,
                                    LevelsAt levels_at) {
  const int8_t short_pos = short_position(combo.side);
  return positions_by_bar(cache, combo, [&](size_t t, int8_t prev) -> std::optional<int8_t> {
    const std::optional<Levels> levels = levels_at(t);
    if (!levels) return std::nullopt;
    return level_position(*levels, reversion, prev, short_pos);
  });
}

std::vector<int8_t> bollinger_positions(IndicatorCache& cache, const Combo& combo) {
  const auto& mid = cache.get(IndicatorKind::sma, combo.n);
  const auto& sd = cache.get(IndicatorKind::std, combo.n);
  const auto close = cache.history().close;
  return level_positions(cache, combo, combo.style == Style::reversion,
                         [&](size_t t) -> std::optional<Levels> {
                           if (std::isnan(mid[t]) || std::isnan(sd[t])) return std::nullopt;
                           const double offset = band_offset(mid[t], sd[t], combo.k);
                           return Levels{close[t], mid[t] + offset, mid[t] - offset, mid[t]};
                         });
}

std::vector<int8_t> rsi_positions(IndicatorCache& cache, const Combo& combo) {
  const auto& rsi_values = cache.get(IndicatorKind::rsi, combo.n);
  return level_positions(cache, combo, /*reversion=*/true, [&](size_t t) -> std::optional<Levels> {
    if (std::isnan(rsi_values[t])) return std::nullopt;
    return Levels{rsi_values[t], combo.hi, combo.lo, 50.0};
  });
}

}  // namespace

std::vector<int8_t> strategy_positions(IndicatorCache& cache, const Combo& combo) {
  if (!combo.valid()) throw std::invalid_argument("cpu_ref: invalid combo");
  switch (combo.family) {
    case Family::ma_cross:
      return ma_cross_positions(cache, combo);
    case Family::channel_breakout:
      return channel_breakout_positions(cache, combo);
    case Family::bollinger:
      return bollinger_positions(cache, combo);
    case Family::rsi_reversion:
      return rsi_positions(cache, combo);
    case Family::rules: {
      if (!combo.program) throw std::invalid_argument("cpu_ref: a rules combo without its program");
      // The filter as every family's (SPEC §5a); volume from the bars (HistoryView::volume).
      const RulesVolFilter vol{combo.vol_short, combo.vol_long, combo.vol_threshold};
      return rules_positions(cache, *combo.program, combo.rule_values,
                             combo.has_vol ? &vol : nullptr, cache.history().volume);
    }
  }
  throw std::invalid_argument("cpu_ref: unknown strategy family");
}

std::vector<int8_t> combo_positions(IndicatorCache& cache, const Combo& combo, Fill fill) {
  std::vector<int8_t> r = strategy_positions(cache, combo);
  if (!combo.stops_on()) return r;
  return apply_stops(r, cache.history(), fill, Stops::of(combo));
}

}  // namespace wfod::ref
