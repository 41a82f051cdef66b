// StateDirWatch: the state directory's identity and permissions, checked with stat and
// faccessat (the effective ids: what this process's own creates and renames will meet).
#include "wfod/daemon/store/state_dir_watch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace wfod::daemon {

Result<StateDirWatch> StateDirWatch::open(std::string path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno_error("stat", path, errno);
  if (!S_ISDIR(st.st_mode)) return IoError{ENOTDIR, "state_dir " + path + ": not a directory"};
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_error("open", path, errno);
  UniqueFd dir(fd);
  if (::fstat(dir.get(), &st) != 0) return errno_error("fstat", path, errno);
  return StateDirWatch(std::move(path), std::move(dir), st.st_dev, st.st_ino);
}

std::string StateDirWatch::check() const {
  const std::string where = "state_dir " + path_;
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return where + " was removed";
    return where + " cannot be examined: " + std::strerror(err);
  }
  if (st.st_dev != dev_ || st.st_ino != ino_) {
    return where + " was replaced by another directory (removed and created again, or moved)";
  }
  // New files (publications.seq, live state, checkpoints) are written beside and renamed
  // into place: that takes write and search permission on the directory.
  if (::faccessat(AT_FDCWD, path_.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    return where + " is not writable: " + std::strerror(errno);
  }
  return "";
}

}  // namespace wfod::daemon
