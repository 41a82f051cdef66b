// The daemon's feed path without sockets: decode -> validate -> stage in the symbol's bar
// log -> one write per touched log and one sync pass per event-loop batch (commit). The
// daemon's loop and bench/ingest_bench run this same code, so the benchmark measures what
// the daemon does per bar.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/config/config.hpp"
#include "wfod/daemon/store/bar_store.hpp"
#include "wfod/daemon/store/io_result.hpp"
#include "wfod/daemon/store/symbol_history.hpp"
#include "wfod/feeds/bar_codec.hpp"
#include "wfod/feeds/bar_validator.hpp"

namespace wfod::daemon {

// Most messages one feed drain reads before committing and yielding to the loop (snapshot
// requests, signals and timers are served between batches).
inline constexpr size_t kMaxIngestBatch = 4096;

// One configured symbol: where its accepted bars go. Both are owned by the caller and must
// outlive the Ingest.
struct IngestTarget {
  std::string name;
  BarStore* store = nullptr;
  SymbolHistory* history = nullptr;  // the symbol's bars in memory; accepted ones are appended
};

// What became of one feed message.
struct IngestOutcome {
  std::optional<feeds::Reject> reject;  // not accepted (counted in the validator's stats)
  std::optional<feeds::SeqGap> gap;     // accepted across a publisher seq gap
  std::string_view symbol;  // empty when the message did not decode; valid until it is released
  std::optional<IoError> refused;  // validated, but the log refused it (queue full)
  bool accepted() const { return !reject && !refused; }
};

// A symbol that took bars in the batch just committed.
struct IngestTouched {
  size_t index = 0;  // into the targets
  size_t bars = 0;   // accepted in this batch
};

// The end of one batch: which symbols grew, which logs started failing (disk full, I/O
// error: their bars stay queued in memory, in order, and are retried on every commit) and
// which failing logs have written their whole backlog again.
struct IngestCommit {
  std::vector<IngestTouched> touched;
  std::vector<std::pair<size_t, IoError>> failed;
  std::vector<size_t> recovered;
};

// What the shutdown's last writes left behind (Ingest::stop_flush).
struct StopFlush {
  size_t attempts = 0;  // write passes made, the first one included
  // Per target whose log still refuses writes: (index, accepted bars only in memory).
  std::vector<std::pair<size_t, size_t>> lost;
  uint64_t lost_bars() const;
};

// The time source of stop_flush(): the real steady clock and sleep when left empty; tests
// pass fakes that advance a fake clock (and may repair the fake disk) when slept on.
struct StopClock {
  std::function<std::chrono::steady_clock::time_point()> now;
  std::function<void(std::chrono::steady_clock::duration)> sleep;
};

class Ingest {
 public:
  Ingest(std::vector<IngestTarget> targets, config::FsyncPolicy fsync);

  // Decodes and validates one [topic, payload] message and, when accepted, stages the bar
  // in its log and appends it to its series. Nothing outside the process can observe the
  // bar until commit() has written it: the loop commits before it yields.
  IngestOutcome on_message(std::span<const std::string_view> frames, feeds::PayloadFormat format);

  // Writes the batch's bars, one write() per touched log, then syncs per the fsync policy:
  // every: a sync pass over every log written; batch: a pass once any log is due
  // (BarStoreOptions batch_records / batch_interval); none: no sync. Also retries logs
  // that failed earlier (disk full) even when no new bar touched them.
  IngestCommit commit();

  // A sync pass over every log with unsynced records (the batch timer, shutdown): one
  // syncfs() for many logs, fdatasync per log for a few or when syncfs fails.
  Status sync_all();
  bool has_unsynced() const;
  // At shutdown: writes every staged and pending bar and syncs them (unless fsync = none).
  // While some log refuses (disk full, I/O error) the pass is repeated every `retry_every`
  // until everything is written or `budget` has passed since the call; what is still
  // unwritten then is returned for the caller to report. Bounded: at most
  // budget / retry_every + 1 passes, whatever the disk does. Nothing is dropped here: the
  // stores keep those bars queued.
  StopFlush stop_flush(std::chrono::steady_clock::duration budget,
                       std::chrono::steady_clock::duration retry_every,
                       const StopClock& clock = {});
  // Logs holding accepted bars they could not write yet (disk full / I/O error).
  size_t unhealthy() const { return failing_.size(); }
  uint64_t syncfs_calls() const { return syncfs_calls_; }

  feeds::BarValidator& validator() { return validator_; }
  const feeds::BarValidator& validator() const { return validator_; }
  const IngestTarget& target(size_t index) const { return targets_[index]; }
  size_t size() const { return targets_.size(); }

 private:
  Status sync_pass(bool only_if_due);

  std::vector<IngestTarget> targets_;
  config::FsyncPolicy fsync_;
  feeds::BarValidator validator_;
  std::vector<size_t> batch_bars_;  // per target: accepted since the last commit
  std::vector<size_t> touched_;     // targets with batch_bars_ > 0, in first-touch order
  std::vector<size_t> failing_;     // targets whose log holds unwritten bars
  uint64_t syncfs_calls_ = 0;
};

}  // namespace wfod::daemon
