// Whether the state directory is still the one the daemon started on and still takes new
// files: its identity (st_dev, st_ino) against the one recorded at start, and write and search
// permission for this process. Without it a removed, replaced or chmod-ed state_dir is silent:
// the open bar logs keep taking writes (into deleted files, or as before), and only the files
// the daemon rewrites by rename (publications.seq, live state, checkpoints) start failing.
#pragma once

#include <sys/types.h>

#include <string>

#include "wfod/daemon/store/file_ops.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

class StateDirWatch {
 public:
  // Opens the directory and records its identity; an error when it cannot be opened. The
  // open descriptor keeps the inode alive, so a directory made again at the path (rm -rf
  // and mkdir) cannot reuse its number and pass for it.
  static Result<StateDirWatch> open(std::string path);

  // "" while the directory is the one recorded and takes new files; else why not, e.g.
  // "state_dir /var/lib/wfod was removed". Two system calls (stat, faccessat).
  std::string check() const;
  const std::string& path() const { return path_; }

 private:
  StateDirWatch(std::string path, UniqueFd fd, dev_t dev, ino_t ino)
      : path_(std::move(path)), fd_(std::move(fd)), dev_(dev), ino_(ino) {}
  std::string path_;
  UniqueFd fd_;
  dev_t dev_;
  ino_t ino_;
};

}  // namespace wfod::daemon
