// cpu_ref strategy state machines (SPEC §5): the target position p_t of one combo at every
// bar from the anchor, including the optional vol_filter.
#pragma once

#include <cstdint>
#include <vector>

#include "ref_indicators.hpp"
#include "wfod/grid.hpp"

namespace wfod::ref {

// p_t for every bar of cache.history(), in {-1, 0, +1}. The combo must be valid.
std::vector<int8_t> strategy_positions(IndicatorCache& cache, const Combo& combo);

}  // namespace wfod::ref
