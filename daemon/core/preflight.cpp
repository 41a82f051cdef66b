// Start-up checks of what a configuration names (wfod/daemon/core/preflight.hpp): backfill CSVs
// and the state directory, checked without changing anything on disk; then the whole
// configuration's (config_checks.hpp).
#include "wfod/daemon/core/preflight.hpp"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "wfod/daemon/core/config_checks.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::daemon {
namespace {

namespace fs = std::filesystem;

// File systems whose directories are the kernel's: mkdir there fails whoever asks.
const char* pseudo_file_system(const std::string& path) {
  struct statfs st {};
  if (::statfs(path.c_str(), &st) != 0) return nullptr;
  switch (st.f_type) {
    case PROC_SUPER_MAGIC:
      return "proc";
    case SYSFS_MAGIC:
      return "sysfs";
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
      return "cgroup";
    case DEBUGFS_MAGIC:
      return "debugfs";
    case DEVPTS_SUPER_MAGIC:
      return "devpts";
    default:
      return nullptr;
  }
}

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

std::string check_state_dir(const std::string& dir, StateDirUser user) {
  // The directory itself, or the nearest ancestor that exists: what mkdir -p starts from.
  fs::path target = fs::path(dir).lexically_normal();
  if (target.is_relative()) target = fs::current_path() / target;  // the daemon's CWD too
  fs::path existing = target;
  struct stat st {};
  while (::stat(existing.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOTDIR) {
      existing = existing.parent_path();  // the loop finds the part that is not a directory
      continue;
    }
    if (err == EACCES) {
      const std::string note = "cannot look into " + existing.parent_path().string() + ": " +
                               errno_text(err) + " for this user";
      if (user == StateDirUser::this_process) throw std::runtime_error(note);
      return note + "; the daemon's user must be able to create it";
    }
    if (err != ENOENT) throw std::runtime_error(existing.string() + ": " + errno_text(err));
    if (!existing.has_parent_path() || existing.parent_path() == existing) {
      throw std::runtime_error("no part of it exists");
    }
    existing = existing.parent_path();
  }
  const bool is_target = existing == target;
  if (!S_ISDIR(st.st_mode)) {
    throw std::runtime_error(existing.string() + " exists and is not a directory");
  }
  if (const char* kind = pseudo_file_system(existing.string())) {
    throw std::runtime_error(existing.string() + " is on the " + std::string(kind) +
                             " pseudo file system: nothing can be stored there");
  }
  struct statvfs vfs {};
  if (::statvfs(existing.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0) {
    throw std::runtime_error(existing.string() + " is on a read-only file system");
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    const std::string note = existing.string() + " is not writable by this user (uid " +
                             std::to_string(::getuid()) + ")" +
                             (is_target ? "" : ", so " + dir + " cannot be created here");
    if (user == StateDirUser::this_process) throw std::runtime_error(note);
    return note + "; the daemon's user must be able to " + (is_target ? "write" : "create") +
           " it (systemd's StateDirectory= does that)";
  }
  // Writable by the rules: make sure the file system agrees (quota, ACLs, overlays).
  std::string probe = (existing / ".wfod-check-XXXXXX").string();
  if (::mkdtemp(probe.data()) == nullptr) {
    throw std::runtime_error("cannot create a directory in " + existing.string() + ": " +
                             errno_text(errno));
  }
  ::rmdir(probe.c_str());
  return "";
}

void check_backfill_parses(const std::string& path) { (void)feeds::read_csv(path); }

config::Config load_checked_config(const std::string& path, StateDirUser user,
                                   std::vector<std::string>& notes, std::string* plan) {
  config::FileChecks checks;
  checks.backfill_exists = true;
  checks.backfill = check_backfill_parses;
  checks.state_dir = [user, &notes](const std::string& dir) {
    if (std::string note = check_state_dir(dir, user); !note.empty()) {
      notes.push_back("note: [daemon] state_dir \"" + dir + "\": " + note);
    }
  };
  config::Config config = config::load_config(path, checks);
  const CheckEnvironment env = system_check_environment(config.daemon.backend);
  for (std::string& warning : enforce_daemon_config(config, env)) {
    notes.push_back("warning: " + std::move(warning));
  }
  if (plan) *plan = memory_plan_text(plan_memory(config, env));
  return config;
}

}  // namespace wfod::daemon
