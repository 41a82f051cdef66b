// The seam between the daemon's stores and the POSIX calls that change files: every write,
// sync, truncate, rename and mkdir goes through FileOps so tests can inject ENOSPC, EIO, EINTR,
// short writes and unwritable directories. UniqueFd owns a descriptor. Also mkdir -p.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

// Same contracts as the POSIX calls of the same names: the result, and errno on failure.
// Reads and opens are not here: their failures need no simulation to be tested.
class FileOps {
 public:
  virtual ~FileOps() = default;
  virtual ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) = 0;
  virtual int fdatasync(int fd) = 0;
  virtual int fsync(int fd) = 0;
  virtual int ftruncate(int fd, off_t length) = 0;
  virtual int rename(const char* from, const char* to) = 0;
  virtual int mkdir(const char* path, mode_t mode) = 0;
};

// The real calls. Tests derive from it to fail one call and pass the others through.
class PosixFileOps : public FileOps {
 public:
  ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) override;
  int fdatasync(int fd) override;
  int fsync(int fd) override;
  int ftruncate(int fd, off_t length) override;
  int rename(const char* from, const char* to) override;
  int mkdir(const char* path, mode_t mode) override;
};

// A process-wide PosixFileOps (it has no state).
FileOps& posix_file_ops();

// mkdir -p: creates `path` and its missing parents (mode 0755), each new directory made
// durable (fsync of its parent); an existing directory is fine. Bounded: one mkdir per
// component on the way up and one on the way down, never a retry, so any path ends in a
// result. Errors name the directory that failed and the errno text: an empty path, a
// component that is a file (ENOTDIR), a parent that exists but takes no new directories
// (/proc: ENOENT), a read-only or forbidden parent, a name too long. True when it created
// `path` itself, false when it was already a directory.
Result<bool> make_dirs(FileOps& ops, const std::string& path);

// Owns a file descriptor; closes it on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

}  // namespace wfod::daemon
