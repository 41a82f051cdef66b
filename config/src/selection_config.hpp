// [strategy.selection] -> selection::SelectionSpec (robust selection, docs/spec-10-selection.md).
// Internal to wfod_config.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>

#include "wfod/grid.hpp"
#include "wfod/selection/selection_spec.hpp"

namespace wfod::config::detail {

// `path` is the table's key path ("strategy[0].selection"); `grid` the strategy's grid, whose
// axis names a per-axis plateau_radius table must use.
selection::SelectionSpec read_selection(const toml::table& table, const std::string& path,
                                        std::string_view source, const Grid& grid);

}  // namespace wfod::config::detail
