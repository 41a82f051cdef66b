// Human-readable reports of `wfo sweep` and `wfo walk`: a header with counts and time, an
// aligned table (top-K combos, or one row per fold) and, for walks, the OOS summary.
#pragma once

#include <string>

#include "report.hpp"

namespace wfod::cli {

std::string sweep_table(const SweepReport&);
std::string walk_table(const WalkReport&);

}  // namespace wfod::cli
