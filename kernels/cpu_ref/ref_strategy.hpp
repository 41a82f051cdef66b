// cpu_ref strategy state machines (SPEC §5): the target position p_t of one combo at every
// bar from the anchor, including the optional vol_filter, and the stops of §5b on top.
#pragma once

#include <cstdint>
#include <vector>

#include "ref_indicators.hpp"
#include "wfod/grid.hpp"

namespace wfod::ref {

// The family's own target r_t (SPEC §5, its filter included, no stops) for every bar of
// cache.history(), in {-1, 0, +1}. The combo must be valid.
std::vector<int8_t> strategy_positions(IndicatorCache& cache, const Combo& combo);

// p_t: r_t with the combo's stops acting on it (SPEC §5b; ref_stops.hpp), which reads the
// fill for the trade's entry price. Equal to strategy_positions when no stop is on.
std::vector<int8_t> combo_positions(IndicatorCache& cache, const Combo& combo, Fill fill);

}  // namespace wfod::ref
