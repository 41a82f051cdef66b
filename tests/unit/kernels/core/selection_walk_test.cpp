// Walk-forward with a fold selector (robust selection's hysteresis between folds): the
// selector sees the previous fold's winner, and the combo it returns is what trades out of
// sample, with the stitched series recomputed here from that combo's positions.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/series.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod {
namespace {

TEST(SelectionWalk, HeldWinnerTradesOutOfSample) {
  const Series s =
      test::load_csv(std::filesystem::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv");
  const HistoryView h = HistoryView::of(s);
  StrategySpec spec;
  spec.grid.fast = {5, 10, 20};
  spec.grid.slow = {30, 60, 90};
  spec.costs.commission_bps = 1;
  const WalkSpec walk{500, 200, WalkMode::rolling, 270};
  auto cpu = make_backend("cpu");
  std::vector<std::optional<uint64_t>> seen_previous;
  // Hysteresis with an unbeatable margin: the first fold's winner is held throughout.
  selection::SelectionSpec sel;
  sel.hysteresis_abs = 1e9;
  sel.pbo_blocks = 4;
  std::vector<std::string> reasons;
  FoldSelector select = [&](const SweepRequest& req, const SweepResult& res,
                            const std::optional<Ranked>& previous) -> std::optional<Ranked> {
    seen_previous.push_back(previous ? std::optional<uint64_t>(previous->combo.id) : std::nullopt);
    const auto rep = selection::select(
        *cpu, req, res, previous ? std::optional<uint64_t>(previous->combo.id) : std::nullopt, sel);
    reasons.emplace_back(selection::to_string(rep.decision.reason));
    return rep.published;
  };
  const WalkResult r =
      walk_forward(*cpu, h, spec, RankSpec{}, walk, Precision::exact, 2, {}, select);
  ASSERT_GE(r.folds.size(), 3u);
  ASSERT_TRUE(r.folds[0].winner);
  const Combo held = r.folds[0].winner->combo;
  EXPECT_FALSE(seen_previous[0]);
  EXPECT_EQ(reasons[0], "first");
  for (size_t f = 1; f < r.folds.size(); ++f) {
    ASSERT_TRUE(r.folds[f].winner);
    EXPECT_EQ(r.folds[f].winner->combo.id, held.id);
    EXPECT_EQ(seen_previous[f], std::optional<uint64_t>(held.id));
    EXPECT_TRUE(reasons[f] == "held" || reasons[f] == "same") << reasons[f];
  }
  // One combo throughout: the stitched OOS series is its own returns, no switch after the
  // first bar.
  const auto p = cpu->positions(h, spec, held);
  size_t i = 0;
  for (const Fold& f : r.folds)
    for (size_t t = f.oos_first; t <= f.oos_last; ++t, ++i) {
      // The first fold starts from flat (no previous winner, SPEC §8).
      const int8_t p2 = i == 0 ? int8_t{0} : p[t - 2];
      const BarSegments seg = bar_segments(h, spec.fill, 1e-4, t, p2, p[t - 1]);
      ASSERT_EQ(r.oos_returns[i], seg.exit_value + seg.body_value) << t;
    }
}

}  // namespace
}  // namespace wfod
