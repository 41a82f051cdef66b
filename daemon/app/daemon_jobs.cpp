// Runs and publications: a due stream's job handed to the worker, its result taken back on
// the loop (backend fallback, sync waits), and the PROTOCOL §2 publication: its payload and
// log lines here, its rules and their order in Publisher (daemon/core/publisher.cpp), over
// the seams daemon_impl.hpp declares (SequenceNumbers, PubSocketSink, PublicationLog).

#include "daemon_impl.hpp"

namespace wfod::daemon::loop {

void Daemon::update_history_needs(const std::string& symbol) {
  keeper_.set_needs(keeper_.at(symbol), history_needs(streams_, symbol));
}

void Daemon::start_job(const PublicationKey& key) {
  SymbolStrategy& stream = streams_.at(key);
  SymbolState& sym = keeper_.at(key.first);
  HistorySnapshot snap = sym.history.snapshot();
  const size_t bars = snap.end;
  const SweepRequest req = request_for(stream, bars, cfg_.daemon);
  JobInput in{
      snap, sym.store->path(), req, stream.winner, stream.before, stream.last_end, stream.slot,
      stream.cfg.has_selection ? std::optional<selection::SelectionSpec>(stream.cfg.selection)
                               : std::nullopt,
      // after a restart nothing was selected yet: the restored winner is current
      stream.selected ? stream.selected
      : stream.winner ? std::optional<uint64_t>(stream.winner->id)
                      : std::nullopt,
      stream.due_at, Clock::now()};
  const uint64_t generation = stream.generation;
  stream.signals.hold(bars);          // bar bars - 1's signal waits for this run's publication
  Backend* backend = backend_.get();  // kept alive after a fallback (retired_backends_)
  spdlog::debug("sweep start stream={}.{} history_bars={} window_bars={}", key.first, key.second,
                bars, stream.cfg.window);

  const CheckpointPlan plan{&*checkpoints_, stream.fingerprint_crc,
                            std::chrono::seconds(cfg_.daemon.checkpoint_every_s), &storage_alarms_};
  worker_.post([this, key, generation, in = std::move(in), backend, plan]() mutable {
    HistorySnapshot history = in.snap;
    JobResult out = run_job(*backend, in);
    const std::optional<Combo> next = next_live_winner(out);
    // Before the post: the publication carries the combo's position, and the loop follows
    // it for signals from the window's last bar on.
    if (next) follow_winner(in, out, *next);
    asio::post(io_, [this, key, generation, history, out = std::move(out)]() mutable {
      on_job_done(key, generation, history, std::move(out));
    });
    if (next) warm_live_tracker(in, *next);
    checkpoint_if_due(key, in, plan);
  });
}

bool Daemon::fall_back_to_cpu(const std::string& error) {
  // A failing device (allocation, kernel, lost GPU) must not stop publication: the CPU
  // backend computes the same results (SPEC §9). The old backend stays alive: jobs already
  // queued hold a pointer to it (and fail over again, harmlessly, if it keeps failing).
  const std::string from = backend_name_;
  std::unique_ptr<Backend> cpu;
  try {
    cpu = make_backend("cpu");
  } catch (const std::exception& e) {
    spdlog::critical("backend fallback from={} to=cpu failed: {}", from, e.what());
    return false;
  }
  retired_backends_.push_back(std::move(backend_));
  backend_ = std::move(cpu);
  backend_name_ = std::string(backend_->name());
  ++backend_fallbacks_;
  backend_error_ = error;
  spdlog::error("backend fallback from={} to={} error=\"{}\": optimising on the CPU from now on",
                from, backend_name_, error);
  notify("STATUS=serving on the cpu backend after a " + from + " failure");
  return true;
}

void Daemon::on_job_done(const PublicationKey& key, uint64_t generation, HistorySnapshot snap,
                         JobResult result) {
  if (stopping_) return;
  result.marks.taken = Clock::now();
  auto it = streams_.find(key);
  if (it == streams_.end() || it->second.generation != generation) {
    spdlog::info("stream {}.{}: result of a replaced or removed strategy dropped", key.first,
                 key.second);
    return;
  }
  SymbolStrategy& stream = it->second;
  if (result.error.empty()) optimisation_durations_[key.second].observe(result.elapsed_ms / 1e3);
  if (result.slot_bars > 0) {  // the slot ran (an error before it leaves it as it was)
    stream.taken = result.slot_bars;
    stream.bounded = result.bounded;
    update_history_needs(key.first);
  }
  if (!result.live_missing.empty() && !stream.live_missing_logged) {
    stream.live_missing_logged = true;  // once per stream: it recurs while the cause lasts
    spdlog::warn("stream {}.{}: live_oos published null: {}", key.first, key.second,
                 result.live_missing);
  }
  if (result.stream_opened) {
    const StreamStats& st = result.stream_stats;
    spdlog::info(
        "stream {}.{} opened backend={} incremental={} history_bars={} chunk={} "
        "footprint_mb={:.1f} open_s={:.3f}",
        key.first, key.second, result.sweep.backend, st.incremental, st.bars, st.chunk,
        static_cast<double>(st.footprint_bytes) / 1e6, st.open_seconds);
    if (!result.stream_fallback.empty())
      spdlog::warn(
          "stream {}.{}: full sweeps on every run (the incremental stream does not fit: {})",
          key.first, key.second, result.stream_fallback);
  }
  if (result.backend_failed && backend_->runs_on_device()) {
    if (fall_back_to_cpu(result.error)) {
      stream.signals.release(result.end);
      start_job(key);  // the same run again, on the CPU; the scheduler still counts it running
      return;
    }
  }
  if (result.selection && result.selection->publish)
    stream.selected = result.selection->publish->combo.id;
  if (!result.error.empty()) {
    spdlog::error("sweep failed stream={}.{} error=\"{}\"", key.first, key.second, result.error);
  } else if (result.sweep.top.empty()) {
    spdlog::warn(
        "sweep empty stream={}.{} window_bars={} evaluated={} sweep_ms={:.1f}: no combo passed "
        "the constraints, nothing published",
        key.first, key.second, stream.cfg.window, result.sweep.evaluated, result.elapsed_ms);
  } else if (Publisher::awaits_sync(cfg_.daemon.fsync,
                                    BarStorePublishView(*keeper_.at(key.first).store))) {
    // PROTOCOL §2: the covered bars must be persisted first; the next sync pass publishes
    // (and releases the signals this run holds), unless a reload replaced the stream since.
    auto waiting = std::make_shared<std::pair<HistorySnapshot, JobResult>>(snap, std::move(result));
    keeper_.after_next_sync([this, key, generation, waiting] {
      auto found = streams_.find(key);
      if (found == streams_.end() || found->second.generation != generation) return;
      publish(key, found->second, waiting->first, waiting->second);
      found->second.signals.release(waiting->second.end);
    });
    if (stream.sched.on_job_done()) start_job(key);
    return;
  } else {
    publish(key, stream, snap, result);
  }
  stream.signals.release(result.end);  // decided: published, withheld or nothing to publish
  if (stream.sched.on_job_done()) start_job(key);  // holds its own window's last bar first
  signal_gate_.ready(key, stream);
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
    in.backend = r.sweep.backend.empty() ? backend_name_ : r.sweep.backend;
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
