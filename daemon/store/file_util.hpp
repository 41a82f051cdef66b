// File helpers shared by the bar store and the sequence store (not public API): complete
// writes despite short writes and EINTR, syncs that retry EINTR, whole-file reads.
#pragma once

#include <sys/types.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/daemon/store/file_ops.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon::detail {

// Writes all `size` bytes at `offset`, resuming after short writes and EINTR. `written`
// (optional) receives the bytes that did reach the file, also on failure.
Status write_all(FileOps& ops, int fd, const void* data, size_t size, off_t offset,
                 std::string_view path, size_t* written = nullptr);
Status sync_data(FileOps& ops, int fd, std::string_view path);  // fdatasync
Status sync_file(FileOps& ops, int fd, std::string_view path);  // fsync
// fsync of a directory: makes a create, rename or unlink inside it durable.
Status sync_dir(FileOps& ops, const std::string& dir);
Result<UniqueFd> open_file(const std::string& path, int flags, mode_t mode);
Result<std::vector<unsigned char>> read_all(int fd, const std::string& path);

// A whole file mapped read-only and pre-faulted (MAP_POPULATE): a bar log of a year of
// minute bars is tens of MB, and copying it into a fresh buffer costs a page fault per 4 KiB
// (slow on virtual machines). Valid while the object lives and the file is not truncated.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr; }
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();
  std::span<const unsigned char> bytes() const { return {data_, size_}; }

 private:
  friend Result<MappedFile> map_file(int fd, const std::string& path);
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};
Result<MappedFile> map_file(int fd, const std::string& path);
using wfod::daemon::make_dirs;  // file_ops.hpp: the daemon also calls it for state_dir

}  // namespace wfod::daemon::detail
