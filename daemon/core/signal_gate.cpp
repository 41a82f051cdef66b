// Per-bar signals on the loop thread (signal_gate.hpp). Each stream's SignalFollower holds the
// published combo's PositionTracker; the durable bars that no run in flight holds are
// appended to it (O(new bars) per stream, none of the optimiser's work) and their signals
// sent. A run holds the bars from its window's last bar on until its publication is
// decided: the publication goes first and the tracker is replaced by the one the worker
// forked for the new combo at the window's end, so the signal of that bar already follows
// the new combo (docs/protocol.md "Signals").
#include "wfod/daemon/core/signal_gate.hpp"

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wfod::daemon {

SignalGate::SignalGate(bool enabled, const BarKeeper& bars, Publisher& out, SignalEvents& events)
    : enabled_(enabled), bars_(bars), out_(out), events_(events) {}

void SignalGate::send(const PublicationKey& key, SymbolStrategy& stream, size_t end) {
  SignalFollower& f = stream.signals;
  if (!enabled_ || !f.following() || end <= f.next()) return;
  std::vector<Signal> out;
  try {
    out = f.take(bars_.bars_between(bars_.at(key.first), f.needs_from(), end));
  } catch (const std::exception& e) {
    events_.stopped(key, f.next(), e.what());
    f.stop();
    return;
  }
  const std::string topic = "signal." + key.first + "." + key.second;
  for (const Signal& s : out) {
    const std::string payload =
        signal_payload(key.first, key.second, s, f.combo_id(), f.params_seq());
    // Never blocks, like publications: a subscriber at its high-water mark loses it; a
    // refusal of the whole message counts in the publish socket's drops (health, metrics).
    if (const auto error = out_.send(topic, payload)) events_.send_failed(key, *error);
  }
}

void SignalGate::ready(const PublicationKey& key, SymbolStrategy& stream) {
  if (!enabled_ || !stream.signals.following()) return;
  send(key, stream, stream.signals.ready_end(bars_.durable_bars(bars_.at(key.first))));
}

void SignalGate::ready_all(StreamMap& streams) {
  if (!enabled_) return;
  for (auto& [key, stream] : streams) ready(key, stream);
}

void SignalGate::follow_published(const PublicationKey& key, SymbolStrategy& stream,
                                  std::optional<PositionTracker>& follow,
                                  std::string_view follow_missing, size_t end, uint64_t seq) {
  if (!enabled_) return;
  if (!follow || follow->bars() != end) {
    events_.unknown_positions(
        key, seq,
        follow ? std::string_view("its tracker is not at the window's end") : follow_missing);
    stream.signals.stop();
    return;
  }
  try {
    stream.signals.adopt(std::move(*follow), seq, end - 1);
  } catch (const std::invalid_argument& e) {
    events_.not_followed(key, e.what());
    stream.signals.stop();
  }
}

void SignalGate::follow_at_start(StreamMap& streams) {
  if (!enabled_) return;
  for (auto& [key, stream] : streams) {
    if (!stream.winner || stream.last_seq == 0 || !stream.slot->is_open()) continue;
    const HistorySnapshot snap = bars_.at(key.first).history.snapshot();
    try {
      // The tracker starts where the stream is (its checkpoint, or the newest bar); the first
      // signals extend it through the bars since.
      stream.signals.adopt(stream.slot->follow(*stream.winner, snap, kSignalTrackerKeep),
                           stream.last_seq, snap.end);
      events_.following(key, stream.winner->id, stream.last_seq, snap.end);
    } catch (const std::exception& e) {
      events_.resume_later(key, e.what());
      stream.signals.stop();
    }
  }
}

}  // namespace wfod::daemon
