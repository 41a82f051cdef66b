// Signals, the systemd watchdog, SIGHUP reload (what applies live, what waits for a
// restart) and the orderly shutdown.

#include <algorithm>
#include <stdexcept>

#include "daemon_impl.hpp"
#include "wfod/daemon/core/backend_fit.hpp"
#include "wfod/daemon/core/config_checks.hpp"
#include "wfod/daemon/store/bar_log_reader.hpp"

namespace wfod::daemon::loop {

void Daemon::arm_signals() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    if (signo == SIGHUP) {
      reload();
      arm_signals();
    } else {
      spdlog::info("wfod stopping signal={}", signo == SIGTERM ? "SIGTERM" : "SIGINT");
      shut_down();
    }
  });
}

void Daemon::arm_watchdog() {
  // The ping is sent from the loop itself: a loop that is stuck (a handler that never
  // returns, a deadlock) stops pinging and systemd restarts us. A degraded bar log does not
  // stop the pings: a restart would not fix the disk, and health reports it.
  watchdog_.expires_after(watchdog_every_);
  watchdog_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping_) return;
    notify("WATCHDOG=1");
    arm_watchdog();
  });
}

void Daemon::reload() {
  if (config_path_.empty()) {
    spdlog::warn("SIGHUP: running the embedded demo configuration; nothing to reload");
    return;
  }
  notify("RELOADING=1");
  spdlog::info("reload start config={}", config_path_);
  config::Config next;
  const int64_t now_ns = feeds::BarValidator::system_now_ns();
  try {
    next = config::load_config(config_path_);
    // The checks of --check-config and start-up: a file with nothing to run (emptied,
    // truncated) or that could not run is refused whole, never applied in part.
    // Asked of the running backend: reload does not change it (a file that names another
    // one is told so, the check not being about the backend it names).
    CheckEnvironment env = system_check_environment();
    const bool backend_named_changes = next.daemon.backend != cfg_.daemon.backend;
    env.backend_refusal = [&backend = dispatcher_.backend(), backend_named_changes](
                              const StrategySpec& spec, bool selection) {
      std::string why = stream_refusal(backend, spec, selection);
      if (!why.empty() && backend_named_changes)
        why += "; asked of the running " + std::string(backend.name()) +
               " backend: a [daemon] backend change applies at the next start";
      return why;
    };
    for (const std::string& warning : enforce_daemon_config(next, env)) {
      spdlog::warn("reload: {}", warning);
    }
  } catch (const std::exception& e) {
    // One line: the whole-configuration checks list every error, one per line.
    std::string why = e.what();
    std::replace(why.begin(), why.end(), '\n', ';');
    ++reload_failures_;
    last_reload_ = HealthInput::Reload{false, now_ns, why};
    spdlog::error(
        "reload failed config={} error=\"{}\": refused, keeping the running configuration "
        "(reload_failures={})",
        config_path_, why, reload_failures_);
    notify("READY=1\nSTATUS=serving (reload refused: the running configuration is kept)");
    return;
  }
  last_reload_ = HealthInput::Reload{true, now_ns, ""};
  if (next.sha256 == cfg_.sha256) {
    spdlog::info("reload unchanged config={} sha256={}", config_path_, cfg_.sha256);
    notify("READY=1\nSTATUS=serving");
    return;
  }
  // Non-strategy keys: the cheap ones apply in place, the rest wait for a restart (sockets,
  // stores and the engine are set up once). One line says which is which.
  const ReloadPlan plan = plan_reload(cfg_, next);
  if (cfg_.daemon.log_level != next.daemon.log_level) {
    spdlog::set_level(spdlog::level::from_str(next.daemon.log_level));
    cfg_.daemon.log_level = next.daemon.log_level;
  }
  // Both are plain numbers read where they are used: the next bar's check, the next stop.
  if (cfg_.daemon.max_future_s != next.daemon.max_future_s) {
    keeper_.validator().set_max_future(std::chrono::seconds(next.daemon.max_future_s));
    cfg_.daemon.max_future_s = next.daemon.max_future_s;
  }
  if (cfg_.daemon.min_ts_ns != next.daemon.min_ts_ns) {
    keeper_.validator().set_min_ts(next.daemon.min_ts_ns);
    cfg_.daemon.min_ts_ns = next.daemon.min_ts_ns;
  }
  cfg_.daemon.stop_retry_s = next.daemon.stop_retry_s;
  cfg_.daemon.checkpoint_every_s = next.daemon.checkpoint_every_s;
  cfg_.daemon.max_snapshot_connections = next.daemon.max_snapshot_connections;
  cfg_.daemon.max_http_connections = next.daemon.max_http_connections;
  cfg_.daemon.memory_budget_mb = next.daemon.memory_budget_mb;
  if (cfg_.publish.http != next.publish.http) {
    http_.close();
    cfg_.publish.http = next.publish.http;
    int ignored_exit = kExitOk;  // not at start: a failure is only logged
    (void)http_.open(false, ignored_exit);
    if (http_.listening()) http_.accept();
  }
  if (!plan.restart.empty()) {
    spdlog::warn(
        "reload needs_restart=\"{}\": these keys keep their running values until a restart",
        join_keys(plan.restart));
  }
  // Strategies: streams are (symbol, strategy); a stream whose strategy is unchanged keeps
  // its schedule, winner and live_oos history; a changed one starts over.
  const StreamChanges changes = stream_changes(
      streams_, next.strategies, [this](std::string_view sym) { return keeper_.contains(sym); });
  for (const auto& [strategy, sym] : changes.new_symbols)
    spdlog::warn("SIGHUP: strategy {} on new symbol {}: needs a restart", strategy, sym);
  for (const PublicationKey& key : changes.removed) {
    spdlog::info("SIGHUP: stream {}.{} removed", key.first, key.second);
    dispatcher_.retire(streams_.at(key));
    publisher_.forget(key);
    streams_.erase(key);
  }
  std::vector<PublicationKey> to_start;
  for (const StreamChanges::Start& start : changes.started) {
    const PublicationKey& key = start.key;
    spdlog::info("SIGHUP: stream {}.{} {}", key.first, key.second,
                 start.changed ? "changed: re-optimising from scratch" : "added");
    // `changed` (PROTOCOL §2) compares with the previous publication, whatever the reload.
    std::optional<Json> last_params;
    if (start.changed) {
      dispatcher_.retire(streams_.at(key));
      last_params = streams_.at(key).last_params;
    }
    add_stream(*start.strategy, key.first);
    streams_.at(key).last_params = std::move(last_params);
    to_start.push_back(key);
  }
  // Keep the running [daemon], [publish], [[feed]] and [[symbol]] settings (logged above);
  // take the new strategies and the new config_version.
  cfg_.strategies = next.strategies;
  cfg_.sha256 = next.sha256;
  spdlog::info(
      "reload done config={} sha256={} streams={} started={} applied_live=\"{}\" "
      "needs_restart=\"{}\"",
      config_path_, cfg_.sha256, streams_.size(), to_start.size(), join_keys(plan.live),
      join_keys(plan.restart));
  for (const PublicationKey& key : to_start) dispatcher_.start_if_due(key);
  notify("READY=1\nSTATUS=serving");
}

// With the worker stopped the loop owns the slots: each bounded stream's exact state goes to
// disk, so the next start resumes from it (a restart's time then depends on the window).
void Daemon::save_checkpoints_at_stop() {
  const auto t0 = Clock::now();
  size_t saved = 0;
  for (auto& [key, stream] : streams_) {
    const EngineSlot& slot = *stream.slot;
    const SymbolState& sym = keeper_.at(key.first);
    if (!slot.is_open() || slot.bars() == 0 || slot.bars() > sym.history.size()) continue;
    try {
      auto blob = slot.checkpoint();
      if (!blob) continue;
      // The stream's newest bar: memory no longer holds it when the stream lags far behind.
      int64_t last_ts = 0;
      if (slot.bars() > sym.history.base()) {
        last_ts = sym.history.bar(slot.bars() - 1).ts_ns;
      } else {
        auto bar = read_bar_log(sym.store->path(), slot.bars() - 1, slot.bars());
        if (!bar.ok()) throw std::runtime_error(bar.error().message);
        last_ts = bar.value().ts_ns.at(0);
      }
      Checkpoint c{stream.fingerprint_crc, slot.bars(), last_ts, std::move(*blob)};
      if (Status s = checkpoints_->save(key.first, key.second, c); !s.ok()) {
        spdlog::error("stream {}.{}: checkpoint not written: {}; the next start replays", key.first,
                      key.second, s.error().message);
        continue;
      }
      ++saved;
    } catch (const std::exception& e) {
      spdlog::error("stream {}.{}: checkpoint failed: {}", key.first, key.second, e.what());
    }
  }
  if (saved > 0)
    spdlog::info("{} stream checkpoints written in {:.3f} s", saved,
                 ms_between(t0, Clock::now()) / 1e3);
}

void Daemon::shut_down() {
  if (stopping_) return;
  stopping_ = true;
  keeper_.stop();
  dispatcher_.stop();
  notify("STOPPING=1");
  signals_.cancel();
  watchdog_.cancel();
  sync_timer_.cancel();
  group_timer_.cancel();
  storage_timer_.cancel();
  boost::system::error_code ignored;
  if (rep_) rep_->fd.cancel(ignored);
  if (zap_) zap_->fd.cancel(ignored);
  if (snapshot_monitor_) snapshot_monitor_->cancel();
  http_.stop();
  for (auto& f : feeds_) {
    f->fd.cancel(ignored);
    f->monitor->cancel();
  }
  feed_timer_.cancel();
  // Queued sweeps are abandoned; a running one finishes (its result is dropped) if it does
  // within the budget. One that does not (a stream opening over a long history, a huge sweep)
  // is left running: every accepted bar is still written below, but no checkpoint is (the
  // job may be changing a stream), and the process ends without destroying what the job
  // uses (run_daemon). A restart resumes from the last periodic checkpoints and the bar logs.
  if (!worker_.stop_within(kWorkerStopBudget)) {
    worker_abandoned_ = true;
    spdlog::warn(
        "a running optimisation did not finish within {} ms of the stop: not waiting for it; "
        "stream checkpoints are not written at this stop (a restart resumes from the last "
        "periodic ones and the bar logs)",
        kWorkerStopBudget.count());
  }
  if (live_writer_) live_writer_->flush();  // every stream's last publication on disk
  if (!worker_abandoned_) save_checkpoints_at_stop();
  // Every staged or pending bar written, then one sync pass (one syncfs for many logs, not
  // a fdatasync per log: 1,000 symbols must stop well inside TimeoutStopSec). Bars the disk
  // refuses (full, I/O error) are retried for stop_retry_s: a disk that recovers meanwhile
  // gets all of them; otherwise they are lost, said loudly, and the exit is non-zero.
  const uint64_t unwritten = keeper_.unwritten();
  if (unwritten > 0) {
    spdlog::warn("{} accepted bars not yet written (disk errors): retrying for up to {} s",
                 unwritten, cfg_.daemon.stop_retry_s);
  }
  const auto flush_started = Clock::now();
  const StopFlush flushed = keeper_.flush_at_stop(std::chrono::seconds(cfg_.daemon.stop_retry_s),
                                                  std::chrono::milliseconds(200));
  const double flush_s = std::chrono::duration<double>(Clock::now() - flush_started).count();
  check_storage();  // a log deleted or moved while open: losses_at_stop counts it
  const StopLosses losses = keeper_.losses_at_stop(flushed);
  uint64_t unreachable = 0;
  std::string unreachable_by_symbol;
  for (const auto& [sym, bars] : losses.unreachable) {
    unreachable += bars;
    spdlog::error("symbol {}: {}", sym->cfg.name, sym->store->last_error()->message);
    unreachable_by_symbol +=
        (unreachable_by_symbol.empty() ? "" : " ") + sym->cfg.name + "=" + std::to_string(bars);
  }
  if (unreachable > 0) {
    spdlog::critical(
        "{} accepted bars not persisted at shutdown ({}): their bar logs were deleted or moved "
        "while wfod ran: exit {}",
        unreachable, unreachable_by_symbol, kExitBarsLost);
    exit_code_ = kExitBarsLost;
  }
  if (losses.unwritten.empty()) {
    if (unwritten > 0 || flushed.attempts > 1) {
      spdlog::info(
          "bar logs written at shutdown after {} attempts ({:.1f} s): every accepted "
          "bar persisted",
          flushed.attempts, flush_s);
    }
  } else {
    std::string by_symbol;
    for (const auto& [sym, bars] : losses.unwritten) {
      spdlog::error("symbol {}: {} accepted bars not written: {}", sym->cfg.name, bars,
                    sym->store->last_error() ? sym->store->last_error()->message : "");
      by_symbol += (by_symbol.empty() ? "" : " ") + sym->cfg.name + "=" + std::to_string(bars);
    }
    spdlog::critical(
        "{} accepted bars lost at shutdown ({}) after {} attempts in {:.1f} s: exit {}",
        flushed.lost_bars(), by_symbol, flushed.attempts, flush_s, kExitBarsLost);
    exit_code_ = kExitBarsLost;
  }
  if (Status s = seqs_->close(); !s.ok()) {
    spdlog::error("publication sequence numbers: final write: {}", s.error().message);
  }
  const uint64_t suppressed = reject_log_.pending_suppressed();
  if (suppressed > 0) spdlog::warn("{} feed rejects were not logged (rate limit)", suppressed);
  if (const uint64_t gaps = gap_log_.pending_suppressed(); gaps > 0) {
    spdlog::warn("{} feed gaps were not logged (rate limit)", gaps);
  }
  if (const uint64_t caps = http_.cap_lines_not_logged() + snapshot_cap_log_.pending_suppressed();
      caps > 0) {
    spdlog::warn("{} connection cap lines were not logged (rate limit)", caps);
  }
  if (const uint64_t storage = storage_alarms_.pending_suppressed(); storage > 0) {
    spdlog::warn("{} storage error lines were not logged (rate limit)", storage);
  }
  io_.stop();
}

}  // namespace wfod::daemon::loop
