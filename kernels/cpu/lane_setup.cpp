// Shared CPU lane setup: the forward position scan and the sequential fallback.
#include "cpu/lane_setup.hpp"

#include "wfod/segments.hpp"

namespace wfod::cpu {

// p_t for every bar of one combo, by running its decisions forward from the anchor.
std::vector<int8_t> forward_positions(const IndicatorCache& cache, const HistoryView& h,
                                      const Combo& c, size_t bars) {
  const LaneInput in = lane_input(cache, c);
  std::vector<int8_t> p(bars, 0);
  double cur = 0;
  for (size_t t = 0; t < bars; ++t) {
    Decision d;
    switch (kind_of(c)) {
      case 0:
        d = decide<Family::ma_cross, false, false>(in, h.close.data(), t);
        break;
      case 1:
        d = decide<Family::ma_cross, false, true>(in, h.close.data(), t);
        break;
      case 2:
        d = decide<Family::ma_cross, true, false>(in, h.close.data(), t);
        break;
      case 3:
        d = decide<Family::ma_cross, true, true>(in, h.close.data(), t);
        break;
      case 4:
        d = decide<Family::channel_breakout, false, false>(in, h.close.data(), t);
        break;
      default:
        d = decide<Family::channel_breakout, false, true>(in, h.close.data(), t);
        break;
    }
    cur = d.set ? d.value : cur;
    p[t] = static_cast<int8_t>(cur);
  }
  return p;
}

Metrics evaluate_sequential(const IndicatorCache& cache, const HistoryView& h, Fill fill,
                            double cost, double bars_per_year, const Combo& c, size_t first,
                            size_t end) {
  const auto p = forward_positions(cache, h, c, end);
  SequentialMetrics seq;
  for (size_t t = first; t < end; ++t) {
    const int8_t p2 = t >= 2 ? p[t - 2] : 0, p1 = p[t - 1];
    seq.add(bar_segments(h, fill, cost, t, p2, p1));
  }
  return seq.finish(bars_per_year);
}

}  // namespace wfod::cpu
