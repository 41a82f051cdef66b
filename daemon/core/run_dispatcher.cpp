// Scheduling and the worker hand-off (run_dispatcher.hpp): due runs to the worker, results
// back on the loop, the cpu fallback, the sync wait of a publication.
#include "wfod/daemon/core/run_dispatcher.hpp"

#include <exception>
#include <optional>
#include <utility>

#include "wfod/daemon/core/publisher.hpp"

namespace wfod::daemon {

RunDispatcher::RunDispatcher(StreamMap& streams, BarKeeper& bars, SignalGate& signals,
                             RunPublication& publication, JobHandOff& hand_off, RunEvents& events,
                             const config::DaemonConfig& daemon, StorageAlarms& alarms,
                             MakeCpu make_cpu, Now now)
    : streams_(streams),
      bars_(bars),
      signals_(signals),
      publication_(publication),
      hand_off_(hand_off),
      events_(events),
      daemon_(daemon),
      alarms_(alarms),
      make_cpu_(std::move(make_cpu)),
      now_(std::move(now)) {}

void RunDispatcher::set_backend(std::unique_ptr<Backend> backend) {
  backend_ = std::move(backend);
  backend_name_ = std::string(backend_->name());
}

void RunDispatcher::on_bars(SymbolState& sym, size_t bars, Clock::time_point due_at) {
  for_each_stream_of(
      streams_, sym.cfg.name, [&](const PublicationKey& key, SymbolStrategy& stream) {
        const uint64_t before = stream.sched.coalesced();
        stream.due_at = due_at;
        if (stream.sched.on_bars(sym.history.size(), bars)) {
          start(key);
        } else if (stream.sched.coalesced() != before) {
          events_.coalesced(key, stream.sched.coalesced());
        }
        signals_.ready(key, stream);  // after start: a run due now holds its last bar
      });
}

void RunDispatcher::start_first_runs() {
  for (auto& [key, stream] : streams_) {
    const SymbolState& sym = bars_.at(key.first);
    if (stream.sched.on_bars(sym.history.size(), 0)) {
      start(key);
    } else if (sym.history.size() < stream.sched.min_bars()) {
      events_.waiting_for_bars(key, stream, sym.history.size());
    } else {
      // Resumed after a restart: the every-k count goes on from the last publication.
      events_.next_run_after(key, stream);
    }
  }
}

void RunDispatcher::start_if_due(const PublicationKey& key) {
  SymbolStrategy& stream = streams_.at(key);
  if (stream.sched.on_bars(bars_.at(key.first).history.size(), 0)) start(key);
}

void RunDispatcher::start(const PublicationKey& key) {
  SymbolStrategy& stream = streams_.at(key);
  SymbolState& sym = bars_.at(key.first);
  HistorySnapshot snap = sym.history.snapshot();
  const size_t bars = snap.end;
  const SweepRequest req = request_for(stream, bars, daemon_);
  JobInput in{
      snap, sym.store->path(), req, stream.winner, stream.before, stream.last_end, stream.slot,
      stream.cfg.has_selection ? std::optional<selection::SelectionSpec>(stream.cfg.selection)
                               : std::nullopt,
      // after a restart nothing was selected yet: the restored winner is current
      stream.selected ? stream.selected
      : stream.winner ? std::optional<uint64_t>(stream.winner->id)
                      : std::nullopt,
      stream.due_at, now()};
  const uint64_t generation = stream.generation;
  stream.signals.hold(bars);  // bar bars - 1's signal waits for this run's publication
  events_.started(key, bars, stream.cfg.window);
  const CheckpointPlan plan{checkpoints_, stream.fingerprint_crc,
                            std::chrono::seconds(daemon_.checkpoint_every_s), &alarms_};
  hand_off_.post(JobTicket{key, generation, std::move(in), backend_.get(), plan});
}

bool RunDispatcher::fall_back_to_cpu(const std::string& error) {
  // A failing device (allocation, kernel, lost GPU) must not stop publication: the CPU
  // backend computes the same results (SPEC §9). The old backend stays alive: jobs already
  // queued hold a pointer to it (and fail over again, harmlessly, if it keeps failing).
  const std::string from = backend_name_;
  std::unique_ptr<Backend> cpu;
  try {
    cpu = make_cpu_ ? make_cpu_() : make_backend("cpu");
  } catch (const std::exception& e) {
    events_.fallback_failed(from, e.what());
    return false;
  }
  retired_.push_back(std::move(backend_));
  backend_ = std::move(cpu);
  backend_name_ = std::string(backend_->name());
  ++fallbacks_;
  backend_error_ = error;
  events_.fell_back(from, backend_name_, error);
  return true;
}

void RunDispatcher::on_result(const PublicationKey& key, uint64_t generation, HistorySnapshot snap,
                              JobResult result) {
  if (stopping_) return;
  result.marks.taken = now();
  auto it = streams_.find(key);
  if (it == streams_.end() || it->second.generation != generation) {
    events_.dropped(key);
    return;
  }
  SymbolStrategy& stream = it->second;
  if (result.error.empty()) durations_[key.second].observe(result.elapsed_ms / 1e3);
  if (result.slot_bars > 0) {  // the slot ran (an error before it leaves it as it was)
    stream.taken = result.slot_bars;
    stream.bounded = result.bounded;
    bars_.set_needs(bars_.at(key.first), history_needs(streams_, key.first));
  }
  if (!result.live_missing.empty() && !stream.live_missing_logged) {
    stream.live_missing_logged = true;  // once per stream: it recurs while the cause lasts
    events_.live_missing(key, result.live_missing);
  }
  if (result.stream_opened) events_.stream_opened(key, result);
  if (result.backend_failed && backend_->runs_on_device()) {
    if (fall_back_to_cpu(result.error)) {
      stream.signals.release(result.end);
      start(key);  // the same run again, on the CPU; the scheduler still counts it running
      return;
    }
  }
  if (result.selection && result.selection->publish)
    stream.selected = result.selection->publish->combo.id;
  if (!result.error.empty()) {
    events_.failed(key, result.error);
  } else if (result.sweep.top.empty()) {
    events_.empty(key, stream.cfg.window, result.sweep.evaluated, result.elapsed_ms);
  } else if (Publisher::awaits_sync(daemon_.fsync,
                                    BarStorePublishView(*bars_.at(key.first).store))) {
    // PROTOCOL §2: the covered bars must be persisted first; the next sync pass publishes
    // (and releases the signals this run holds), unless a reload replaced the stream since.
    auto waiting = std::make_shared<std::pair<HistorySnapshot, JobResult>>(snap, std::move(result));
    bars_.after_next_sync([this, key, generation, waiting] {
      auto found = streams_.find(key);
      if (found == streams_.end() || found->second.generation != generation) return;
      publication_.publish(key, found->second, waiting->first, waiting->second);
      found->second.signals.release(waiting->second.end);
    });
    if (stream.sched.on_job_done()) start(key);
    return;
  } else {
    publication_.publish(key, stream, snap, result);
  }
  stream.signals.release(result.end);          // decided: published, withheld or nothing to publish
  if (stream.sched.on_job_done()) start(key);  // holds its own window's last bar first
  signals_.ready(key, stream);
}

uint64_t RunDispatcher::coalesced() const {
  uint64_t n = retired_coalesced_;
  for (const auto& [key, stream] : streams_) n += stream.sched.coalesced();
  return n;
}

}  // namespace wfod::daemon
