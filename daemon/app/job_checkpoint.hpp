// The worker's periodic checkpoint of a stream after its run (CheckpointPlan: where and how
// often), in the daemon because it writes its own log lines from the worker thread.
#pragma once

#include <string>
#include <utility>

#include "wfod/daemon/core/job.hpp"

namespace wfod::daemon {

// After a run: the slot's exact state to disk when `plan.every` has passed since the last
// one (worker thread; errors are logged, rate-limited, and the next period tries again).
void checkpoint_if_due(const std::pair<std::string, std::string>& key, JobInput& in,
                       const CheckpointPlan& plan);

}  // namespace wfod::daemon
