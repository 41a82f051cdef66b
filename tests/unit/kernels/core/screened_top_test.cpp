// settle_top (screened_top.hpp): the canonical top-K from a screen whose objectives carry
// rounding of their own. Exact ties the screen orders by an ulp the wrong way come out by
// the lower id; a combo the first batch missed but within the screen's error is found; a
// list too short to settle says so; and seeded random grids with many ties, screened with
// noise, settle to the brute-force canonical ranking.
#include "wfod/screened_top.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

namespace wfod {
namespace {

Ranked ranked(uint64_t id, double objective) {
  Ranked r;
  r.combo.id = id;
  r.objective = objective;
  return r;
}

// A grid of combos: canonical objectives, and whether the canonical metrics pass the
// constraints. rescore() answers from it and counts what it was asked.
struct FakeGrid {
  std::vector<double> canonical;
  std::vector<bool> passes;
  size_t asked = 0;

  Rescore rescorer() {
    return [this](std::span<const uint64_t> ids) {
      std::vector<std::optional<Ranked>> out;
      for (uint64_t id : ids) {
        ++asked;
        if (passes.empty() || passes[id])
          out.push_back(ranked(id, canonical[id]));
        else
          out.push_back(std::nullopt);
      }
      return out;
    };
  }
};

// The screen's ranking of `screened` objectives: best first, ties by id, at most k.
std::vector<Screened> screen_top(const std::vector<double>& screened, size_t k) {
  std::vector<Screened> all;
  for (uint64_t id = 0; id < screened.size(); ++id) all.push_back({id, screened[id]});
  std::sort(all.begin(), all.end(), [](const Screened& a, const Screened& b) {
    return ranks_before(a.objective, a.id, b.objective, b.id);
  });
  if (all.size() > k) all.resize(k);
  return all;
}

std::vector<uint64_t> ids_of(const std::vector<Ranked>& v) {
  std::vector<uint64_t> out;
  for (const auto& r : v) out.push_back(r.combo.id);
  return out;
}

TEST(SettleTop, ExactTiesTheScreenOrdersApartComeOutByTheLowerId) {
  // Ids 3 and 1 tie at 2.0 exactly, 0 and 2 at 1.5; the screen sees each pair a few rank-key
  // units apart (SPEC v1.2 §7: an ulp would tie by key, and the screen would order it right),
  // the higher id ahead.
  FakeGrid g{{1.5, 2.0, 1.5, 2.0, 0.5}, {}};
  std::vector<double> screened = g.canonical;
  screened[3] = 2.0 + 1e-6;
  screened[2] = 1.5 + 1e-6;
  const auto list = screen_top(screened, 5);
  ASSERT_EQ(list[0].id, 3u);  // the screen's order is the wrong one
  TopK top(3);
  const SettleStats s = settle_top(list, true, 5, g.rescorer(), top);
  EXPECT_TRUE(s.settled);
  EXPECT_EQ(ids_of(top.sorted()), (std::vector<uint64_t>{1, 3, 0}));
  EXPECT_EQ(s.max_error, (2.0 + 1e-6) - 2.0);
}

TEST(SettleTop, ACandidatePastTheFirstBatchWithinTheMarginIsRescored) {
  // K = 2. Canonical: id 0 = 3.0, id 1 = 2.0, id 2 = 2.0 (ties id 1; lower id wins, so id 1
  // is second). The screen puts id 2 first and id 1 third, just below id 0 and id 2, within
  // the screen's margin of 2.0: the first batch (2) is not enough.
  FakeGrid g{{3.0, 2.0, 2.0, 1.0, 0.0}, {}};
  std::vector<double> screened = {3.0, 2.0 - 1e-12, 2.0 + 1e-12, 1.0, 0.0};
  const auto list = screen_top(screened, 5);
  TopK top(2);
  const SettleStats s = settle_top(list, true, 1, g.rescorer(), top);
  EXPECT_TRUE(s.settled);
  EXPECT_EQ(ids_of(top.sorted()), (std::vector<uint64_t>{0, 1}));
  // Batches of 1 then 2: ids 0, then 2 and 1; id 3's ceiling (1.0 + 1e-8) is far below the
  // K-th (2.0): not re-scored.
  EXPECT_EQ(s.rescored, 3u);
  EXPECT_EQ(g.asked, 3u);
}

TEST(SettleTop, StopsAsSoonAsTheNextScreenedObjectiveCannotReachTheKth) {
  FakeGrid g;
  for (int i = 0; i < 1000; ++i) g.canonical.push_back(1000.0 - i);
  const auto list = screen_top(g.canonical, 1000);
  TopK top(10);
  const SettleStats s = settle_top(list, true, 16, g.rescorer(), top);
  EXPECT_TRUE(s.settled);
  EXPECT_EQ(s.rescored, 16u);  // the 17th (984) is far below the 10th (991)
  EXPECT_EQ(top.sorted().back().combo.id, 9u);
}

TEST(SettleTop, AListTooShortToSettleSaysSo) {
  // The screen's list stops at 3 of 4 ranked combos, and its last entry is within the margin
  // of the K-th canonical objective: the combo after it could still belong in the top 2.
  FakeGrid g{{5.0, 2.0, 2.0, 2.0}, {}};
  const auto list = screen_top(g.canonical, 3);
  TopK top(2);
  SettleStats s = settle_top(list, false, 3, g.rescorer(), top);
  EXPECT_FALSE(s.settled);
  // The whole list: settled.
  TopK all(2);
  s = settle_top(screen_top(g.canonical, 4), true, 3, g.rescorer(), all);
  EXPECT_TRUE(s.settled);
  EXPECT_EQ(ids_of(all.sorted()), (std::vector<uint64_t>{0, 1}));
  // Far below the K-th: a short list settles.
  FakeGrid far{{5.0, 4.0, 1.0, 0.5}, {}};
  TopK top2(2);
  s = settle_top(screen_top(far.canonical, 3), false, 3, far.rescorer(), top2);
  EXPECT_TRUE(s.settled);
}

TEST(SettleTop, FewerRankedThanKNeedsTheCompleteList) {
  FakeGrid g{{5.0, 4.0, 3.0}, {true, false, true}};
  TopK top(3);
  SettleStats s = settle_top(screen_top(g.canonical, 3), false, 3, g.rescorer(), top);
  EXPECT_FALSE(s.settled);  // two ranked, K = 3: whatever else is ranked belongs in
  EXPECT_EQ(s.dropped, 1u);
  TopK top2(3);
  s = settle_top(screen_top(g.canonical, 3), true, 3, g.rescorer(), top2);
  EXPECT_TRUE(s.settled);
  EXPECT_EQ(ids_of(top2.sorted()), (std::vector<uint64_t>{0, 2}));
}

TEST(SettleTop, NaNScreensAreNotBounded) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  FakeGrid g{{1.0, nan, 0.5}, {}};
  std::vector<double> screened = {1.0, nan, nan};
  TopK top(1);
  // The next screened objective is NaN: nothing is known of it, keep going.
  SettleStats s = settle_top(screen_top(screened, 2), false, 1, g.rescorer(), top);
  EXPECT_FALSE(s.settled);
  EXPECT_TRUE(std::isnan(screen_ceiling(nan, 0)));
}

TEST(SettleTop, CeilingIsRelativeAboveOneAbsoluteBelowAndFollowsTheObservedError) {
  EXPECT_EQ(screen_ceiling(0.0, 0), kScreenRelative);
  EXPECT_EQ(screen_ceiling(-0.5, 0), -0.5 + kScreenRelative);
  EXPECT_EQ(screen_ceiling(1e6, 0), 1e6 + kScreenRelative * 1e6);
  EXPECT_EQ(screen_ceiling(1.0, 1e-6), 1.0 + kScreenObservedFactor * 1e-6);
}

TEST(SettleTop, ZeroCapacityIsSettledAtOnce) {
  FakeGrid g{{1.0}, {}};
  TopK top(0);
  EXPECT_TRUE(settle_top(screen_top(g.canonical, 1), false, 1, g.rescorer(), top).settled);
  EXPECT_EQ(g.asked, 0u);
}

// Seeded grids of objectives drawn from few values (many exact ties), screened with noise
// of up to 1e-12 relative, the screen's list doubled until settled as the cuda backend
// does: the result equals the brute-force canonical ranking every time.
TEST(SettleTop, RandomTiedGridsSettleToTheCanonicalRanking) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed);
    const size_t n = 1 + rng() % 400;
    const size_t k = 1 + rng() % 30;
    const size_t distinct = 1 + rng() % 12;
    FakeGrid g;
    std::vector<double> values;
    for (size_t i = 0; i < distinct; ++i)
      values.push_back(std::ldexp(static_cast<double>(rng() % 2000) - 1000.0, -7));
    for (size_t i = 0; i < n; ++i) {
      g.canonical.push_back(values[rng() % distinct]);
      g.passes.push_back(rng() % 5 != 0);
    }
    std::vector<double> screened;
    // The screen ranks only what passes on it; here it agrees with the canonical pass.
    for (size_t i = 0; i < n; ++i) {
      const double noise = (static_cast<double>(rng() % 2001) - 1000.0) * 1e-15;
      screened.push_back(g.passes[i] ? g.canonical[i] * (1 + noise)
                                     : -std::numeric_limits<double>::infinity());
    }
    TopK want(k);
    for (uint64_t id = 0; id < n; ++id)
      if (g.passes[id]) want.offer(ranked(id, g.canonical[id]));
    // Only ranked combos are screened candidates.
    std::vector<Screened> full;
    for (uint64_t id = 0; id < n; ++id)
      if (g.passes[id]) full.push_back({id, screened[id]});
    std::sort(full.begin(), full.end(), [](const Screened& a, const Screened& b) {
      return ranks_before(a.objective, a.id, b.objective, b.id);
    });
    size_t cap = 2 * k + 16;
    for (;;) {
      const std::vector<Screened> list(
          full.begin(), full.begin() + static_cast<std::ptrdiff_t>(std::min(cap, full.size())));
      TopK top(k);
      // Batches from 1 to k + 1 candidates: the bound decides between batches.
      const SettleStats s =
          settle_top(list, list.size() < cap, 1 + seed % (k + 1), g.rescorer(), top);
      if (s.settled) {
        ASSERT_EQ(ids_of(top.sorted()), ids_of(want.sorted())) << "seed " << seed;
        break;
      }
      ASSERT_LE(cap, 4 * (full.size() + 64)) << "seed " << seed << ": never settled";
      cap *= 2;
    }
  }
}

}  // namespace
}  // namespace wfod
