// What `wfod --check-config` and `wfod --config` check before anything starts, beyond the
// config file's own syntax (PROTOCOL §4): that each backfill CSV parses and that state_dir
// can be created. Both plug into config::load_config's FileChecks, so a failure is reported
// at its key (file:line:col) and is a config error: exit 2 at check time and at start.
#pragma once

#include <string>
#include <vector>

#include "wfod/config/config.hpp"

namespace wfod::daemon {

// Whose rights decide whether state_dir can be created: `--check-config` may run as another
// user than the daemon (an operator before `systemctl start`, where systemd's StateDirectory=
// creates it), so there a permission problem is only a note; at start it is an error.
enum class StateDirUser { this_process, unknown };

// Throws when `dir` cannot become a state directory: it, or the nearest part of it that
// exists, is not a directory; that part lives on a read-only or a kernel pseudo file system
// (/proc, /sys); or it is writable but a probe directory cannot be made in it (made and
// removed at once: nothing is left behind). A missing permission throws for
// StateDirUser::this_process and is returned as a note for StateDirUser::unknown; "" = fine.
std::string check_state_dir(const std::string& dir, StateDirUser user);

// Throws feeds::CsvError ("FILE:LINE: ...") when the CSV history does not parse.
void check_backfill_parses(const std::string& path);

// load_config with both checks on, then enforce_daemon_config (config_checks.hpp): its
// errors throw ConfigError like the loader's. Notes (see check_state_dir, "note: ...") and
// the configuration's warnings ("warning: FILE:LINE:COL: ...") are appended to `notes`.
// `plan`, when given, receives memory_plan_text of the plan the checks held the config to
// (the same environment, so the daemon's backend is made once for both).
config::Config load_checked_config(const std::string& path, StateDirUser user,
                                   std::vector<std::string>& notes, std::string* plan = nullptr);

}  // namespace wfod::daemon
