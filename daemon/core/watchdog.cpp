// The systemd watchdog's ping period: half the timeout systemd gives us, bounded below.

#include "wfod/daemon/core/watchdog.hpp"

namespace wfod::daemon {

std::optional<std::chrono::microseconds> watchdog_ping_interval(uint64_t timeout_us) {
  if (timeout_us == 0) return std::nullopt;
  constexpr uint64_t kMinUs = 1000;
  const uint64_t half = timeout_us / 2;
  return std::chrono::microseconds(half < kMinUs ? kMinUs : half);
}

}  // namespace wfod::daemon
