// Every symbol's bars, on disk and in memory, and the rules between the two (history and
// durability; issue 44 item 1). A validated bar is staged in its symbol's bar log and
// appended to its history (Ingest); the loop commits the batch before it serves anything
// else: one write per touched log, then a sync per [daemon] fsync (every: each commit;
// batch: a pass once a log is due, and within 50 ms by the sync timer; none: never). What
// derives from a bar waits until it is on disk per that policy: the streams hear of new bars
// only after the commit (committed), signals read durable_bars(), and a result whose bars
// are written but not synced is published by the next sync pass (after_next_sync: one group
// commit within 20 ms for every result meanwhile). A log the disk refuses (full, I/O error)
// keeps its accepted bars in memory and in the history, in order, retried every second
// until written; it is reported once when it starts failing and once when it recovers, and
// its symbol's publications are withheld meanwhile (Publisher). At a stop every bar is
// written within a budget, and what could not be is reported (losses_at_stop).
//
// Loop thread only. Its log lines and its follow-ups are the owner's (BarKeeperEvents), its
// two timers are the loop's (LoopTimer), the stores' file calls go through FileOps: the
// unit tests (tests/unit/daemon/core/bar_keeper_test.cpp) drive every rule with fakes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/config/config.hpp"
#include "wfod/daemon/core/ingest.hpp"
#include "wfod/daemon/publish/snapshot.hpp"
#include "wfod/daemon/store/bar_store.hpp"
#include "wfod/daemon/store/io_result.hpp"
#include "wfod/daemon/store/symbol_history.hpp"

namespace wfod::daemon {

// Bars kept in memory beyond what a bounded history's readers need (the window, the runs
// since a publication): room for a stream lagging a few runs behind the feed.
inline constexpr size_t kHistoryMargin = 4096;

struct SymbolState {
  config::SymbolConfig cfg;
  std::optional<BarStore> store;
  // The bars in memory, held once however many strategies run on the symbol: Ingest
  // appends, jobs read snapshots (SymbolHistory says why that needs no lock).
  SymbolHistory history;
  uint64_t last_seq = 0;
  // Bars of a corrupt log quarantined at start (on_corrupt_log = quarantine): health stays
  // degraded until a restart finds the log clean.
  uint64_t quarantined_bars = 0;
  uint64_t accepted_bars = 0;  // feed bars taken since start (wfod_bars_accepted_total)
};

// What one reader of a symbol's history (a stream) needs kept in memory.
struct HistoryNeed {
  bool bounded = false;  // its engine stream answers without the history from the anchor
  size_t keep = 0;       // the newest bars a run reads: window + warmup + 2
  size_t every = 1;      // runs every this many bars
  size_t taken = 0;      // bars its stream has taken: the next run reads the ones after
  size_t last_end = 0;   // bars its last publication covered: live_oos reads from last_end - 1
  std::optional<size_t> signals_from;  // the oldest bar its signals read, while following
};

// A one-shot timer of the loop (an asio::steady_timer in the daemon, a fake in tests):
// start() while one is pending is not done (the keeper never does); `fired` runs on the
// loop when it expires, never once the timer is cancelled (the daemon cancels at its stop).
class LoopTimer {
 public:
  virtual ~LoopTimer() = default;
  virtual void start(std::chrono::milliseconds after, std::function<void()> fired) = 0;
};

// What the keeper reports: its log lines, and the two points from which what waits on the
// bars may go on.
class BarKeeperEvents {
 public:
  virtual ~BarKeeperEvents() = default;
  // A log started refusing writes (disk full, I/O error); not for a lost one (file_lost).
  virtual void log_failing(const SymbolState& sym, const IoError& error) = 0;
  // A failing log wrote its whole backlog.
  virtual void log_recovered(const SymbolState& sym) = 0;
  // A sync pass failed: the unsynced bars are written again.
  virtual void sync_failed(const IoError& error) = 0;
  // The open log is no longer the file at its path (deleted, moved), or is back at it.
  virtual void file_lost(const SymbolState& sym, const IoError& error) = 0;
  virtual void file_back(const SymbolState& sym) = 0;
  // `bars` new bars of `sym` are written, and synced where the policy syncs every commit:
  // the streams may schedule runs over them.
  virtual void committed(SymbolState& sym, size_t bars) = 0;
  // A sync pass ended, after the results it released: more bars may be durable.
  virtual void synced() = 0;
};

// What a stop could not persist.
struct StopLosses {
  // Logs deleted or moved while open: no start reads their bars (records and pending).
  std::vector<std::pair<const SymbolState*, uint64_t>> unreachable;
  // Accepted bars the disk still refused when the stop's budget ran out.
  std::vector<std::pair<const SymbolState*, uint64_t>> unwritten;
  bool any() const { return !unreachable.empty() || !unwritten.empty(); }
};

class BarKeeper {
 public:
  using Symbols = std::map<std::string, SymbolState, std::less<>>;

  // `sync_timer`: fsync = batch's 50 ms sync and the failing logs' retries; `group_timer`:
  // the group commit of results awaiting a sync. Every reference must outlive the keeper.
  BarKeeper(BarKeeperEvents& events, LoopTimer& sync_timer, LoopTimer& group_timer);

  // --- start-up ---
  // A symbol whose log is open and whose history holds the bars loaded from it.
  SymbolState& add(SymbolState state);
  // The feed path over every symbol added: from now on bars come through on_message.
  void start(config::FsyncPolicy fsync);
  // The bars of `symbol`'s log a start loads into memory (BarStoreOptions::load_newest):
  // where the backend's streams are bounded (they resume from checkpoints or read older bars
  // from the log), what the history holds at most (set_needs); otherwise (streams need the
  // history from the anchor), 0: all.
  static size_t bars_to_load(std::span<const config::StrategyConfig> strategies,
                             std::string_view symbol, bool streams_bounded);

  // --- the feed path (loop thread) ---
  // Validates one message and stages its bar (Ingest::on_message): nothing outside the
  // process can see it before commit().
  IngestOutcome on_message(std::span<const std::string_view> frames, feeds::PayloadFormat format);
  // The end of a feed batch: the staged bars are written (and synced per the policy), the
  // failing logs retried; then committed() per symbol that took bars; the sync timer is
  // started when bars wait for a sync or a log fails.
  void commit();
  // Publishes a result once its bars are synced: `then` runs after the next sync pass,
  // which the group commit starts within 20 ms, shared by every result that comes meanwhile.
  void after_next_sync(std::function<void()> then);
  // The stop began: no timer is started from now on.
  void stop() { stopping_ = true; }

  // --- what is durable ---
  // Bars [0, n) of the symbol are on disk per the policy: written, and synced unless
  // fsync = none. While any written bar is unsynced (fsync = batch between its passes) none
  // is counted: the sync pass that follows within 50 ms counts them.
  size_t durable_bars(const SymbolState& sym) const;
  // Bars [first, end) from memory, the older ones from the bar log (std::runtime_error when
  // it cannot be read).
  std::vector<Bar> bars_between(const SymbolState& sym, size_t first, size_t end) const;
  // Bar t's ts, from memory or else from the bar log (nullopt when neither has it).
  std::optional<int64_t> bar_ts(const SymbolState& sym, size_t t) const;
  // Whether every open log is still the file at its path (BarStore::check_file), reported
  // on each change: every second, and at the stop before losses_at_stop.
  void check_files();
  // Accepted bars not written (disk errors).
  uint64_t unwritten() const;
  // What the history may drop: bounded by its readers' needs (the window plus a margin when
  // every reader is bounded, everything otherwise) and never a bar not yet in the log.
  void set_needs(SymbolState& sym, std::span<const HistoryNeed> needs);

  // --- the stop ---
  // Every staged and pending bar written and synced, a failing disk retried every
  // `retry_every` within `budget` (Ingest::stop_flush).
  StopFlush flush_at_stop(std::chrono::steady_clock::duration budget,
                          std::chrono::steady_clock::duration retry_every,
                          const StopClock& clock = {});
  // What the flush (and check_files) left unpersisted.
  StopLosses losses_at_stop(const StopFlush& flushed) const;

  // The symbols' part of health: their bars and staleness, the feed counters, the bar
  // logs' storage state (any log unhealthy: degraded).
  void fill_health(HealthInput& h, int64_t now_ns) const;

  Symbols& symbols() { return symbols_; }
  const Symbols& symbols() const { return symbols_; }
  SymbolState& at(std::string_view symbol);
  const SymbolState& at(std::string_view symbol) const;
  bool contains(std::string_view symbol) const { return symbols_.find(symbol) != symbols_.end(); }
  feeds::BarValidator& validator() { return ingest_->validator(); }
  const feeds::BarValidator& validator() const { return ingest_->validator(); }

 private:
  void start_sync_timer();
  void sync_timer_fired();
  void sync_pass();

  BarKeeperEvents& events_;
  LoopTimer& sync_timer_;
  LoopTimer& group_timer_;
  Symbols symbols_;
  std::optional<Ingest> ingest_;        // the feed path: validator, staging, commits
  std::vector<SymbolState*> by_index_;  // Ingest's target index -> symbol
  bool sync_timer_armed_ = false;
  bool group_posted_ = false;
  bool stopping_ = false;
  // Results whose bars are written but not yet synced (fsync batch / every): published by
  // the next sync pass, so one sync covers every publication of a loop turn.
  std::vector<std::function<void()>> after_sync_;
};

}  // namespace wfod::daemon
