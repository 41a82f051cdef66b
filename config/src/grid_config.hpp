// [strategy.grid] -> wfod::Grid (SPEC §5): which keys each family takes, and how a scalar,
// an array or a range string becomes one axis. Internal to wfod_config.
#pragma once

#include <memory>

#include "toml_reader.hpp"
#include "wfod/grid.hpp"

namespace wfod::config::detail {

// Reads every axis of `family` from the table at key path `path` (keys of the other family
// are errors), checks the vol filter is all-or-nothing and runs Grid::validate(); every error
// is located. `source` names the file in messages. A rules grid (SPEC §5a) takes `program`'s
// params as its axes (numbers only), each required, and no other family's key.
Grid read_grid(const toml::table& table, std::string path, std::string_view source, Family family,
               std::shared_ptr<const rules::Program> program = nullptr);

}  // namespace wfod::config::detail
