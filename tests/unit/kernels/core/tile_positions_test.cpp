// tile_positions (wfod/detail/tile_positions.hpp), the CUDA tile decider's bit-parallel
// trend_rule, against the rule applied bar by bar: every entering state, both sides, random
// and hand-picked signal masks, every tile length.
#include "wfod/detail/tile_positions.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "wfod/family_rules.hpp"

namespace wfod::detail {
namespace {

// The per-bar rule: the reference the bit form must equal.
TilePositions sequential(uint32_t up, uint32_t down, int short_value, int p2, int p1, int count) {
  TilePositions out{0, 0, 0, p2, p1};
  for (int j = 0; j < count; ++j) {
    out.held_long |= static_cast<uint32_t>(p1 > 0) << j;
    out.held_short |= static_cast<uint32_t>(p1 < 0) << j;
    out.change |= static_cast<uint32_t>(p2 != p1) << j;
    p2 = p1;
    const TrendSignals<bool> s{((up >> j) & 1u) != 0, ((down >> j) & 1u) != 0};
    p1 = trend_rule(s, p1, short_value, 1);
  }
  out.p2 = p2;
  out.p1 = p1;
  return out;
}

void expect_same(uint32_t up, uint32_t down, int short_value, int p2, int p1, int count) {
  const TilePositions want = sequential(up, down, short_value, p2, p1, count);
  const TilePositions got = tile_positions(up, down, short_value, p2, p1, count);
  const auto where = ::testing::Message()
                     << "up " << std::hex << up << " down " << down << std::dec << " short "
                     << short_value << " p2 " << p2 << " p1 " << p1 << " count " << count;
  ASSERT_EQ(got.held_long, want.held_long) << where;
  ASSERT_EQ(got.held_short, want.held_short) << where;
  ASSERT_EQ(got.change, want.change) << where;
  ASSERT_EQ(got.p2, want.p2) << where;
  ASSERT_EQ(got.p1, want.p1) << where;
}

TEST(TilePositions, MatchesTheRuleBarByBarOnRandomSignals) {
  std::mt19937_64 rng(20261203);
  // Sparse and dense signals: few events (a slow crossing) to nearly every bar.
  for (int density = 0; density < 6; ++density)
    for (int trial = 0; trial < 4000; ++trial) {
      uint32_t up = static_cast<uint32_t>(rng()), down = static_cast<uint32_t>(rng());
      for (int thin = 0; thin < density; ++thin) {
        up &= static_cast<uint32_t>(rng());
        down &= static_cast<uint32_t>(rng());
      }
      const int count = 1 + static_cast<int>(rng() % 32);
      const int short_value = rng() % 2 ? -1 : 0;
      const int p2 = static_cast<int>(rng() % 3) - 1, p1 = static_cast<int>(rng() % 3) - 1;
      expect_same(up, down, short_value, p2, p1, count);
    }
}

TEST(TilePositions, EdgeMasks) {
  const uint32_t masks[] = {0u,          ~0u,         1u,          0x80000000u, 0x55555555u,
                            0xAAAAAAAAu, 0x0000FFFFu, 0xFFFF0000u, 0x80000001u, 0x00010000u};
  for (uint32_t up : masks)
    for (uint32_t down : masks)
      for (int short_value : {-1, 0})
        for (int p2 = -1; p2 <= 1; ++p2)
          for (int p1 = -1; p1 <= 1; ++p1)
            for (int count : {1, 2, 16, 17, 31, 32})
              expect_same(up, down, short_value, p2, p1, count);
}

// Up and down on one bar: trend_rule takes up (the channel's signals could both hold only if
// its levels crossed; the bit form must not depend on that).
TEST(TilePositions, UpWinsOverDownOnTheSameBar) {
  const TilePositions t = tile_positions(0b100u, 0b110u, -1, 0, 0, 4);
  EXPECT_EQ(t.held_long, 0b1000u);   // p_2 = +1 (bar 2's up), held in bar 3's body
  EXPECT_EQ(t.held_short, 0b0100u);  // p_1 = -1 (bar 1's down), held in bar 2's body
  EXPECT_EQ(t.p1, 1);
}

}  // namespace
}  // namespace wfod::detail
