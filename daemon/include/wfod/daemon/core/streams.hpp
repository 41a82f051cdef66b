// The streams: one record per (symbol, strategy), what PROTOCOL, the logs and health call a
// stream (`params.<SYMBOL>.<STRATEGY>`, `stream S.T: ...`, `streams/S.T.live`), kept on the
// loop thread and read and written by the daemon's parts (BarKeeper's memory bound, the
// signals, the runs, the publication). Also what is computed from a record alone: its
// fingerprint (does a reload leave it alone?), the sweep request of a run, the history it
// needs kept, and a new record for a strategy on a symbol.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/config/config.hpp"
#include "wfod/daemon/core/bar_keeper.hpp"
#include "wfod/daemon/core/engine_slot.hpp"
#include "wfod/daemon/core/run_scheduler.hpp"
#include "wfod/daemon/publish/publication.hpp"
#include "wfod/daemon/publish/signal_follower.hpp"
#include "wfod/daemon/publish/snapshot.hpp"

namespace wfod::daemon {

// One strategy on one of its symbols. Loop thread only; its engine side is `slot`, used by
// the worker.
struct SymbolStrategy {
  using Clock = std::chrono::steady_clock;

  config::StrategyConfig cfg;
  StrategySpec spec;  // cfg.spec with the symbol's bars_per_year
  size_t warmup = 0;
  RunScheduler sched{1, 0};
  uint64_t generation = 0;  // a reload that replaces the stream drops older results
  // The last two winners, for live_oos (SPEC §8): the previous publication's winner and
  // the one before it (the exit position at the first live bar).
  std::optional<Combo> winner, before;
  // Robust selection's "current" combo: the last one selected, set when a run's decision is
  // made, before its publication (which may wait for a sync pass while the next run starts).
  std::optional<uint64_t> selected;
  uint64_t last_seq = 0;
  size_t last_end = 0;  // history size the previous publication covered
  // What the slot reported after its last run (or its open at start-up): the bars its stream
  // has taken, and whether it answers without the history from the anchor. The history's
  // memory bound follows from these (history_needs).
  size_t taken = 0;
  bool bounded = false;
  bool live_missing_logged = false;
  uint64_t publications = 0;  // sent since this stream was started (/metrics)
  std::optional<Json> last_params;
  uint32_t fingerprint_crc = 0;  // CRC32 of fingerprint(cfg): tags its saved live state
  // When the loop woke with the bars that made the next run due (latency_ms in health).
  Clock::time_point due_at = Clock::now();
  // The backend stream this (symbol, strategy) optimises through (worker thread only); a
  // reload that replaces the stream starts a new one.
  std::shared_ptr<EngineSlot> slot = std::make_shared<EngineSlot>();
  // Per-bar signals (PROTOCOL §2a, SignalGate): the published combo's tracker, kept on the
  // loop thread, and the runs whose publication the next signals wait for.
  SignalFollower signals;
};

using StreamMap = std::map<PublicationKey, SymbolStrategy, std::less<>>;

// Everything of a strategy that changes what it computes or when: equal fingerprints mean
// a reload leaves the stream alone.
std::string fingerprint(const config::StrategyConfig& s);

// `s` on `sym` as a reload or the start makes it: its run schedule, the fingerprint that
// tags its saved state, its trackers' keep; signals from the next bar accepted (a restart or
// a reload repeats none).
SymbolStrategy new_stream(const config::StrategyConfig& s, const SymbolState& sym,
                          uint64_t generation);

// The sweep of `stream`'s window ending at bar `end`.
SweepRequest request_for(const SymbolStrategy& stream, size_t end,
                         const config::DaemonConfig& daemon);

// What the streams of `symbol` need kept of its history (BarKeeper::set_needs).
std::vector<HistoryNeed> history_needs(const StreamMap& streams, std::string_view symbol);

// What a reload's strategies change (SIGHUP): a stream whose strategy is unchanged (equal
// fingerprints) keeps its schedule, winner and live_oos history; a changed one starts over;
// a removed one goes; a strategy on a symbol the daemon does not run waits for a restart.
struct StreamChanges {
  struct Start {
    PublicationKey key;
    const config::StrategyConfig* strategy = nullptr;  // into the new configuration
    bool changed = false;                              // replaces a running stream
  };
  std::vector<std::pair<std::string, std::string>> new_symbols;  // (strategy, symbol)
  std::vector<PublicationKey> removed;                           // in stream order
  std::vector<Start> started;                                    // in stream order
};
StreamChanges stream_changes(const StreamMap& running,
                             const std::vector<config::StrategyConfig>& next,
                             const std::function<bool(std::string_view)>& has_symbol);

// Calls f(key, stream) for each stream of `symbol`, in strategy order.
template <class F>
void for_each_stream_of(StreamMap& streams, std::string_view symbol, F f) {
  for (auto it = streams.lower_bound(PublicationKey{std::string(symbol), std::string()});
       it != streams.end() && it->first.first == symbol; ++it)
    f(it->first, it->second);
}

}  // namespace wfod::daemon
