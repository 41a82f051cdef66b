// The one wrapper around sd_notify (systemd Type=notify): READY, STATUS, STOPPING, WATCHDOG.
// A no-op when built without libsystemd or when not started by systemd (NOTIFY_SOCKET unset).
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace wfod::daemon {

void notify(const std::string& state);

// How often to send WATCHDOG=1: half of WatchdogSec= when systemd asks for pings
// (sd_watchdog_enabled), nullopt when it does not or without libsystemd.
std::optional<std::chrono::microseconds> watchdog_interval();

}  // namespace wfod::daemon
