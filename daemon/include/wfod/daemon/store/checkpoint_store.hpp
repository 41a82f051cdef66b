// Stream checkpoints on disk: one file per (symbol, strategy) under <state_dir>/checkpoints,
// holding the engine's exact stream state (Stream::checkpoint) with what the daemon needs
// to trust it: the strategy's fingerprint, the bar count and last bar ts it covers, and a
// CRC32 over everything. Written to a temp file, synced and renamed, so a crash (kill -9
// during the write included) leaves the old checkpoint or the new one, never a mix; a torn or
// flipped file fails its CRC and the daemon replays from the bar log instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/daemon/store/file_ops.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

struct Checkpoint {
  uint32_t fingerprint = 0;   // CRC32 of the strategy's fingerprint (daemon_impl.hpp)
  uint64_t bars = 0;          // bars from the anchor the stream had taken
  int64_t last_ts = 0;        // ts of bar `bars - 1`: must match the bar log on restore
  std::vector<uint8_t> blob;  // Stream::checkpoint()
};

class CheckpointStore {
 public:
  static Result<CheckpointStore> open(const std::string& state_dir, FileOps* ops = nullptr);

  // Replaces the stream's checkpoint (temp file, fsync, rename, directory fsync).
  Status save(std::string_view symbol, std::string_view strategy, const Checkpoint& c) const;
  // The stream's checkpoint; nullopt when there is none; an error naming the file and
  // what is wrong when it is unreadable or fails its checks.
  Result<std::optional<Checkpoint>> load(std::string_view symbol, std::string_view strategy) const;
  // Removes it (a reload that replaced the strategy); a missing file is fine.
  void remove(std::string_view symbol, std::string_view strategy) const;

  std::string path(std::string_view symbol, std::string_view strategy) const;

  // The file's bytes, and their parse (exposed for the tests and the fuzz target).
  static std::vector<uint8_t> encode(const Checkpoint& c);
  static Result<Checkpoint> decode(const std::vector<uint8_t>& bytes, const std::string& path);

 private:
  std::string dir_;
  FileOps* ops_ = nullptr;
};

}  // namespace wfod::daemon
