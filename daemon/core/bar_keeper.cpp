// History and durability: the commit of a feed batch and what follows it, the sync and
// group-commit timers, the durable bars signals may use, the history's memory bound, the
// stop's last writes and what they lost (bar_keeper.hpp says what each rule is for).
#include "wfod/daemon/core/bar_keeper.hpp"

#include <algorithm>
#include <stdexcept>

#include "wfod/backend.hpp"
#include "wfod/daemon/publish/bar_interval.hpp"
#include "wfod/daemon/store/bar_log_reader.hpp"

namespace wfod::daemon {
namespace {

using std::chrono::milliseconds;

// fsync = batch: the oldest written-but-unsynced bar is synced within this even when the
// feed goes quiet.
constexpr milliseconds kSyncWithin{50};
// A failing log is retried this often, so its backlog reaches the disk in order as soon as
// space returns.
constexpr milliseconds kRetryEvery{1000};
// Group commit: results that finish within this of each other share one sync pass (a
// syncfs over 1,000 logs takes milliseconds to tens of them on the loop thread; one per
// publication capped publishing at a few hundred per second in bench/load_bench).
constexpr milliseconds kGroupCommit{20};

}  // namespace

BarKeeper::BarKeeper(BarKeeperEvents& events, LoopTimer& sync_timer, LoopTimer& group_timer)
    : events_(events), sync_timer_(sync_timer), group_timer_(group_timer) {}

SymbolState& BarKeeper::add(SymbolState state) {
  std::string name = state.cfg.name;
  return symbols_.emplace(std::move(name), std::move(state)).first->second;
}

void BarKeeper::start(config::FsyncPolicy fsync) {
  std::vector<IngestTarget> targets;
  by_index_.clear();
  for (auto& [name, st] : symbols_) {
    targets.push_back({name, &*st.store, &st.history});
    by_index_.push_back(&st);
  }
  ingest_.emplace(std::move(targets), fsync);
}

size_t BarKeeper::bars_to_load(std::span<const config::StrategyConfig> strategies,
                               std::string_view symbol, bool streams_bounded) {
  if (!streams_bounded) return 0;
  size_t keep = 0, most_every = 1;
  for (const config::StrategyConfig& s : strategies) {
    if (std::find(s.symbols.begin(), s.symbols.end(), symbol) == s.symbols.end()) continue;
    const size_t warmup = s.warmup ? *s.warmup : default_warmup(s.spec.grid);
    keep = std::max(keep, s.window + warmup + 2);
    most_every = std::max<size_t>(most_every, s.every);
  }
  return keep == 0 ? 0 : keep + 2 * most_every + kHistoryMargin;
}

IngestOutcome BarKeeper::on_message(std::span<const std::string_view> frames,
                                    feeds::PayloadFormat format) {
  return ingest_->on_message(frames, format);
}

void BarKeeper::commit() {
  const IngestCommit c = ingest_->commit();
  for (const auto& [index, error] : c.failed) {
    if (by_index_[index]->store->lost()) continue;  // check_files() said it
    events_.log_failing(*by_index_[index], error);
  }
  for (const size_t index : c.recovered) events_.log_recovered(*by_index_[index]);
  for (const IngestTouched& t : c.touched) {
    SymbolState& sym = *by_index_[t.index];
    sym.accepted_bars += t.bars;
    sym.history.set_durable(sym.store->records());  // what the history may drop (its limit)
    events_.committed(sym, t.bars);
  }
  if (ingest_->has_unsynced() || ingest_->unhealthy() > 0) start_sync_timer();
}

void BarKeeper::start_sync_timer() {
  if (sync_timer_armed_ || stopping_) return;
  sync_timer_armed_ = true;
  sync_timer_.start(ingest_->unhealthy() > 0 ? kRetryEvery : kSyncWithin,
                    [this] { sync_timer_fired(); });
}

void BarKeeper::sync_timer_fired() {
  sync_timer_armed_ = false;
  if (stopping_) return;
  if (ingest_->unhealthy() > 0) commit();  // retries the failing logs' backlog
  sync_pass();
}

void BarKeeper::after_next_sync(std::function<void()> then) {
  after_sync_.push_back(std::move(then));
  if (group_posted_) return;
  group_posted_ = true;
  group_timer_.start(kGroupCommit, [this] {
    group_posted_ = false;
    if (!stopping_) sync_pass();
  });
}

void BarKeeper::sync_pass() {
  if (Status s = ingest_->sync_all(); !s.ok()) events_.sync_failed(s.error());
  std::vector<std::function<void()>> ready;
  ready.swap(after_sync_);
  for (std::function<void()>& then : ready) then();
  events_.synced();  // the bars this pass synced, and those the results released
  if (ingest_->has_unsynced() || ingest_->unhealthy() > 0) start_sync_timer();
}

size_t BarKeeper::durable_bars(const SymbolState& sym) const {
  // The log tells how many records it holds, not how many are synced: while some are not
  // (fsync = batch between its syncs) none are counted here. fsync = none: written is
  // persisted. Bars the disk refused are not records.
  return sym.store->has_unsynced() ? 0 : sym.store->records();
}

std::vector<Bar> BarKeeper::bars_between(const SymbolState& sym, size_t first, size_t end) const {
  std::vector<Bar> out;
  if (end <= first) return out;
  out.reserve(end - first);
  const size_t base = sym.history.base();
  if (first < base) {
    // Memory no longer holds them (a follower that waited on a long run while a flood came
    // in): the log has every persisted bar.
    auto older = read_bar_log(sym.store->path(), first, std::min(end, base));
    if (!older.ok()) throw std::runtime_error(older.error().message);
    const Series& s = older.value();
    for (size_t i = 0; i < s.ts_ns.size(); ++i)
      out.push_back(Bar{s.ts_ns[i], s.open[i], s.high[i], s.low[i], s.close[i], s.volume[i], 0});
  }
  for (size_t t = std::max(first, base); t < end; ++t) out.push_back(sym.history.bar(t));
  return out;
}

std::optional<int64_t> BarKeeper::bar_ts(const SymbolState& sym, size_t t) const {
  if (t >= sym.history.size()) return std::nullopt;
  if (t >= sym.history.base()) return sym.history.bar(t).ts_ns;
  auto bar = read_bar_log(sym.store->path(), t, t + 1);
  if (!bar.ok()) return std::nullopt;
  return bar.value().ts_ns.at(0);
}

void BarKeeper::check_files() {
  for (auto& [name, sym] : symbols_) {
    const bool was_lost = sym.store->lost();
    const Status s = sym.store->check_file();
    if (!s.ok() && !was_lost) {
      events_.file_lost(sym, s.error());
    } else if (s.ok() && was_lost) {
      events_.file_back(sym);
    }
  }
}

uint64_t BarKeeper::unwritten() const {
  uint64_t n = 0;
  for (const auto& [name, sym] : symbols_) n += sym.store->pending();
  return n;
}

void BarKeeper::set_needs(SymbolState& sym, std::span<const HistoryNeed> needs) {
  const size_t end = sym.history.size();
  size_t keep = 0, needed = end, live_from = end, most_every = 1;
  bool bounded = true;
  for (const HistoryNeed& n : needs) {
    bounded = bounded && n.bounded;
    keep = std::max(keep, n.keep);
    most_every = std::max(most_every, n.every);
    needed = std::min(needed, n.taken);  // its next run's new bars (up to the cap below)
    if (n.last_end >= 1) live_from = std::min(live_from, n.last_end - 1);  // live_oos's bars
    if (n.signals_from) needed = std::min(needed, *n.signals_from);
  }
  sym.history.set_durable(sym.store->records());
  if (!bounded) {
    // A stream that needs the history from the anchor (cuda, the re-sweeping fallback, or
    // one not opened yet): keep every bar.
    sym.history.set_keep(0);
    sym.history.set_needed_from(0);
    sym.history.set_limit(0);
    return;
  }
  // Memory holds at most the window plus a margin (the limit): the bars since a stream's last
  // publication (live_oos) only a few runs back (an older live_oos is published null rather
  // than holding memory while publications are withheld), and the bars a lagging stream has
  // not taken only as far back: when the feed outruns the optimiser, its next run reads the
  // older ones from the bar log (EngineSlot::run), so memory does not grow with the lag.
  // Bars not yet in the log are always kept.
  sym.history.set_keep(keep);
  sym.history.set_needed_from(std::min(needed, live_from));
  sym.history.set_limit(keep + 2 * most_every + kHistoryMargin);
}

StopFlush BarKeeper::flush_at_stop(std::chrono::steady_clock::duration budget,
                                   std::chrono::steady_clock::duration retry_every,
                                   const StopClock& clock) {
  return ingest_->stop_flush(budget, retry_every, clock);
}

StopLosses BarKeeper::losses_at_stop(const StopFlush& flushed) const {
  StopLosses out;
  // A log deleted or moved while open took its writes, but no start will read them.
  for (const auto& [name, sym] : symbols_) {
    if (sym.store->lost())
      out.unreachable.emplace_back(&sym, sym.store->records() + sym.store->pending());
  }
  for (const auto& [index, bars] : flushed.lost) out.unwritten.emplace_back(by_index_[index], bars);
  return out;
}

void BarKeeper::fill_health(HealthInput& h, int64_t now_ns) const {
  for (const auto& [name, sym] : symbols_) {
    std::optional<int64_t> last_ts;
    if (sym.history.size() > 0) last_ts = sym.history.last_ts();
    SymbolHealth s = symbol_health(sym.history.size(), last_ts, sym.quarantined_bars,
                                   sym.cfg.stale_after_s, now_ns, h.uptime_s);
    s.accepted_bars = sym.accepted_bars;
    s.refused_bars = sym.store->stats().refused;
    s.bar_interval_s = recent_bar_interval_s(sym.history);
    s.stale_after_s = sym.cfg.stale_after_s;
    h.symbols[name] = s;
    if (!sym.store->healthy() || s.degraded()) h.degraded = true;
  }
  set_feed_counters(h, ingest_->validator().stats());
  for (const auto& [name, sym] : symbols_) {
    h.storage.pending_bars += sym.store->pending();
    h.storage.write_errors += sym.store->stats().write_errors + sym.store->stats().sync_errors;
    if (!sym.store->healthy()) {
      h.storage.ok = false;
      if (h.storage.error.empty() && sym.store->last_error()) {
        h.storage.error = name + ": " + sym.store->last_error()->message;
      }
    }
  }
}

SymbolState& BarKeeper::at(std::string_view symbol) {
  const auto it = symbols_.find(symbol);
  if (it == symbols_.end()) throw std::out_of_range("no symbol " + std::string(symbol));
  return it->second;
}

const SymbolState& BarKeeper::at(std::string_view symbol) const {
  const auto it = symbols_.find(symbol);
  if (it == symbols_.end()) throw std::out_of_range("no symbol " + std::string(symbol));
  return it->second;
}

}  // namespace wfod::daemon
