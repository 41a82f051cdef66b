// A run's publication (PROTOCOL §2), from its result to the stream's new state: the payload
// (window, changed against the last published params, live_oos only after a publication of
// this stream, the position only from a tracker at the window's end, the backend that ran
// it, the configuration's version) built once the Publisher's rules let it go; then, only if
// it went out, the latency marks, the signals' new combo from the window's last bar, the
// stream's winners, sequence number and params, and its live state saved (after the send:
// a crash in between leaves the previous state, never one for a publication unsent).
//
// Loop thread only. The RunDispatcher calls it (RunPublication); its log lines and the live
// state's writer are seams: tests/unit/daemon/core/publication_step_test.cpp checks each field and
// rule with the real Publisher on a recording socket.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "wfod/config/config.hpp"
#include "wfod/daemon/core/bar_keeper.hpp"
#include "wfod/daemon/core/job.hpp"
#include "wfod/daemon/core/publisher.hpp"
#include "wfod/daemon/core/run_dispatcher.hpp"
#include "wfod/daemon/core/signal_gate.hpp"
#include "wfod/daemon/core/streams.hpp"
#include "wfod/daemon/publish/latency_stats.hpp"
#include "wfod/daemon/publish/publication.hpp"
#include "wfod/daemon/store/live_state.hpp"

namespace wfod::daemon {

// A publication that went out, for its log lines.
struct Published {
  std::string_view topic;
  uint64_t seq = 0;
  const Ranked& best;
  const Json& params;
  bool changed = false;
  size_t end = 0;  // bars the window covered
  Objective objective = Objective::sharpe;
  const JobResult& result;  // its latency marks (sent included), timings and counts
};

class PublicationStepEvents {
 public:
  virtual ~PublicationStepEvents() = default;
  virtual void published(const PublicationKey& key, const Published& p) = 0;
};

// Where a stream's newest live state goes (the daemon: the live-state writer's thread).
class LiveStateSink {
 public:
  virtual ~LiveStateSink() = default;
  virtual void save(const PublicationKey& key, LiveState state) = 0;
};

class PublicationStep final : public RunPublication {
 public:
  using BackendName = std::function<std::string()>;
  using WallNs = std::function<int64_t()>;

  // Every reference must outlive the step; `cfg` is read at each publication (a reload
  // changes its sha256, the payload's config_version). `backend_name`: the backend in use
  // now (for a result that does not name its own); `wall_ns`: the system clock when empty.
  PublicationStep(Publisher& publisher, SignalGate& signals, BarKeeper& bars, LiveStateSink& live,
                  PublicationStepEvents& events, const config::Config& cfg,
                  BackendName backend_name, WallNs wall_ns = {});

  void publish(const PublicationKey& key, SymbolStrategy& stream, const HistorySnapshot& snap,
               JobResult& r) override;

  // Per-stage timings of the publications so far (health latency_ms).
  const LatencyStats& latency() const { return latency_; }

 private:
  Publisher& publisher_;
  SignalGate& signals_;
  BarKeeper& bars_;
  LiveStateSink& live_;
  PublicationStepEvents& events_;
  const config::Config& cfg_;
  BackendName backend_name_;
  WallNs wall_ns_;
  LatencyStats latency_;
};

}  // namespace wfod::daemon
