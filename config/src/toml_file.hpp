// Reading a TOML file for wfod_config, as configs and rules files both do: the file's bytes,
// then its table, each failure a ConfigError that names the file ("PATH: cannot read: ...",
// "PATH:LINE:COL: TOML syntax error: ..."). Internal to wfod_config.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>

namespace wfod::config::detail {

// The whole file; throws ConfigError("PATH: cannot read: REASON").
std::string read_file_text(const std::string& path);

// The TOML table of `text`, `source` naming it in positions and errors; throws ConfigError
// ("SOURCE:LINE:COL: TOML syntax error: ...") for text that is not TOML.
toml::table parse_toml(std::string_view text, std::string_view source);

}  // namespace wfod::config::detail
