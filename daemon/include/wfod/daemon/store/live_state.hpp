// What a stream must remember across restarts so that its first publication after one
// carries the same live_oos (SPEC §8 online, PROTOCOL §2) as an uninterrupted run: the last
// published winner, the one before it, that publication's seq and the history size it
// covered, and its payload (so snapshot `get` answers at once after a restart). One small
// file per stream, <state_dir>/streams/<escaped symbol>.<strategy>.live, replaced
// atomically (temp file + rename + directory fsync) and checksummed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/config/config.hpp"
#include "wfod/daemon/store/file_ops.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

struct LiveState {
  uint32_t fingerprint = 0;  // CRC32 of the strategy's fingerprint: a changed strategy starts over
  uint64_t seq = 0;          // the last publication's seq
  uint64_t end = 0;          // history size (bars from the anchor) it covered
  uint64_t winner = 0;       // its winner's combo id
  std::optional<uint64_t> before;  // the previous publication's winner, if any
  std::string payload;             // the exact bytes published (one line of JSON)
};

class LiveStateStore {
 public:
  // Creates <state_dir>/streams/ as needed. Only fsync = every syncs the file and the
  // directory (a process crash finds the renamed file anyway; a power loss may leave the
  // previous one, which costs one live_oos, never a wrong one).
  static Result<LiveStateStore> open(const std::string& state_dir, config::FsyncPolicy fsync,
                                     FileOps* ops = nullptr);

  // The stream's saved state; nullopt when there is none. A corrupt file (bad CRC, bad
  // field) is an error naming the file: the caller logs it and starts the stream over,
  // which only costs live_oos one null.
  Result<std::optional<LiveState>> load(std::string_view symbol, std::string_view strategy) const;
  // Replaces the stream's file: <file>.tmp written (and synced), renamed (directory synced).
  Status save(std::string_view symbol, std::string_view strategy, const LiveState& state);

  std::string path(std::string_view symbol, std::string_view strategy) const;

  // The publication seq of every stream with a saved state (each streams/*.live that loads;
  // a corrupt one is left out, its CRC being what vouches for its seq), configured or not:
  // the floor of the publication sequence numbers at start (issue 43 item 3), so that a
  // lost or overwritten publications.seq never hands out a seq a client has already seen.
  struct SavedSeq {
    std::string symbol, strategy;
    uint64_t seq = 0;
    std::string path;
  };
  Result<std::vector<SavedSeq>> saved_seqs() const;

 private:
  LiveStateStore() = default;
  std::string dir_;
  config::FsyncPolicy fsync_ = config::FsyncPolicy::batch;
  FileOps* ops_ = nullptr;
};

}  // namespace wfod::daemon
