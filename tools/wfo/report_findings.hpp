// What the report says in words above its charts: the cases a reader must not miss in the
// numbers, namely a winner on the edge of the grid (the best parameters may lie outside the
// range searched) and out-of-sample results that lost money. Sentences, so the JSON and the
// page carry the same text and tests can read it.
#pragma once

#include <string>
#include <vector>

#include "report.hpp"

namespace wfod::cli {

// The numeric parameters (fast, slow, n, vol_short, vol_long, vol_threshold) of `winner`
// that are the lowest or highest value their axis lists, e.g. "fast = 5, the lowest value
// tried"; none for axes of one value or for named choices (ma, side, ...).
std::vector<std::string> edge_parameters(const Grid&, const Combo& winner);

std::vector<std::string> walk_findings(const WalkReport&);
std::vector<std::string> sweep_findings(const SweepReport&);

}  // namespace wfod::cli
