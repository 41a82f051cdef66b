// The one wrapper around sd_notify (systemd Type=notify): READY, STATUS, STOPPING. A no-op
// when built without libsystemd or when not started by systemd (NOTIFY_SOCKET unset).
#pragma once

#include <string>

namespace wfod::daemon {

void notify(const std::string& state);

}  // namespace wfod::daemon
