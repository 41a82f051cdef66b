// The daemon's health (the snapshot socket's ["health"], /healthz and /metrics; PROTOCOL §3)
// as its parts know it, and the rules that make it degraded: a bar log that is not healthy
// or a symbol degraded (BarKeeper::fill_health), or a storage alarm raised (StorageAlarms:
// the state directory, publications.seq, live state, checkpoints). The storage error shown is
// a bar log's own when one fails (it says more about the bars), else the state directory's
// (the likely cause of the rest), else the first alarm raised. Per stream: its schedule, its
// publications since start, the time of its newest publication (one from before a restart
// too) and the bars since its window ended. tests/unit/daemon/core/health_report_test.cpp.
//
// The endpoints' own counters (connections, CURVE denials, dropped replies, feed sessions),
// the reloads' and the build's identity are the daemon's to add.
#pragma once

#include <cstdint>
#include <string_view>

#include "wfod/daemon/core/bar_keeper.hpp"
#include "wfod/daemon/core/publisher.hpp"
#include "wfod/daemon/core/run_dispatcher.hpp"
#include "wfod/daemon/core/storage_alarms.hpp"
#include "wfod/daemon/core/streams.hpp"
#include "wfod/daemon/publish/latency_stats.hpp"
#include "wfod/daemon/publish/snapshot.hpp"

namespace wfod::daemon {

struct HealthParts {
  const BarKeeper& bars;
  const StreamMap& streams;
  const RunDispatcher& runs;
  const Publisher& publisher;
  const LatencyStats& latency;
  const StorageAlarms& alarms;
  std::string_view requested_backend;  // [daemon] backend
};

// `uptime_s` since the daemon started; `now_ns` the system clock (staleness).
HealthInput health_report(const HealthParts& parts, double uptime_s, int64_t now_ns);

}  // namespace wfod::daemon
