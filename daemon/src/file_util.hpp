// File helpers shared by the bar store and the sequence store (not public API): complete
// writes despite short writes and EINTR, syncs that retry EINTR, whole-file reads.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "wfod/daemon/file_ops.hpp"
#include "wfod/daemon/io_result.hpp"

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
using wfod::daemon::make_dirs;  // file_ops.hpp: the daemon also calls it for state_dir

}  // namespace wfod::daemon::detail
