// The state directory's lock (wfod/daemon/store/state_dir_lock.hpp): flock on wfod.lock,
// the holder's pid written into it.
#include "wfod/daemon/store/state_dir_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "file_util.hpp"

namespace wfod::daemon {

Result<StateDirLock> StateDirLock::acquire(const std::string& state_dir) {
  if (auto made = detail::make_dirs(posix_file_ops(), state_dir); !made.ok()) return made.error();
  StateDirLock lock;
  lock.path_ = state_dir + "/" + kStateDirLockName;
  auto fd = detail::open_file(lock.path_, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (!fd.ok()) return fd.error();
  lock.fd_ = std::move(fd.value());
  while (::flock(lock.fd_.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) return errno_error("lock", lock.path_, errno);
    // The holder wrote its pid when it took the lock; a holder that has not yet written it
    // (or an older wfod that never does) leaves it out of the message.
    std::string holder;
    if (auto bytes = detail::read_all(lock.fd_.get(), lock.path_); bytes.ok()) {
      for (const unsigned char c : bytes.value()) {
        if (c < '0' || c > '9') break;
        holder += static_cast<char>(c);
      }
    }
    return IoError{EWOULDBLOCK, "state_dir " + state_dir + " is in use by another wfod (" +
                                    (holder.empty() ? "" : "pid " + holder + ", ") + "it holds " +
                                    lock.path_ +
                                    "): one wfod per state_dir; give each daemon its own "
                                    "[daemon] state_dir"};
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock.fd_.get(), 0) != 0) return errno_error("truncate", lock.path_, errno);
  if (Status s = detail::write_all(posix_file_ops(), lock.fd_.get(), pid.data(), pid.size(), 0,
                                   lock.path_);
      !s.ok()) {
    return s.error();
  }
  return lock;
}

}  // namespace wfod::daemon
