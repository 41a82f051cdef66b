// FeedLink (daemon/core/feed_link.cpp): an ordinary drop that libzmq reconnects needs
// nothing; a session that ends without a reconnect is due for one after the backoff, which
// doubles up to its cap and starts over once a message arrives; counters and ages.
#include "wfod/daemon/core/feed_link.hpp"

#include <gtest/gtest.h>

namespace wfod::daemon {
namespace {

using namespace std::chrono_literals;
using Clock = FeedLink::Clock;

TEST(FeedLink, AnOrdinaryDropLibzmqReconnectsNeedsNothing) {
  FeedLink f;
  const Clock::time_point t0{};
  EXPECT_FALSE(f.is_connected());
  f.connecting();  // the first connect is asynchronous
  f.connected();
  EXPECT_TRUE(f.is_connected());
  f.disconnected(t0);  // the publisher restarted
  f.connecting();      // CONNECT_RETRIED follows at once
  EXPECT_FALSE(f.is_connected());
  EXPECT_FALSE(f.check_at());
  EXPECT_FALSE(f.reconnect_due(t0 + 1h));
  f.connected();
  EXPECT_EQ(f.disconnects(), 1u);
  EXPECT_EQ(f.reconnects(), 0u);
}

TEST(FeedLink, ASessionEndedForGoodIsReconnectedWithBackoff) {
  FeedLink f;
  Clock::time_point t{};
  f.connected();
  f.message(t);
  // An oversized frame: DISCONNECTED and nothing after it.
  f.disconnected(t);
  ASSERT_TRUE(f.check_at());
  EXPECT_EQ(*f.check_at(), t + 1s);
  EXPECT_FALSE(f.reconnect_due(t + 999ms));
  EXPECT_TRUE(f.reconnect_due(t + 1s));
  EXPECT_EQ(f.reconnects(), 1u);
  // The re-connect brings the hostile publisher back, which does it again: 2 s, 4 s, ...
  Clock::duration expected = 2s;
  for (int i = 0; i < 8; ++i) {
    t += 1s;
    f.connecting();
    f.connected();
    f.disconnected(t);
    ASSERT_TRUE(f.check_at());
    EXPECT_EQ(*f.check_at() - t, expected) << i;
    EXPECT_FALSE(f.reconnect_due(t + expected - 1ms));
    EXPECT_TRUE(f.reconnect_due(t + expected));
    t += expected;
    expected = std::min<Clock::duration>(expected * 2, FeedLink::kMaxBackoff);
  }
  EXPECT_EQ(f.backoff(), FeedLink::kMaxBackoff);
  EXPECT_EQ(f.disconnects(), 9u);
  EXPECT_EQ(f.reconnects(), 9u);
  // A publisher that is heard again starts the backoff over.
  f.connected();
  f.message(t);
  EXPECT_EQ(f.backoff(), FeedLink::kFirstBackoff);
  f.disconnected(t);
  EXPECT_EQ(*f.check_at(), t + 1s);
}

TEST(FeedLink, AReconnectThatNeverReportsIsTriedAgain) {
  FeedLink f;
  const Clock::time_point t0{};
  f.disconnected(t0);
  ASSERT_TRUE(f.reconnect_due(t0 + 1s));
  // No event at all after the daemon's connect: due again after the doubled backoff.
  EXPECT_FALSE(f.reconnect_due(t0 + 2s));
  EXPECT_TRUE(f.reconnect_due(t0 + 3s));
  EXPECT_EQ(f.reconnects(), 2u);
}

TEST(FeedLink, LastMessageAge) {
  FeedLink f;
  const Clock::time_point t0{};
  EXPECT_FALSE(f.last_message_age_s(t0));
  f.message(t0);
  ASSERT_TRUE(f.last_message_age_s(t0 + 2500ms));
  EXPECT_DOUBLE_EQ(*f.last_message_age_s(t0 + 2500ms), 2.5);
}

}  // namespace
}  // namespace wfod::daemon
