// Per-symbol append-only bar log, <state_dir>/bars/<escaped symbol>.wfb: every bar the
// daemon accepted since the symbol's anchor (SPEC §1-2), its on-disk format, the fsync
// policy of appends (PROTOCOL §4), recovery of torn tails at load, and corruption refused
// or quarantined per [daemon] on_corrupt_log.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/config/config.hpp"
#include "wfod/daemon/store/file_ops.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

// The file format, byte by byte in docs/operations.md. All integers little-endian; doubles
// are IEEE-754 binary64 stored as their little-endian bit pattern.
namespace bar_log {

inline constexpr std::array<unsigned char, 4> kMagic = {'W', 'F', 'B', 'S'};
inline constexpr uint16_t kVersion = 1;
inline constexpr size_t kHeaderSize = 32;
inline constexpr size_t kRecordSize = 64;
inline constexpr size_t kHeaderSymbolBytes = 19;  // the header keeps a prefix, for humans
inline constexpr size_t kMaxSymbolBytes = 32;     // SPEC §1

using HeaderBytes = std::array<unsigned char, kHeaderSize>;
using RecordBytes = std::array<unsigned char, kRecordSize>;

// Header: 0 magic "WFBS" | 4 u16 version | 6 u16 record size | 8 u8 symbol length |
// 9 symbol, first 19 bytes, zero padded | 28 u32 CRC32 of bytes 0..27.
HeaderBytes encode_header(std::string_view symbol);
// Record: 0 i64 ts_ns | 8 f64 open | 16 high | 24 low | 32 close | 40 volume | 48 u64 seq |
// 56 u32 reserved (0) | 60 u32 CRC32 of bytes 0..59.
RecordBytes encode_record(const Bar& bar);
// The bar in kRecordSize bytes, or nullopt when its CRC does not match.
std::optional<Bar> decode_record(const unsigned char* bytes);

// File name of a symbol's log. Symbols may hold '/' and ':' (SPEC §1), so every byte
// outside [A-Za-z0-9_.-] becomes %XX (upper-case hex), as does a leading '.' (no hidden
// files, no "." or ".."): "BTC/USD" -> "BTC%2FUSD", "ES:1" -> "ES%3A1". Reversible.
std::string escape_symbol(std::string_view symbol);
// The inverse; nullopt for a name escape_symbol would not produce.
std::optional<std::string> unescape_symbol(std::string_view escaped);
std::string file_name(std::string_view symbol);  // escape_symbol(symbol) + ".wfb"

}  // namespace bar_log

struct BarStoreOptions {
  config::FsyncPolicy fsync = config::FsyncPolicy::batch;
  // fsync = batch: fdatasync on flush(), or on the append that finds this many records
  // unsynced or the oldest unsynced one this old. The age is checked on appends only:
  // the daemon's per-batch flush() covers quiet periods.
  size_t batch_records = 256;
  std::chrono::milliseconds batch_interval{50};
  // Bars kept in memory while the disk refuses writes; beyond it append() refuses.
  size_t max_pending = 1'000'000;
  FileOps* ops = nullptr;  // null: the real POSIX calls
  // Time source of batch_interval; null: std::chrono::steady_clock::now.
  std::function<std::chrono::steady_clock::time_point()> clock;
  // A log that is corrupt, not torn (LoadReport::corrupt): refuse opens nothing and touches
  // nothing; quarantine moves the bad part aside as for a torn tail.
  config::CorruptLogPolicy on_corrupt = config::CorruptLogPolicy::refuse;
  // open() checks every record but returns only the newest this many in
  // OpenedBarStore::bars (0: all): a restart's memory and time then follow what the
  // strategies need, not the log's length (older bars: read_bar_log).
  size_t load_newest = 0;
};

// What open() found, for the daemon to log (loudly when bytes were quarantined).
struct LoadReport {
  uint64_t records_loaded = 0;
  uint64_t bytes_quarantined = 0;
  std::string quarantine_path;  // where the bad tail went; empty when none
  std::string reason;           // why the tail was bad, e.g. "record 7 at byte 480: CRC
                                // mismatch" (record i holds bar i, from 0); empty when clean
  // The quarantined part was corruption, not a torn tail a crash leaves (see open()): bars
  // the daemon had accepted are gone from the history; health reports it.
  bool corrupt = false;
  uint64_t records_quarantined = 0;  // whole records moved aside
  bool clean() const { return bytes_quarantined == 0; }
};

enum class AppendState {
  written,  // in the log file: write() done (and fdatasync under fsync = every)
  pending,  // kept in memory after a write or sync error, retried in order on the next
            // append() / flush(); the store is unhealthy until it is written
  refused,  // not taken: ts not after the last accepted bar, or the pending queue is full
};

struct [[nodiscard]] AppendResult {
  AppendState state = AppendState::written;
  std::optional<IoError> error;  // set unless written
  bool ok() const { return state == AppendState::written; }
};

struct BarStoreStats {
  uint64_t appended = 0;         // bars append() took (written or pending)
  uint64_t refused = 0;          // bars append() refused
  uint64_t records_written = 0;  // records write() accepted, rewrites after errors included
  uint64_t fdatasyncs = 0;       // fdatasync calls on the log, the observable fsync policy
  uint64_t write_errors = 0;
  uint64_t sync_errors = 0;
};

struct OpenedBarStore;

// One symbol's log, open for appending. Holds an exclusive flock on the file, so a second
// daemon (or a second store in this process) on the same state_dir fails to open it.
// Not thread-safe: the daemon's loop thread owns it. The destructor flushes (best effort).
class BarStore {
 public:
  // Creates <state_dir>/bars/ and the log as needed, reads the whole log, verifies header,
  // record CRCs and strictly increasing ts. A torn tail (bytes that fail their checks up to
  // the end of the file, as a crash mid-append leaves them) is moved into
  // <file>.quarantine.<unix_ns>, the intact prefix stays. Corruption (a bad header with
  // records behind it, a bad record with a valid one after it, a valid record whose ts does
  // not increase) is quarantined the same way under on_corrupt = quarantine
  // (LoadReport::corrupt), and refused under on_corrupt = refuse. Refusals touch nothing and
  // return code 0 (the file's content is at fault, see is_content_error): corruption, a log
  // of another symbol, another format version or record size. Fails with errno on a log
  // locked by another store or a system error.
  static Result<OpenedBarStore> open(const std::string& state_dir, std::string_view symbol,
                                     const BarStoreOptions& options = {});

  BarStore(BarStore&&) noexcept;
  BarStore& operator=(BarStore&&) noexcept;
  BarStore(const BarStore&) = delete;
  BarStore& operator=(const BarStore&) = delete;
  ~BarStore();

  // Writes the bar (after any pending ones) and syncs per the policy. Returns after write()
  // succeeded, or with the bar kept pending, or refused: see AppendState.
  AppendResult append(const Bar& bar);
  // Writes pending bars, then fdatasync unless fsync = none. Before publishing results that
  // cover new bars (PROTOCOL §2), at backfill and at shutdown.
  Status flush();

  // The batched path of the daemon's feed loop (Ingest): stage() queues a bar in memory
  // without a system call (refused exactly as append() refuses), write_staged() writes
  // every queued bar with one write() per 1024 records, and the loop's sync pass calls
  // sync() (or syncfs() of the file system, then mark_synced()). The caller must have
  // written a bar before anything outside the process can see it counted as accepted.
  AppendResult stage(const Bar& bar);
  Status write_staged();
  // fdatasync of the written records not yet known durable; nothing to do under none.
  Status sync();
  // Records are written but not yet synced (never under fsync = none).
  bool has_unsynced() const;
  // fsync = batch: the oldest unsynced record is batch_interval old (batch_records applies
  // to append() only). fsync = every: any unsynced record. none: never.
  bool sync_due() const;
  // A syncfs() of the file system holding the log succeeded after the last write: the
  // written records are durable.
  void mark_synced();
  int fd() const;  // for syncfs(); owned by the store

  // Whether the open log is still the file at path(): one deleted while open (link count
  // 0: the file or the state_dir removed) or moved away or replaced keeps taking writes that
  // no restart finds. Such a store is lost() until a check finds the file back at its path
  // (a deleted one never is): healthy() is false and last_error() says why. A path that
  // cannot be examined (the state_dir made unreadable) is not taken for a loss. Cheap: an
  // fstat and a stat; the daemon calls it every second.
  Status check_file();
  bool lost() const;
  // Every accepted bar is in the file, and the file is the log at path().
  bool healthy() const { return pending() == 0 && !lost(); }
  size_t pending() const;                  // accepted bars not in the file yet
  uint64_t records() const;                // records in the file (written; maybe not yet synced)
  std::optional<int64_t> last_ts() const;  // of the last accepted bar
  const std::string& symbol() const;
  const std::string& path() const;
  const BarStoreStats& stats() const;
  const std::optional<IoError>& last_error() const;  // the latest write or sync error

 private:
  struct Impl;
  explicit BarStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// open() refused the log for its content (corrupt, another symbol or format), not for a
// system error: the daemon stops with exit 3 (PROTOCOL §4 on_corrupt_log).
inline bool is_content_error(const IoError& e) { return e.code == 0; }

// open()'s result: the store, positioned after the intact records, and those records.
struct OpenedBarStore {
  BarStore store;
  uint64_t first = 0;          // bars[0] is this bar from the anchor (BarStoreOptions::load_newest)
  Series bars;                 // the newest bars of the log, from `first` on
  std::vector<uint64_t> seqs;  // the publishers' seq of each bar (0 = none)
  LoadReport report;
};

}  // namespace wfod::daemon
