// Robust selection (docs/spec-10-selection.md) in wfo's outputs: the "selection" JSON object
// of `wfo sweep --json` / `wfo walk --json`, and the lines under the sweep table.
#pragma once

#include <string>

#include "json_output.hpp"
#include "wfod/selection/selection.hpp"

namespace wfod::cli {

Json selection_json(const selection::SelectionReport&, const selection::SelectionSpec&, Objective);
std::string selection_text(const selection::SelectionReport&, const selection::SelectionSpec&,
                           const Grid&);

}  // namespace wfod::cli
