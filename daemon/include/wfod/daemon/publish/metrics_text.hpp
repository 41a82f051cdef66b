// wfod's /metrics page: every metric family, its type, labels and help, from HealthInput.
// The table in docs/operations.md ("Metrics") lists the same families; dashboards/ and
// dashboards/wfod-alerts.yml query them.
//
// Labels: `symbol` and `strategy` come from the configuration, so the series count is
// bounded by it, never by the data. The optimisation duration histogram is by `strategy`
// only: the grid and window that decide its duration belong to the strategy (its symbols
// take about as long each), and a histogram per (symbol, strategy) would multiply the
// strategy's 20 bucket series by every symbol it runs on.
#pragma once

#include <string>

#include "wfod/daemon/publish/snapshot.hpp"

namespace wfod::daemon {

// The Prometheus text exposition (version 0.0.4) of `h`.
std::string prometheus_metrics(const HealthInput& h);

}  // namespace wfod::daemon
