// The daemon's whole-configuration checks (wfod/daemon/core/config_checks.hpp):
// each a small function adding findings at the key it is about (issue 43 item
// 5).
#include "wfod/daemon/core/config_checks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>

namespace wfod::daemon {
namespace {

using config::Config;

struct Findings {
  const Config &config;
  std::vector<ConfigFinding> errors, warnings;

  void error(std::string_view key, std::string_view message) {
    errors.push_back({true, config.located(key, message)});
  }
  void warn(std::string_view key, std::string_view message) {
    warnings.push_back({false, config.located(key, message)});
  }
};

// Nothing to run is a mistake, never a request: an empty or truncated file (a
// SIGHUP after
// `: > wfod.toml`, a half-copied file) would otherwise stop every stream.
void check_something_to_run(Findings &f) {
  const Config &c = f.config;
  constexpr std::string_view kHint =
      ": wfod needs at least one [[symbol]] and one [[strategy]] that runs on "
      "it (an empty or "
      "truncated file is refused; start from wfod.example.toml, `wfod "
      "--help-config` lists "
      "every key)";
  if (c.symbols.empty())
    f.error("symbol", std::string("no [[symbol]] table") + std::string(kHint));
  if (c.strategies.empty()) {
    f.error("strategy",
            std::string("no [[strategy]] table") + std::string(kHint));
  }
}

} // namespace

std::vector<ConfigFinding> check_daemon_config(const Config &config,
                                               const CheckEnvironment &env) {
  Findings f{config, {}, {}};
  check_something_to_run(f);
  (void)env; // (the memory and folder checks come with issue 43 item 1)
  std::vector<ConfigFinding> out = std::move(f.errors);
  out.insert(out.end(), f.warnings.begin(), f.warnings.end());
  return out;
}

CheckEnvironment system_check_environment() {
  CheckEnvironment env;
  env.directory_exists = [](const std::string &dir) {
    struct stat st {};
    return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  };
  return env;
}

std::vector<std::string> enforce_daemon_config(const Config &config,
                                               const CheckEnvironment &env) {
  std::string errors;
  std::vector<std::string> warnings;
  for (const ConfigFinding &finding : check_daemon_config(config, env)) {
    if (finding.error) {
      errors += (errors.empty() ? "" : "\n") + finding.text;
    } else {
      warnings.push_back(finding.text);
    }
  }
  if (!errors.empty())
    throw config::ConfigError(errors);
  return warnings;
}

} // namespace wfod::daemon
