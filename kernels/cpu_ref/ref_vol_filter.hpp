// cpu_ref's vol_filter (SPEC §5): open, closed or undefined at each bar, for the built-in
// families (ref_strategy.cpp) and the rules family (ref_rules.cpp) alike, which SPEC §5a
// says it applies to "as to every family".
#pragma once

#include <cmath>
#include <vector>

#include "ref_indicators.hpp"
#include "ref_numeric.hpp"
#include "wfod/grid.hpp"

namespace wfod::ref {

enum class FilterState { undefined, closed, open };

// The vol_filter's series for one combo; absent filter = always open.
class VolFilter {
 public:
  VolFilter(IndicatorCache& cache, const Combo& combo)
      : VolFilter(cache, combo.has_vol, combo.vol_short, combo.vol_long, combo.vol_threshold) {}
  VolFilter(IndicatorCache& cache, bool has_vol, int vol_short, int vol_long, double threshold) {
    if (!has_vol) return;
    std_short_ = &cache.get(IndicatorKind::std, vol_short);
    std_long_ = &cache.get(IndicatorKind::std, vol_long);
    sma_short_ = &cache.get(IndicatorKind::sma, vol_short);
    sma_long_ = &cache.get(IndicatorKind::sma, vol_long);
    threshold_ = threshold;
  }

  FilterState at(size_t t) const {
    if (std_short_ == nullptr) return FilterState::open;
    const double s = (*std_short_)[t];
    const double l = (*std_long_)[t];
    if (std::isnan(s) || std::isnan(l)) return FilterState::undefined;
    // A long-window STD that counts as 0 closes the filter (no ratio is formed); a
    // short-window one that counts as 0 makes v_t = 0 (SPEC §5).
    if (std_counts_as_zero(l, (*sma_long_)[t])) return FilterState::closed;
    const double v = std_counts_as_zero(s, (*sma_short_)[t]) ? 0.0 : s / l;
    return dead_band_compare(v, threshold_) == Order::greater ? FilterState::open
                                                              : FilterState::closed;
  }

 private:
  const std::vector<double>* std_short_ = nullptr;
  const std::vector<double>* std_long_ = nullptr;
  const std::vector<double>* sma_short_ = nullptr;
  const std::vector<double>* sma_long_ = nullptr;
  double threshold_ = 0;
};

}  // namespace wfod::ref
