// A combo's strategy returns r_t = exit + body segment (SPEC §2) over a range of bars, from
// the backend's positions: what robust selection's DSR moments, the wfo report's equity
// curve and their tests read.
#pragma once

#include <cstddef>
#include <vector>

#include "wfod/backend.hpp"

namespace wfod {

// r_t for t in [first, end) (1 <= first <= end <= h.size()) of `combo`, its positions
// computed by `backend` over h.prefix(end). Throws std::invalid_argument on a range outside
// the history.
std::vector<double> combo_returns(Backend& backend, const HistoryView& h, const StrategySpec& spec,
                                  const Combo& combo, size_t first, size_t end);

}  // namespace wfod
