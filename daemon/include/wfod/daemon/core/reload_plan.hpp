// What a SIGHUP reload does with each changed key outside [[strategy]]: the few that are
// cheap to apply in place (log level, the HTTP status listener) apply at once; the rest
// (sockets, stores, the engine, security) are named as needing a restart. Which is which is
// each key's row in wfod/config/config_keys.hpp; docs/operations.md "Signals and reload" is
// checked against those rows (tests/unit/config/config_keys_test.cpp). A pure function.
#pragma once

#include <string>
#include <vector>

#include "wfod/config/config.hpp"

namespace wfod::daemon {

struct ReloadPlan {
  std::vector<std::string> live;     // changed keys applied by the reload, e.g. "daemon.log_level"
  std::vector<std::string> restart;  // changed keys kept at their running value until a restart
};

// Compares every non-strategy key of the running and the new configuration.
ReloadPlan plan_reload(const config::Config& running, const config::Config& next);

// "a, b, c" or "none", for the reload log line.
std::string join_keys(const std::vector<std::string>& keys);

}  // namespace wfod::daemon
