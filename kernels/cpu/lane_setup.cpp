// Shared CPU lane setup: the forward position scan and the sequential fallback.
#include "cpu/lane_setup.hpp"

#include "wfod/segments.hpp"

namespace wfod::cpu {

void extend_positions(const LaneInput& in, int kind, const double* close, size_t bars,
                      std::vector<int8_t>& p) {
  double cur = p.empty() ? 0.0 : p.back();
  for (size_t t = p.size(); t < bars; ++t) {
    Decision d;
    switch (kind) {
      case 0:
        d = decide<Family::ma_cross, false, false>(in, close, t);
        break;
      case 1:
        d = decide<Family::ma_cross, false, true>(in, close, t);
        break;
      case 2:
        d = decide<Family::ma_cross, true, false>(in, close, t);
        break;
      case 3:
        d = decide<Family::ma_cross, true, true>(in, close, t);
        break;
      case 4:
        d = decide<Family::channel_breakout, false, false>(in, close, t);
        break;
      default:
        d = decide<Family::channel_breakout, false, true>(in, close, t);
        break;
    }
    cur = d.set ? d.value : cur;
    p.push_back(static_cast<int8_t>(cur));
  }
}

std::vector<int8_t> forward_positions(const IndicatorCache& cache, const HistoryView& h,
                                      const Combo& c, size_t bars) {
  std::vector<int8_t> p;
  p.reserve(bars);
  extend_positions(lane_input(cache, c), kind_of(c), h.close.data(), bars, p);
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
