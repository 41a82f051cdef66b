// cpu_ref strategy returns (SPEC §2): each window bar split into its exit segment (held at
// p_{t-2}) and body segment (held at p_{t-1}), priced against the previous close.
#include "ref_returns.hpp"

#include <cstdlib>
#include <stdexcept>

namespace wfod::ref {

std::vector<BarSegments> window_segments(const HistoryView& history,
                                         std::span<const int8_t> positions, size_t first,
                                         size_t end, Fill fill, double cost_per_unit) {
  if (first < 1 || first > end || end > history.size() || positions.size() + 1 < end) {
    throw std::invalid_argument("cpu_ref: window outside the history");
  }
  // Positions before the anchor do not exist and count as flat (SPEC §2: t < 2).
  const auto position = [&](size_t t, size_t back) -> int8_t {
    return t < back ? int8_t{0} : positions[t - back];
  };
  std::vector<BarSegments> out;
  out.reserve(end - first);
  for (size_t t = first; t < end; ++t) {
    BarSegments seg;
    seg.exit_pos = position(t, 2);
    seg.body_pos = position(t, 1);
    const double prev_close = history.close[t - 1];
    // fill = close trades the target at the close it was decided: the exit segment has no
    // price move. next_open trades it at this bar's open: the exit carries the gap.
    const double fill_price = fill == Fill::close ? prev_close : history.open[t];
    const bool changed = seg.exit_pos != seg.body_pos;
    const double exit_units = changed ? std::abs(seg.exit_pos) : 0;
    const double entry_units = changed ? std::abs(seg.body_pos) : 0;
    seg.exit = seg.exit_pos * (fill_price - prev_close) / prev_close - cost_per_unit * exit_units;
    seg.body =
        seg.body_pos * (history.close[t] - fill_price) / prev_close - cost_per_unit * entry_units;
    out.push_back(seg);
  }
  return out;
}

}  // namespace wfod::ref
