// A run's publication, payload to the stream's new state (publication_step.hpp).
#include "wfod/daemon/core/publication_step.hpp"

#include <chrono>
#include <optional>
#include <utility>

#include "wfod/daemon/publish/publication_text.hpp"

namespace wfod::daemon {

PublicationStep::PublicationStep(Publisher& publisher, SignalGate& signals, BarKeeper& bars,
                                 LiveStateSink& live, PublicationStepEvents& events,
                                 const config::Config& cfg, BackendName backend_name,
                                 WallNs wall_ns)
    : publisher_(publisher),
      signals_(signals),
      bars_(bars),
      live_(live),
      events_(events),
      cfg_(cfg),
      backend_name_(std::move(backend_name)),
      wall_ns_(std::move(wall_ns)) {}

void PublicationStep::publish(const PublicationKey& key, SymbolStrategy& stream,
                              const HistorySnapshot& snap, JobResult& r) {
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
    params = params_json(best->combo);
    in.symbol = key.first;
    in.strategy = key.second;
    in.seq = seq;
    in.published_ns = wall_ns_ ? wall_ns_()
                               : std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
    in.window_bars = stream.cfg.window;
    in.first_ts = snap.block->bar(end - stream.cfg.window).ts_ns;
    in.last_ts = snap.block->bar(end - 1).ts_ns;
    in.grid = &stream.spec.grid;
    in.result = &r.sweep;
    in.changed = !stream.last_params || *stream.last_params != *params;
    in.elapsed_ms = r.elapsed_ms;
    in.backend = r.sweep.backend.empty() ? backend_name_() : r.sweep.backend;
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
  BarStorePublishView store(*bars_.at(key.first).store);
  std::optional<Publisher::Sent> sent =
      publisher_.publish(key, run, store, build, [&] { signals_.send(key, stream, end - 1); });
  if (!sent) return;
  r.marks.sent = sent->at;
  latency_.record(r.marks);
  events_.published(key, Published{sent->topic, in.seq, *best, *params, in.changed, end,
                                   stream.cfg.rank.objective, r});

  // Bar end - 1's signal on: the new combo.
  signals_.follow_published(key, stream, r.follow, r.follow_missing, end, in.seq);
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
  live_.save(key, std::move(live));
}

}  // namespace wfod::daemon
