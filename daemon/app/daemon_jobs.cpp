// Runs and publications: the worker's side of a job (WorkerHandOff) and the RunDispatcher's
// log lines (its rules: daemon/core/run_dispatcher.cpp), and the PROTOCOL §2 publication: its
// payload and log lines here, its rules and their order in Publisher
// (daemon/core/publisher.cpp), over the seams daemon_impl.hpp declares (SequenceNumbers,
// PubSocketSink, PublicationLog).

#include "daemon_impl.hpp"

namespace wfod::daemon::loop {

void WorkerHandOff::post(JobTicket ticket) {
  worker_.post([this, t = std::move(ticket)]() mutable {
    HistorySnapshot history = t.input.snap;
    JobResult out = run_job(*t.backend, t.input);
    const std::optional<Combo> next = next_live_winner(out);
    // Before the post: the publication carries the combo's position, and the loop follows
    // it for signals from the window's last bar on.
    if (next) follow_winner(t.input, out, *next);
    asio::post(io_, [this, key = t.key, generation = t.generation, history,
                     out = std::move(out)]() mutable {
      results->on_result(key, generation, history, std::move(out));
    });
    if (next) warm_live_tracker(t.input, *next);
    checkpoint_if_due(t.key, t.input, t.plan);
  });
}

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

Result<uint64_t> SequenceNumbers::next(std::string_view symbol, std::string_view strategy) {
  return seqs_->next(symbol, strategy);
}

Status SequenceNumbers::top_up(std::string_view symbol, std::string_view strategy) {
  return seqs_->top_up(symbol, strategy);
}

SendResult PubSocketSink::send(std::string_view topic, std::string_view payload) {
  try {
    if (!pub_->sock.send(zmq::buffer(topic),
                         zmq::send_flags::sndmore | zmq::send_flags::dontwait) ||
        !pub_->sock.send(zmq::buffer(payload), zmq::send_flags::dontwait)) {
      return {};
    }
  } catch (const zmq::error_t& e) {
    return {false, e.what()};
  }
  return {true, {}};
}

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

void Daemon::publish(const PublicationKey& key, SymbolStrategy& stream, const HistorySnapshot& snap,
                     JobResult& r) {
  const size_t end = r.end;  // the history may hold newer bars by now
  Publisher::Run run;
  if (r.selection && !r.selection->publish)
    run.selection_withheld = r.selection->reason;
  else
    run.window_last_ts = snap.block->bar(end - 1).ts_ns;
  const Ranked* best = nullptr;
  std::optional<Json> params;
  PublicationInput in;
  // The payload, once the rules let it go with its sequence number (Publisher::publish).
  auto build = [&](uint64_t seq) {
    best = r.selection ? &*r.selection->publish : &r.sweep.top.front();
    params = params_json(stream.spec.grid, best->combo);
    in.symbol = key.first;
    in.strategy = key.second;
    in.seq = seq;
    in.published_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
    in.window_bars = stream.cfg.window;
    in.first_ts = snap.block->bar(end - stream.cfg.window).ts_ns;
    in.last_ts = snap.block->bar(end - 1).ts_ns;
    in.grid = &stream.spec.grid;
    in.result = &r.sweep;
    in.changed = !stream.last_params || *stream.last_params != *params;
    in.elapsed_ms = r.elapsed_ms;
    in.backend = r.sweep.backend.empty() ? dispatcher_.backend_name() : r.sweep.backend;
    in.config_version = cfg_.sha256;
    if (r.selection) {
      in.published = best;
      in.selection = r.selection->json;
    }
    if (r.live && stream.last_seq > 0) {
      in.live_oos = LiveOos{stream.last_seq, end - stream.last_end, *r.live};
    }
    // p_{end-1} of the published combo (PROTOCOL §2), from the tracker the worker forked.
    if (r.follow && r.follow->bars() == end) in.position = r.follow->last();
    return Publisher::Payload{publication_text(in), in.published_ns};  // = publication_json
  };
  BarStorePublishView store(*keeper_.at(key.first).store);
  std::optional<Publisher::Sent> sent =
      publisher_.publish(key, run, store, build, [&] { signal_gate_.send(key, stream, end - 1); });
  if (!sent) return;
  r.marks.sent = sent->at;
  latency_.record(r.marks);
  spdlog::debug(
      "latency stream={}.{} seq={} ingest_ms={:.3f} handoff_ms={:.3f} job_ms={:.3f} "
      "result_ms={:.3f} publish_ms={:.3f}",
      key.first, key.second, in.seq, ms_between(r.marks.received, r.marks.queued),
      ms_between(r.marks.queued, r.marks.started), ms_between(r.marks.started, r.marks.finished),
      ms_between(r.marks.finished, r.marks.taken), ms_between(r.marks.taken, r.marks.sent));
  // sweep_ms: the whole job (stream run, selection, live_oos); optimise_ms: the stream run.
  spdlog::info(
      "published topic={} seq={} combo_id={} params={} {}={:.4g} changed={} sweep_ms={:.1f} "
      "optimise_ms={:.2f} history_bars={} evaluated={} skipped={}",
      sent->topic, in.seq, best->combo.id, params_log_text(*params),
      to_string(stream.cfg.rank.objective), best->objective, in.changed, r.elapsed_ms,
      r.optimise_ms, end, r.sweep.evaluated, r.sweep.skipped);
  notify("STATUS=serving; last publication " + sent->topic + " seq " + std::to_string(in.seq));

  // Bar end - 1's signal on: the new combo.
  signal_gate_.follow_published(key, stream, r.follow, r.follow_missing, end, in.seq);
  stream.before = stream.winner;
  stream.winner = best->combo;
  stream.last_seq = in.seq;
  stream.last_end = end;
  stream.last_params = std::move(params);
  ++stream.publications;
  // After the send: a crash in between leaves the previous state, so the next start's
  // live_oos refers to an older publication (still a true statement), never to one unsent.
  LiveState live{stream.fingerprint_crc, in.seq,       end,
                 best->combo.id,         std::nullopt, std::move(sent->payload)};
  if (stream.before) live.before = stream.before->id;
  live_writer_->post(key, std::move(live));  // written off the loop thread
}

}  // namespace wfod::daemon::loop
