// The systemd watchdog's timing (WatchdogSec=, sd_watchdog_enabled): how often the daemon
// pings WATCHDOG=1 for a given timeout. Pure, so it is unit-tested; the pinging itself is
// the event loop's (daemon/app).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace wfod::daemon {

// The ping period for a watchdog timeout of `timeout_us` microseconds (WATCHDOG_USEC):
// half of it, as sd_watchdog_enabled(3) recommends, so one late ping is not fatal. Never
// below 1 ms, so a tiny timeout cannot spin the loop. nullopt when the watchdog is off
// (a timeout of 0).
std::optional<std::chrono::microseconds> watchdog_ping_interval(uint64_t timeout_us);

}  // namespace wfod::daemon
