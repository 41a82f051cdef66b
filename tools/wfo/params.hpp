// A combo's parameters by name, in the order wfo prints them: the family's (SPEC §5), then
// the vol filter's when the grid has one. Shared by the table and JSON printers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wfod/grid.hpp"

namespace wfod::cli {

// The grid's axis names in canonical order (wfod/grid_params.hpp).
std::vector<std::string_view> param_names(const Grid&);
// One parameter as text: "12", "sma", "0.8".
std::string param_text(const Combo&, std::string_view name);

}  // namespace wfod::cli
