// watchdog_ping_interval: the WATCHDOG=1 period the daemon derives from systemd's
// WatchdogSec= (WATCHDOG_USEC): off at 0, half the timeout, never below 1 ms.

#include "wfod/daemon/core/watchdog.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>

namespace {

using std::chrono::microseconds;
using wfod::daemon::watchdog_ping_interval;

TEST(WatchdogPingInterval, OffWhenTimeoutIsZero) {
  EXPECT_FALSE(watchdog_ping_interval(0).has_value());
}

TEST(WatchdogPingInterval, HalfTheTimeout) {
  // WatchdogSec=30 in the unit files: systemd passes 30,000,000 us; ping every 15 s.
  EXPECT_EQ(watchdog_ping_interval(30'000'000), microseconds(15'000'000));
  EXPECT_EQ(watchdog_ping_interval(3'000), microseconds(1'500));
  EXPECT_EQ(watchdog_ping_interval(2'001), microseconds(1'000));  // rounds down
}

TEST(WatchdogPingInterval, NeverBelowOneMillisecond) {
  EXPECT_EQ(watchdog_ping_interval(1), microseconds(1'000));
  EXPECT_EQ(watchdog_ping_interval(1'999), microseconds(1'000));
}

TEST(WatchdogPingInterval, LargestTimeoutDoesNotOverflow) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  const auto p = watchdog_ping_interval(max);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(static_cast<uint64_t>(p->count()), max / 2);
}

}  // namespace
