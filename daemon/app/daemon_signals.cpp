// Per-bar signals (PROTOCOL §2a) on the loop thread. Each stream's SignalFollower holds the
// published combo's PositionTracker; after every feed batch, sync pass and run result the
// persisted bars that no run in flight holds are appended to it (O(new bars) per stream,
// none of the optimiser's work) and their signals sent. A run holds the bars from its
// window's last bar on until its publication is decided: the publication goes first and the
// tracker is replaced by the one the worker forked for the new combo at the window's end,
// so the signal of that bar already follows the new combo (docs/protocol.md "Signals").

#include "daemon_impl.hpp"

namespace wfod::daemon::loop {

void Daemon::send_signals(const PublicationKey& key, SymbolStrategy& stream, size_t end) {
  SignalFollower& f = stream.signals;
  if (!cfg_.publish.signals || !f.following() || end <= f.next()) return;
  std::vector<Signal> out;
  try {
    out = f.take(keeper_.bars_between(keeper_.at(key.first), f.needs_from(), end));
  } catch (const std::exception& e) {
    spdlog::error(
        "stream {}.{}: signals stopped at bar {}: {}; they resume with the next "
        "publication",
        key.first, key.second, f.next(), e.what());
    f.stop();
    return;
  }
  const std::string topic = "signal." + key.first + "." + key.second;
  for (const Signal& s : out) {
    const std::string payload =
        signal_payload(key.first, key.second, s, f.combo_id(), f.params_seq());
    // Never blocks, like publications: a subscriber at its high-water mark loses it; a
    // refusal of the whole message counts in the publish socket's drops (health, metrics).
    if (const auto error = publisher_.send(topic, payload))
      spdlog::error("stream {}.{}: signal send: {}", key.first, key.second, *error);
  }
}

void Daemon::signals_ready(const PublicationKey& key, SymbolStrategy& stream) {
  if (!cfg_.publish.signals || !stream.signals.following()) return;
  send_signals(key, stream, stream.signals.ready_end(keeper_.durable_bars(keeper_.at(key.first))));
}

void Daemon::signals_ready_all() {
  if (!cfg_.publish.signals) return;
  for (auto& [key, stream] : streams_) signals_ready(key, stream);
}

void Daemon::follow_published(const PublicationKey& key, SymbolStrategy& stream, JobResult& r,
                              uint64_t seq) {
  if (!cfg_.publish.signals) return;
  const size_t end = r.end;
  if (!r.follow || r.follow->bars() != end) {
    spdlog::error(
        "stream {}.{}: no signals until the next publication: the positions of "
        "publication seq={} are not known ({})",
        key.first, key.second, seq,
        r.follow ? "its tracker is not at the window's end" : r.follow_missing);
    stream.signals.stop();
    return;
  }
  try {
    stream.signals.adopt(std::move(*r.follow), seq, end - 1);
  } catch (const std::invalid_argument& e) {
    spdlog::error("stream {}.{}: no signals until the next publication: {}", key.first, key.second,
                  e.what());
    stream.signals.stop();
  }
}

void Daemon::follow_at_start() {
  if (!cfg_.publish.signals) return;
  for (auto& [key, stream] : streams_) {
    if (!stream.winner || stream.last_seq == 0 || !stream.slot->is_open()) continue;
    const HistorySnapshot snap = keeper_.at(key.first).history.snapshot();
    try {
      // The tracker starts where the stream is (its checkpoint, or the newest bar); the first
      // signals extend it through the bars since.
      stream.signals.adopt(stream.slot->follow(*stream.winner, snap, kSignalTrackerKeep),
                           stream.last_seq, snap.end);
      spdlog::info("stream {}.{}: signals follow combo {} of publication seq={} from bar {}",
                   key.first, key.second, stream.winner->id, stream.last_seq, snap.end);
    } catch (const std::exception& e) {
      spdlog::warn("stream {}.{}: signals resume with the next publication ({})", key.first,
                   key.second, e.what());
      stream.signals.stop();
    }
  }
}

}  // namespace wfod::daemon::loop
