// The daemon's checks of a whole parsed configuration (PROTOCOL §4), beyond what the loader
// checks key by key: that there is something to run (a [[symbol]] and a [[strategy]]).
// Run by --check-config, at start and by every SIGHUP reload (a file that fails them is
// never applied), so a config that check-config passes is one the daemon can run. A pure
// function of the parsed Config and of what it may ask of the machine (CheckEnvironment),
// so unit tests drive it without files.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "wfod/config/config.hpp"

namespace wfod::daemon {

struct ConfigFinding {
  bool error = true;  // false: a warning (logged, the config still runs)
  std::string text;   // "FILE:LINE:COL: key 'KEY': MESSAGE" (Config::located)
};

// What the checks may ask of the machine; a default-constructed one asks nothing.
struct CheckEnvironment {
  // Memory the daemon may use (cgroup memory.max, else physical RAM); 0 = unknown.
  uint64_t memory_bytes = 0;
  // Whether a directory exists (the folder of an ipc:// endpoint); empty = not checked.
  std::function<bool(const std::string& dir)> directory_exists;
};

// Every error and warning of `config`, errors first, each in file order.
std::vector<ConfigFinding> check_daemon_config(const config::Config& config,
                                               const CheckEnvironment& env);

// The running machine's answers (memory from the cgroup or /proc, stat(2) for folders).
CheckEnvironment system_check_environment();

// check_daemon_config, then: any error throws config::ConfigError with every error, one
// per line; otherwise the warnings' texts are returned.
std::vector<std::string> enforce_daemon_config(const config::Config& config,
                                               const CheckEnvironment& env);

}  // namespace wfod::daemon
