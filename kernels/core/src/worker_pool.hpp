// The engine's pool under the name its code uses (detail::run_workers): the declaration and
// its contract are public (wfod/worker_threads.hpp), so the daemon's start-up helpers run on
// the same pool.
#pragma once

#include "wfod/worker_threads.hpp"

namespace wfod::detail {

using wfod::run_workers;

}  // namespace wfod::detail
