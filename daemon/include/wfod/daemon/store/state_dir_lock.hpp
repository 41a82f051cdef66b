// One wfod per state directory: an exclusive flock(2) on <state_dir>/wfod.lock, held for the
// process's lifetime (the kernel drops it when the process ends, kill -9 included, so a
// stale lock file never blocks a restart). The bar logs' own locks are per symbol, so two
// daemons with different symbols on one state_dir both ran and overwrote each other's
// publications.seq (issue 43 item 3); this lock covers the whole directory. The file holds
// the holder's pid, for the refusal's message.
#pragma once

#include <string>

#include "wfod/daemon/store/file_ops.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

inline constexpr const char* kStateDirLockName = "wfod.lock";

class StateDirLock {
 public:
  // Takes the lock (creating state_dir and the file as needed) and writes this process's
  // pid into the file. Held by another process: an error saying so, with its pid when the
  // file names one ("state_dir DIR is in use by another wfod (pid 1234, DIR/wfod.lock) ...").
  static Result<StateDirLock> acquire(const std::string& state_dir);

  StateDirLock(StateDirLock&&) noexcept = default;
  StateDirLock& operator=(StateDirLock&&) noexcept = default;
  const std::string& path() const { return path_; }

 private:
  StateDirLock() = default;
  std::string path_;
  UniqueFd fd_;  // the lock lives as long as this descriptor
};

}  // namespace wfod::daemon
