// select() computes the raw winner's DSR returns on another thread while the grid is scored,
// where the window source allows it (WindowSource::returns_overlap_scores): the report must be
// the one-thread report to the bit, the returns asked for once, for the raw winner, and on
// another thread than robust_scores; never in plateau mode (the winner is known only after
// the scores) or where the source does not allow it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "support/series.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/selection/window_source.hpp"

namespace wfod::selection {
namespace {

// A BackendWindow that says whether it allows the overlap and records which thread asked for
// what.
class RecordingWindow final : public WindowSource {
 public:
  RecordingWindow(Backend& backend, const SweepRequest& req, bool overlap)
      : inner_(backend, req), overlap_(overlap) {}
  const StrategySpec& strategy() const override { return inner_.strategy(); }
  const RankSpec& rank() const override { return inner_.rank(); }
  WindowSpec window() const override { return inner_.window(); }
  int threads() const override { return inner_.threads(); }
  std::vector<Metrics> evaluate(std::span<const uint64_t> ids) override {
    return inner_.evaluate(ids);
  }
  std::vector<Summary> block_summaries(std::span<const size_t> cuts) override {
    return inner_.block_summaries(cuts);
  }
  std::vector<double> window_returns(const Combo& combo) override {
    std::lock_guard lock(mutex_);
    returns_for.push_back(combo.id);
    returns_thread = std::this_thread::get_id();
    return inner_.window_returns(combo);
  }
  RobustScores robust_scores(const RobustOptions& options) override {
    scores_thread = std::this_thread::get_id();
    return inner_.robust_scores(options);
  }
  bool returns_overlap_scores() const override { return overlap_; }

  std::vector<uint64_t> returns_for;
  std::thread::id returns_thread, scores_thread;

 private:
  BackendWindow inner_;
  bool overlap_;
  std::mutex mutex_;
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Case {
  SweepRequest req;
  SweepResult sweep;
};

Case goog_case(Backend& cpu, const Series& s) {
  Case c;
  c.req.history = HistoryView::of(s);
  c.req.strategy.grid.fast = {5, 10, 20, 30};
  c.req.strategy.grid.slow = {40, 60, 90, 120};
  c.req.strategy.costs.commission_bps = 1;
  c.req.window = {1500, 1000, 130};
  c.req.threads = 2;
  c.sweep = cpu.sweep(c.req);
  return c;
}

TEST(SelectionOverlap, RawWinnerReturnsOnAnotherThreadGiveTheSameReport) {
  const Series s =
      test::load_csv(std::filesystem::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv");
  auto cpu = make_backend("cpu");
  const Case c = goog_case(*cpu, s);
  ASSERT_FALSE(c.sweep.top.empty());
  SelectionSpec spec;
  spec.pbo_blocks = 8;
  spec.plateau = false;
  RecordingWindow serial(*cpu, c.req, false), overlapped(*cpu, c.req, true);
  const SelectionReport want = select(serial, c.sweep, std::nullopt, spec);
  const SelectionReport got = select(overlapped, c.sweep, std::nullopt, spec);
  ASSERT_TRUE(want.dsr && got.dsr);
  EXPECT_TRUE(same_bits(got.dsr->dsr, want.dsr->dsr)) << got.dsr->dsr << " vs " << want.dsr->dsr;
  EXPECT_TRUE(same_bits(got.dsr->inputs.winner.sharpe, want.dsr->inputs.winner.sharpe));
  EXPECT_EQ(got.dsr->inputs.trials, want.dsr->inputs.trials);
  ASSERT_TRUE(got.published && want.published);
  EXPECT_EQ(got.published->combo.id, want.published->combo.id);
  EXPECT_EQ(got.decision.reason, want.decision.reason);
  ASSERT_TRUE(want.pbo && got.pbo);
  EXPECT_TRUE(same_bits(got.pbo->pbo, want.pbo->pbo));
  // One request each, for the raw arg-max; the overlapped one off the scoring thread.
  EXPECT_EQ(serial.returns_for, std::vector<uint64_t>{c.sweep.top.front().combo.id});
  EXPECT_EQ(overlapped.returns_for, std::vector<uint64_t>{c.sweep.top.front().combo.id});
  EXPECT_EQ(serial.returns_thread, serial.scores_thread);
  EXPECT_NE(overlapped.returns_thread, overlapped.scores_thread);
}

TEST(SelectionOverlap, PlateauModeAsksForThePlateauWinnerAfterTheScores) {
  const Series s =
      test::load_csv(std::filesystem::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv");
  auto cpu = make_backend("cpu");
  const Case c = goog_case(*cpu, s);
  SelectionSpec spec;
  spec.pbo_blocks = 8;
  spec.plateau = true;
  RecordingWindow overlapped(*cpu, c.req, true);
  const SelectionReport got = select(overlapped, c.sweep, std::nullopt, spec);
  ASSERT_TRUE(got.winner && got.dsr);
  EXPECT_EQ(overlapped.returns_for, std::vector<uint64_t>{got.winner->combo.id});
  EXPECT_EQ(overlapped.returns_thread, overlapped.scores_thread);
}

// The backend's answer: the cuda backend's positions may run beside its device work, cpu's
// may not; a request for one thread never overlaps.
TEST(SelectionOverlap, BackendWindowFollowsTheBackendAndTheThreadCount) {
  auto cpu = make_backend("cpu");
  SweepRequest req;
  req.threads = 0;
  EXPECT_EQ(BackendWindow(*cpu, req).returns_overlap_scores(), cpu->positions_overlap_sweep());
  req.threads = 1;
  EXPECT_FALSE(BackendWindow(*cpu, req).returns_overlap_scores());
}

}  // namespace
}  // namespace wfod::selection
