// The POSIX FileOps, UniqueFd, and the file helpers the stores share (write_all with
// short-write and EINTR handling, syncs, directory fsync, whole-file reads, mkdir -p).
#include "wfod/daemon/store/file_ops.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "file_util.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

ssize_t PosixFileOps::pwrite(int fd, const void* data, size_t size, off_t offset) {
  return ::pwrite(fd, data, size, offset);
}
int PosixFileOps::fdatasync(int fd) { return ::fdatasync(fd); }
int PosixFileOps::fsync(int fd) { return ::fsync(fd); }
int PosixFileOps::ftruncate(int fd, off_t length) { return ::ftruncate(fd, length); }
int PosixFileOps::rename(const char* from, const char* to) { return ::rename(from, to); }
int PosixFileOps::mkdir(const char* path, mode_t mode) { return ::mkdir(path, mode); }

FileOps& posix_file_ops() {
  static PosixFileOps ops;
  return ops;
}

void UniqueFd::reset(int fd) {
  // close() errors are not reported: every path that needs its data durable syncs first,
  // and retrying close() on Linux would risk closing a descriptor reused by another thread.
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

IoError errno_error(std::string_view op, std::string_view path, int err) {
  std::string message;
  message.reserve(op.size() + path.size() + 40);
  message.append(op).append(" ").append(path).append(": ").append(std::strerror(err));
  return IoError{err, std::move(message)};
}

namespace detail {

Status write_all(FileOps& ops, int fd, const void* data, size_t size, off_t offset,
                 std::string_view path, size_t* written) {
  const auto* p = static_cast<const unsigned char*>(data);
  size_t done = 0;
  Status status;
  while (done < size) {
    ssize_t n = ops.pwrite(fd, p + done, size - done, offset + static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      status = errno_error("write", path, errno);
      break;
    }
    if (n == 0) {
      // POSIX allows it only for size 0; looping would spin forever, so call it EIO.
      status = errno_error("write", path, EIO);
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (written != nullptr) *written = done;
  return status;
}

Status sync_data(FileOps& ops, int fd, std::string_view path) {
  while (ops.fdatasync(fd) != 0) {
    if (errno != EINTR) return errno_error("fdatasync", path, errno);
  }
  return {};
}

Status sync_file(FileOps& ops, int fd, std::string_view path) {
  while (ops.fsync(fd) != 0) {
    if (errno != EINTR) return errno_error("fsync", path, errno);
  }
  return {};
}

Status sync_dir(FileOps& ops, const std::string& dir) {
  auto fd = open_file(dir, O_RDONLY | O_DIRECTORY, 0);
  if (!fd.ok()) return fd.error();
  return sync_file(ops, fd.value().get(), dir);
}

Result<UniqueFd> open_file(const std::string& path, int flags, mode_t mode) {
  for (;;) {
    int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
    if (fd >= 0) return UniqueFd(fd);
    if (errno != EINTR) return errno_error("open", path, errno);
  }
}

Result<std::vector<unsigned char>> read_all(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_error("stat", path, errno);
  std::vector<unsigned char> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("read", path, errno);
    }
    if (n == 0) break;  // shrank under us: take what is there
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
}

Result<MappedFile> map_file(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_error("stat", path, errno);
  MappedFile m;
  if (st.st_size == 0) return m;  // nothing to map (mmap refuses a length of 0)
  void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE,
                   fd, 0);
  if (p == MAP_FAILED) return errno_error("mmap", path, errno);
  m.data_ = static_cast<const unsigned char*>(p);
  m.size_ = static_cast<size_t>(st.st_size);
  return m;
}

}  // namespace detail

namespace {

// The directory holding `path`: "/a/b" -> "/a", "/a" -> "/", "a" -> "."; trailing and
// repeated slashes ignored. "/" and "." are their own parents.
std::string parent_of(const std::string& path) {
  const size_t last = path.find_last_not_of('/');
  if (last == std::string::npos) return "/";  // "/" or "//"
  const size_t slash = path.find_last_of('/', last);
  if (slash == std::string::npos) return ".";
  const size_t end = path.find_last_not_of('/', slash);
  return end == std::string::npos ? "/" : path.substr(0, end + 1);
}

// mkdir of `dir` found something there: fine if it is a directory.
Status existing_directory(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return errno_error("stat", dir, errno);
  if (!S_ISDIR(st.st_mode)) return errno_error("mkdir", dir, ENOTDIR);
  return {};
}

// A new entry lives in its parent directory: sync that, or a crash could lose the directory
// together with every file later made durable inside it.
Status made_durable(FileOps& ops, const std::string& dir) {
  return detail::sync_dir(ops, parent_of(dir));
}

}  // namespace

Result<bool> make_dirs(FileOps& ops, const std::string& path) {
  if (path.empty()) return IoError{EINVAL, "create directory \"\": the path is empty"};
  // Up: mkdir from `path` towards the root until one succeeds or finds an existing entry,
  // noting the missing ones; down: create those, parent first. One mkdir per component
  // each way, no recursion and no retry, so a parent that exists but takes no new
  // directories (/proc, /sys) is an error, not an endless loop.
  std::vector<std::string> missing;  // deepest first
  std::string dir = path;
  for (;;) {
    if (ops.mkdir(dir.c_str(), 0755) == 0) {
      if (Status s = made_durable(ops, dir); !s.ok()) return s.error();
      break;
    }
    const int err = errno;
    if (err == EEXIST) {
      if (Status s = existing_directory(dir); !s.ok()) return s.error();
      if (dir == path) return false;
      break;
    }
    std::string parent = parent_of(dir);
    if (err != ENOENT || parent == dir) return errno_error("mkdir", dir, err);
    missing.push_back(std::move(dir));
    dir = std::move(parent);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (ops.mkdir(it->c_str(), 0755) == 0) {
      if (Status s = made_durable(ops, *it); !s.ok()) return s.error();
      continue;
    }
    const int err = errno;
    if (err == EEXIST) {  // made by someone else meanwhile
      if (Status s = existing_directory(*it); !s.ok()) return s.error();
      continue;
    }
    IoError e = errno_error("mkdir", *it, err);
    if (err == ENOENT) {
      e.message += " (its parent " + parent_of(*it) + " exists but takes no new directories)";
    }
    return e;
  }
  return true;
}
}  // namespace wfod::daemon
