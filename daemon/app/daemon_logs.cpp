// Every part's log lines: the events of the Publisher, the BarKeeper, the SignalGate, the
// RunDispatcher and the PublicationStep written as the lines the integration tests and
// operators read (docs/operations.md), with the sd_notify STATUS lines that go with them.
// The rules that raise them are in daemon/core; their text is the daemon's.

#include "daemon_logs.hpp"

#include <spdlog/spdlog.h>

#include <string>

#include "exit_codes.hpp"
#include "notify.hpp"
#include "wfod/daemon/publish/log_text.hpp"

namespace wfod::daemon::loop {

// --- the Publisher (core/publisher.cpp) ---

void PublicationLog::selection_withheld(const PublicationKey& key, std::string_view reason) {
  spdlog::warn("stream {}.{}: nothing published: selection reason={}", key.first, key.second,
               reason);
}

void PublicationLog::behind_published(const PublicationKey& key, int64_t window_last_ts,
                                      int64_t published_last_ts) {
  spdlog::warn(
      "stream {}.{}: publications withheld: the window ends at ts {}, before the last "
      "published window's {} (bars were lost); publishing resumes once it reaches that",
      key.first, key.second, window_last_ts, published_last_ts);
}

void PublicationLog::caught_up(const PublicationKey& key) {
  spdlog::info("stream {}.{}: the window reaches the last published one again: publishing",
               key.first, key.second);
}

void PublicationLog::not_persisted(const PublicationKey& key, std::string_view error,
                                   uint64_t suppressed) {
  spdlog::error("stream {}.{}: bars not persisted ({}); publication withheld{}", key.first,
                key.second, error, not_logged_note(suppressed));
}

void PublicationLog::no_sequence_number(const PublicationKey& key, std::string_view error,
                                        uint64_t suppressed) {
  spdlog::error("stream {}.{}: no sequence number: {}; publication withheld{}", key.first,
                key.second, error, not_logged_note(suppressed));
}

void PublicationLog::sequence_numbers_back() {
  spdlog::info("publication sequence numbers are written again: publishing");
}

void PublicationLog::send_failed(const PublicationKey& key, std::string_view error) {
  spdlog::error("stream {}.{}: send: {}", key.first, key.second, error);
}

void PublicationLog::top_up_failed(const PublicationKey& key, std::string_view error,
                                   uint64_t suppressed) {
  spdlog::warn("stream {}.{}: sequence numbers not reserved ahead: {}{}", key.first, key.second,
               error, not_logged_note(suppressed));
}

// --- the BarKeeper (core/bar_keeper.cpp) ---

void BarKeeperLog::log_failing(const SymbolState& sym, const IoError& error) {
  spdlog::error(
      "symbol {}: bar log write failed: {}; accepted bars kept in memory and retried, "
      "publications withheld, health degraded",
      sym.cfg.name, error.message);
}

void BarKeeperLog::log_recovered(const SymbolState& sym) {
  spdlog::info("symbol {}: bar log written again, backlog persisted", sym.cfg.name);
}

void BarKeeperLog::sync_failed(const IoError& error) {
  spdlog::error("bar log sync: {}; the unsynced bars are written again", error.message);
}

void BarKeeperLog::file_lost(const SymbolState& sym, const IoError& error) {
  spdlog::error(
      "symbol {}: {}; publications withheld, health degraded; a stop exits {} (restore the "
      "state_dir before the next start: it would start the symbol over)",
      sym.cfg.name, error.message, kExitBarsLost);
}

void BarKeeperLog::file_back(const SymbolState& sym) {
  spdlog::info("symbol {}: bar log {} is back at its path", sym.cfg.name, sym.store->path());
}

void BarKeeperLog::committed(SymbolState& sym, size_t bars) {
  spdlog::debug("symbol {}: +{} bars, {} total", sym.cfg.name, bars, sym.history.size());
  on_committed(sym, bars);
}

// --- the SignalGate (core/signal_gate.cpp) ---

void SignalLog::send_failed(const PublicationKey& key, std::string_view error) {
  spdlog::error("stream {}.{}: signal send: {}", key.first, key.second, error);
}

void SignalLog::stopped(const PublicationKey& key, size_t bar, std::string_view error) {
  spdlog::error(
      "stream {}.{}: signals stopped at bar {}: {}; they resume with the next "
      "publication",
      key.first, key.second, bar, error);
}

void SignalLog::unknown_positions(const PublicationKey& key, uint64_t seq, std::string_view why) {
  spdlog::error(
      "stream {}.{}: no signals until the next publication: the positions of "
      "publication seq={} are not known ({})",
      key.first, key.second, seq, why);
}

void SignalLog::not_followed(const PublicationKey& key, std::string_view error) {
  spdlog::error("stream {}.{}: no signals until the next publication: {}", key.first, key.second,
                error);
}

void SignalLog::following(const PublicationKey& key, uint64_t combo, uint64_t seq, size_t bar) {
  spdlog::info("stream {}.{}: signals follow combo {} of publication seq={} from bar {}", key.first,
               key.second, combo, seq, bar);
}

void SignalLog::resume_later(const PublicationKey& key, std::string_view error) {
  spdlog::warn("stream {}.{}: signals resume with the next publication ({})", key.first, key.second,
               error);
}

// --- the RunDispatcher (core/run_dispatcher.cpp) ---

void RunLog::started(const PublicationKey& key, size_t bars, size_t window) {
  spdlog::debug("sweep start stream={}.{} history_bars={} window_bars={}", key.first, key.second,
                bars, window);
}

void RunLog::coalesced(const PublicationKey& key, uint64_t so_far) {
  spdlog::info("stream {}.{}: run due while one is in flight: coalesced ({} so far)", key.first,
               key.second, so_far);
}

void RunLog::dropped(const PublicationKey& key) {
  spdlog::info("stream {}.{}: result of a replaced or removed strategy dropped", key.first,
               key.second);
}

void RunLog::live_missing(const PublicationKey& key, std::string_view why) {
  spdlog::warn("stream {}.{}: live_oos published null: {}", key.first, key.second, why);
}

void RunLog::stream_opened(const PublicationKey& key, const JobResult& result) {
  const StreamStats& st = result.stream_stats;
  spdlog::info(
      "stream {}.{} opened backend={} incremental={} history_bars={} chunk={} "
      "footprint_mb={:.1f} open_s={:.3f}",
      key.first, key.second, result.sweep.backend, st.incremental, st.bars, st.chunk,
      static_cast<double>(st.footprint_bytes) / 1e6, st.open_seconds);
  if (!result.stream_fallback.empty())
    spdlog::warn("stream {}.{}: full sweeps on every run (the incremental stream does not fit: {})",
                 key.first, key.second, result.stream_fallback);
}

void RunLog::fell_back(std::string_view from, std::string_view to, std::string_view error) {
  spdlog::error("backend fallback from={} to={} error=\"{}\": optimising on the CPU from now on",
                from, to, error);
  notify("STATUS=serving on the cpu backend after a " + std::string(from) + " failure");
}

void RunLog::fallback_failed(std::string_view from, std::string_view error) {
  spdlog::critical("backend fallback from={} to=cpu failed: {}", from, error);
}

void RunLog::failed(const PublicationKey& key, std::string_view error) {
  spdlog::error("sweep failed stream={}.{} error=\"{}\"", key.first, key.second, error);
}

void RunLog::empty(const PublicationKey& key, size_t window, uint64_t evaluated,
                   double elapsed_ms) {
  spdlog::warn(
      "sweep empty stream={}.{} window_bars={} evaluated={} sweep_ms={:.1f}: no combo passed "
      "the constraints, nothing published",
      key.first, key.second, window, evaluated, elapsed_ms);
}

void RunLog::waiting_for_bars(const PublicationKey& key, const SymbolStrategy& stream,
                              size_t history) {
  spdlog::info(
      "stream {}.{}: waiting for {} more bars: a run needs {} (window {} + warmup {} + 1), "
      "the history has {}",
      key.first, key.second, stream.sched.min_bars() - history, stream.sched.min_bars(),
      stream.cfg.window, stream.warmup, history);
}

void RunLog::next_run_after(const PublicationKey& key, const SymbolStrategy& stream) {
  spdlog::info("stream {}.{}: next run after {} more bars (every {}; {} since the last run)",
               key.first, key.second, stream.sched.bars_until_due(), stream.cfg.every,
               stream.sched.bars_since_run());
}

// --- the PublicationStep (core/publication_step.cpp) ---

void PublishedLog::published(const PublicationKey& key, const Published& p) {
  const LatencyStats::Marks& m = p.result.marks;
  spdlog::debug(
      "latency stream={}.{} seq={} ingest_ms={:.3f} handoff_ms={:.3f} job_ms={:.3f} "
      "result_ms={:.3f} publish_ms={:.3f}",
      key.first, key.second, p.seq, ms_between(m.received, m.queued),
      ms_between(m.queued, m.started), ms_between(m.started, m.finished),
      ms_between(m.finished, m.taken), ms_between(m.taken, m.sent));
  // sweep_ms: the whole job (stream run, selection, live_oos); optimise_ms: the stream run.
  spdlog::info(
      "published topic={} seq={} combo_id={} params={} {}={:.4g} changed={} sweep_ms={:.1f} "
      "optimise_ms={:.2f} history_bars={} evaluated={} skipped={}",
      p.topic, p.seq, p.best.combo.id, params_log_text(p.params), to_string(p.objective),
      p.best.objective, p.changed, p.result.elapsed_ms, p.result.optimise_ms, p.end,
      p.result.sweep.evaluated, p.result.sweep.skipped);
  notify("STATUS=serving; last publication " + std::string(p.topic) + " seq " +
         std::to_string(p.seq));
}

// --- the connection caps (app/http_endpoint.cpp, the snapshot socket's ZAP handler) ---

void log_connection_cap(feeds::RejectLogLimiter& limit, std::string_view socket, size_t open,
                        int max, std::string_view what) {
  const auto d = limit.on_reject();
  if (!d.log) return;
  spdlog::warn("{}: {} connections open, the cap (max_{}_connections) is {}: {}{}", socket, open,
               socket, max, what, not_logged_note(d.suppressed));
}

}  // namespace wfod::daemon::loop
