// Per-bar signals (PROTOCOL §2a) and what gates them: a bar is signalled only once it is on
// disk per the fsync policy (BarKeeper::durable_bars: under fsync = batch, after the sync
// pass), and not while a run that ends at it or before is undecided (SignalFollower::hold:
// its publication goes first, so the signal of its last bar already follows the new combo);
// each bar once, in order, with the combo of the publication in force. A send never blocks:
// a message the socket refuses is counted in the publication socket's drops (Publisher::send)
// and the next ones still go. Bars memory no longer holds are read from the bar log; one
// that cannot be read stops the stream's signals until its next publication.
//
// Loop thread only. The daemon calls ready() after each batch's commit, ready_all() after
// each sync pass, follow_published() after a publication, follow_at_start() once the streams
// are open; its log lines are the owner's (SignalEvents).
// tests/unit/daemon/core/signal_gate_test.cpp drives it over a BarKeeper on a disk that fails on
// demand and a recording socket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "wfod/daemon/core/bar_keeper.hpp"
#include "wfod/daemon/core/publisher.hpp"
#include "wfod/daemon/core/streams.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod::daemon {

// What the gate reports; the daemon writes each as its log line.
class SignalEvents {
 public:
  virtual ~SignalEvents() = default;
  // The socket raised an error on a signal (a plain refusal is only counted).
  virtual void send_failed(const PublicationKey& key, std::string_view error) = 0;
  // The bars from `bar` on could not be read: no signals until the next publication.
  virtual void stopped(const PublicationKey& key, size_t bar, std::string_view error) = 0;
  // Publication `seq`'s positions are not known (`why`): no signals until the next one.
  virtual void unknown_positions(const PublicationKey& key, uint64_t seq, std::string_view why) = 0;
  // The tracker of a publication could not give its window's last bar.
  virtual void not_followed(const PublicationKey& key, std::string_view error) = 0;
  // At start: the stream's signals follow `combo` of publication `seq` from bar `bar`.
  virtual void following(const PublicationKey& key, uint64_t combo, uint64_t seq, size_t bar) = 0;
  // At start: the stream's signals wait for its next publication (`error`).
  virtual void resume_later(const PublicationKey& key, std::string_view error) = 0;
};

class SignalGate {
 public:
  // `enabled`: [publish] signals. Every reference must outlive the gate.
  SignalGate(bool enabled, const BarKeeper& bars, Publisher& out, SignalEvents& events);

  // The stream's signals up to bar `end` (exclusive), with the combo it follows now (the
  // publisher calls it for the bars before a publication's last one).
  void send(const PublicationKey& key, SymbolStrategy& stream, size_t end);
  // Every signal of the stream that may go now: durable bars no run holds.
  void ready(const PublicationKey& key, SymbolStrategy& stream);
  void ready_all(StreamMap& streams);
  // After publication `seq` over bars [0, end): follow its combo from bar end - 1, with the
  // tracker the worker forked at the window's end (`follow`; `follow_missing` says why there
  // is none).
  void follow_published(const PublicationKey& key, SymbolStrategy& stream,
                        std::optional<PositionTracker>& follow, std::string_view follow_missing,
                        size_t end, uint64_t seq);
  // At start-up (the worker stopped): streams resumed with a published winner follow it
  // from the newest bar.
  void follow_at_start(StreamMap& streams);

 private:
  bool enabled_;
  const BarKeeper& bars_;
  Publisher& out_;
  SignalEvents& events_;
};

}  // namespace wfod::daemon
