// Shared host lane setup: the forward position scan, replays and the sequential fallback.
#include "src/lane_setup.hpp"

#include "wfod/segments.hpp"

namespace wfod::detail {

void extend_positions(const LaneInput& in, int kind, const double* close, size_t bars,
                      std::vector<int8_t>& p) {
  with_kind(kind, [&](auto k) {
    double cur = p.empty() ? 0.0 : p.back();
    for (size_t t = p.size(); t < bars; ++t) {
      cur = next_position<decltype(k)::value>(in, close, t, cur);
      p.push_back(static_cast<int8_t>(cur));
    }
  });
}

void replay_positions(const LaneInput& in, int kind, const double* matrix, const double* close,
                      size_t close_base, int8_t before, size_t start, size_t end,
                      std::vector<int8_t>& out) {
  if (end <= start) return;
  // decide() reads bar-indexed pointers: give it pointers to bar t0 and bar numbers relative
  // to t0. Bar t0 = start - 1 (the cross entry's look-back) is the oldest bar read, so every
  // pointer stays inside the stored rows; the defined-from bars shift with it (clamped at 0,
  // which keeps the comparisons the same since every relative bar read is >= 1).
  const size_t t0 = start ? start - 1 : 0;
  const int64_t shift = static_cast<int64_t>(t0);
  auto relative = [t0](size_t bar) { return bar > t0 ? bar - t0 : 0; };
  LaneInput r = in;
  r.a = matrix + (in.off_a + shift);
  r.b = matrix + (in.off_b + shift);
  if (vol_of_kind(kind)) {
    r.vol_short = matrix + (in.off_vol_short + shift);
    r.vol_long = matrix + (in.off_vol_long + shift);
  }
  r.first_defined = relative(in.first_defined);
  r.signal_defined = relative(in.signal_defined);
  std::vector<int8_t> p;
  p.reserve(end - t0);
  if (start) p.push_back(before);  // relative bar 0 = start - 1
  extend_positions(r, kind, close + (t0 - close_base), end - t0, p);
  out.insert(out.end(), p.begin() + (start ? 1 : 0), p.end());
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
  for_each_segment(h, fill, cost, p, first, end, position_or_flat(p, first - 2),
                   [&](size_t, const BarSegments& s) { seq.add(s); });
  return seq.finish(bars_per_year);
}

}  // namespace wfod::detail
