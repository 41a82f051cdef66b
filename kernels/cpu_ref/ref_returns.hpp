// cpu_ref strategy returns (SPEC §2, §3): the exit and body segments of every bar of an
// evaluation window, each with the position held through it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/grid.hpp"

namespace wfod::ref {

// Bar t's two segments. s_t = exit + body; the held position of the bar is body_pos.
struct BarSegments {
  int8_t exit_pos = 0;  // p_{t-2}
  int8_t body_pos = 0;  // p_{t-1}
  double exit = 0;
  double body = 0;
};

// Segments of bars t in [first, end); requires 1 <= first <= end <= history.size() and
// positions covering at least bars 0 .. end-2. cost_per_unit = Costs::per_unit().
std::vector<BarSegments> window_segments(const HistoryView& history,
                                         std::span<const int8_t> positions, size_t first,
                                         size_t end, Fill fill, double cost_per_unit);

}  // namespace wfod::ref
