// Tests of the HTTP endpoint's connection cap (daemon/core/connection_cap.cpp): admitted
// below the cap; at the cap the oldest connection still sending its request gives way, and
// when every one is being answered the new one is refused.
#include "wfod/daemon/core/connection_cap.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace wfod::daemon {
namespace {

using Action = CapDecision::Action;

TEST(ConnectionCap, BelowTheCapEveryConnectionIsAdmitted) {
  EXPECT_EQ(admit_at_cap({}, 2).action, Action::admit);
  EXPECT_EQ(admit_at_cap({false}, 2).action, Action::admit);
  EXPECT_FALSE(admit_at_cap({true}, 2).at_cap());
}

TEST(ConnectionCap, AtTheCapTheOldestOneStillSendingItsRequestGivesWay) {
  const CapDecision d = admit_at_cap({true, false, false}, 3);
  EXPECT_EQ(d.action, Action::close_oldest_idle);
  EXPECT_EQ(d.close, 1u);  // not 0: that one is being answered
  EXPECT_TRUE(d.at_cap());
  EXPECT_EQ(admit_at_cap({false, true}, 2).close, 0u);
}

TEST(ConnectionCap, WhenEveryOneIsBeingAnsweredTheNewOneIsRefused) {
  EXPECT_EQ(admit_at_cap({true, true}, 2).action, Action::refuse);
  EXPECT_EQ(admit_at_cap({true, true, true}, 2).action, Action::refuse);  // a cap lowered by SIGHUP
}

}  // namespace
}  // namespace wfod::daemon
