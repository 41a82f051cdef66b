// sd_notify wrapper: systemd learns the truth (loading, serving, stopping, alive) where it
// runs us; outside systemd, or built without libsystemd, every call does nothing.

#include "notify.hpp"

#include <cstdint>

#include "wfod/daemon/core/watchdog.hpp"

#ifdef WFOD_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

namespace wfod::daemon {

void notify(const std::string& state) {
#ifdef WFOD_HAVE_SYSTEMD
  // Failure to notify is not an error of ours: outside systemd there is no socket.
  (void)sd_notify(0, state.c_str());
#else
  (void)state;
#endif
}

std::optional<std::chrono::microseconds> watchdog_interval() {
#ifdef WFOD_HAVE_SYSTEMD
  uint64_t timeout_us = 0;
  // > 0: systemd set WATCHDOG_USEC for this process (WATCHDOG_PID, if set, matches ours).
  if (sd_watchdog_enabled(0, &timeout_us) > 0) return watchdog_ping_interval(timeout_us);
#endif
  return std::nullopt;
}

}  // namespace wfod::daemon
