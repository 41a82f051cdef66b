// Publication sequence numbers per (symbol, strategy), PROTOCOL §2: 1, 2, 3 ... never
// reused, surviving restarts. Kept in <state_dir>/publications.seq, replaced atomically
// (temp file + fsync + rename + directory fsync) before each number is handed out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wfod/daemon/store/file_ops.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

// The text format, for humans and `cat` (docs/operations.md):
//   wfod-publications 1
//   <symbol> <strategy> <last seq>      one line per stream, sorted
//   crc32 <8 lower-case hex digits>     CRC32 of every byte before this line
inline constexpr std::string_view kSequenceFileName = "publications.seq";

struct SequenceStoreOptions {
  FileOps* ops = nullptr;  // null: the real POSIX calls
  // Numbers persisted ahead per stream: the file is rewritten once per `reserve` numbers
  // instead of once per number, and a crash skips at most reserve - 1 numbers (a gap,
  // never a repeat). close() persists the exact values, so a clean restart skips none.
  uint64_t reserve = 1;
};

class SequenceStore {
 public:
  using Key = std::pair<std::string, std::string>;  // (symbol, strategy)

  // Reads <state_dir>/publications.seq (creating state_dir if needed). A missing file is a
  // fresh start; a corrupt one is an error naming the file and the line, because starting
  // over would reuse numbers. A publications.seq.tmp left by a crash is ignored.
  static Result<SequenceStore> open(const std::string& state_dir,
                                    const SequenceStoreOptions& options = {});

  // Move-only: two copies would hand out the same numbers.
  SequenceStore(SequenceStore&&) noexcept = default;
  SequenceStore& operator=(SequenceStore&&) noexcept = default;
  SequenceStore(const SequenceStore&) = delete;
  SequenceStore& operator=(const SequenceStore&) = delete;

  // The stream's next number, on disk before it returns: after a crash the numbers go on
  // from the last one persisted, so one may be skipped (never handed out), none repeated.
  // On error nothing is handed out, nothing in memory changes, and the next call retries.
  // Names must be non-empty printable ASCII without spaces.
  Result<uint64_t> next(std::string_view symbol, std::string_view strategy);

  // The last number handed out (or persisted before a crash); 0 = none yet.
  uint64_t last(std::string_view symbol, std::string_view strategy) const;
  // Persists the numbers handed out so far (not the reservations): for a clean shutdown.
  Status close();
  // Reserves the next block of every listed stream that has none left, in one rewrite: at
  // start, so that 10,000 streams' first publications do not rewrite the file 10,000 times.
  Status reserve_all(const std::vector<Key>& keys);
  // Renews the stream's block early, once fewer than half of it are left, so that next()
  // finds a number reserved: the daemon calls it after a publication is sent, which keeps
  // the file rewrite (fsync, rename, directory fsync) off the path from a bar to its
  // publication. A crash still skips at most reserve - 1 numbers.
  Status top_up(std::string_view symbol, std::string_view strategy);
  // Raises each listed stream's last number to at least its value (numbers found elsewhere
  // in the state: the streams' live state files), so next() hands out only larger ones;
  // persisted in one rewrite when any was raised. Returns the streams raised, with the
  // value each had before (issue 43 item 3: a deleted or overwritten publications.seq
  // restarted every stream at 1).
  Result<std::map<Key, uint64_t>> raise_floors(const std::map<Key, uint64_t>& floors);
  const std::map<Key, uint64_t>& entries() const { return last_; }
  const std::string& path() const { return path_; }

 private:
  SequenceStore() = default;
  Status persist(const std::map<Key, uint64_t>& entries);

  std::string dir_;
  std::string path_;
  FileOps* ops_ = nullptr;
  uint64_t reserve_ = 1;
  std::map<Key, uint64_t> last_;    // persisted: handed out or reserved
  std::map<Key, uint64_t> handed_;  // handed out (<= last_)
};

}  // namespace wfod::daemon
