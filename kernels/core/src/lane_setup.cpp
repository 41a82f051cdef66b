// Shared host lane setup: the forward position run, replays and the sequential fallback.
#include "src/lane_setup.hpp"

#include "wfod/segments.hpp"

namespace wfod::detail {

void run_positions(const LaneInput& in, int kind, const double* close, const double* entry_open,
                   size_t start, size_t end, ComboState& state, std::vector<int8_t>& out) {
  const bool stops = in.stops_on();
  with_kind(kind, [&](auto k) {
    for (size_t t = start; t < end; ++t)
      out.push_back(step_combo<decltype(k)::value>(in, stops, close, entry_open, t, state));
  });
}

void replay_positions(const LaneInput& in, int kind, const double* matrix, const BarTables& bars,
                      size_t start, size_t end, ComboState& state, std::vector<int8_t>& out) {
  if (end <= start) return;
  // decide() reads bar-indexed pointers: give it pointers to bar t0 and bar numbers relative
  // to t0. Bar t0 = start - 1 (the cross entry's look-back, a fresh trade's close) is the
  // oldest bar read, so every pointer stays inside the stored rows; the defined-from bars
  // shift with it (clamped at 0, which keeps the comparisons the same since every relative
  // bar read is >= 1).
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
  out.reserve(out.size() + (end - start));
  const size_t at = t0 - bars.base;
  run_positions(r, kind, bars.close + at, bars.entry_open ? bars.entry_open + at : nullptr,
                start - t0, end - t0, state, out);
}

std::vector<int8_t> forward_positions(const IndicatorCache& cache, const HistoryView& h, Fill fill,
                                      const Combo& c, size_t bars) {
  std::vector<int8_t> p;
  p.reserve(bars);
  ComboState state;
  run_positions(lane_input(cache, c), kind_of(c), h.close.data(),
                fill == Fill::next_open ? h.open.data() : nullptr, 0, bars, state, p);
  return p;
}

Metrics evaluate_sequential(const IndicatorCache& cache, const HistoryView& h, Fill fill,
                            double cost, double bars_per_year, const Combo& c, size_t first,
                            size_t end) {
  const auto p = forward_positions(cache, h, fill, c, end);
  SequentialMetrics seq;
  for_each_segment(h, fill, cost, p, first, end, position_or_flat(p, first - 2),
                   [&](size_t, const BarSegments& s) { seq.add(s); });
  return seq.finish(bars_per_year);
}

}  // namespace wfod::detail
