// The wfod daemon: one Boost.Asio loop on the calling thread owning the feeds (ZeroMQ SUB),
// bar stores, scheduling, the publisher (PUB) and the snapshot endpoint (REP); sweeps run on
// a Worker thread and post results back (docs/architecture.md, "Threads").
#pragma once

#include <string>

#include "wfod/config/config.hpp"

namespace wfod::daemon {

// Runs until SIGTERM/SIGINT. `config_path` is re-read on SIGHUP; empty = the embedded demo
// (nothing to reload). Returns the process exit code: 0 after a graceful stop, 1 when
// start-up fails (the reason is logged).
int run_daemon(config::Config config, std::string config_path);

}  // namespace wfod::daemon
