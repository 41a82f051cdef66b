// The published line's params: one space-free token, keys in the payload's order, enum
// names bare, numbers as the payload writes them.

#include "wfod/daemon/publish/log_text.hpp"

#include <gtest/gtest.h>

namespace wfod::daemon {
namespace {

TEST(LogText, ParamsOfEachFamily) {
  Grid g;
  g.family = Family::ma_cross;
  Combo c;
  c.family = Family::ma_cross;
  c.fast = 10;
  c.slow = 50;
  c.ma = MaType::sma;
  EXPECT_EQ(params_log_text(params_json(c)),
            "{fast=10,slow=50,ma=sma,side=long_short,entry=state}");

  Grid ch;
  ch.family = Family::channel_breakout;
  ch.vol_short = {5};
  ch.vol_long = {30};
  ch.vol_threshold = {0.8};
  Combo b;
  b.family = Family::channel_breakout;
  b.n = 20;
  b.source = Source::high_low;
  b.side = Side::long_only;
  b.has_vol = true;
  b.vol_short = 5;
  b.vol_long = 30;
  b.vol_threshold = 0.8;
  const std::string text = params_log_text(params_json(b));
  EXPECT_EQ(text,
            "{n=20,source=high_low,side=long_only,vol_short=5,vol_long=30,vol_threshold=0.8}");
  EXPECT_EQ(text.find(' '), std::string::npos);
  EXPECT_EQ(params_log_text(Json::object()), "{}");
}

}  // namespace
}  // namespace wfod::daemon
