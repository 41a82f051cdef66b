// PrepareSpec::keep_scores (a sweep on a preparation told that robust selection without PBO
// scores the same window next): the sweep must equal, bit for bit, the same sweep without it
// (ids, metrics, counters), and the robust_scores that follow must equal those of a backend
// that never kept scores (objective, sharpe, state, counts, plateau scores and winner), for
// every family, with and without the plateau stencil, with combos whose equity reaches zero
// (the host replays). A kept score set must serve only its own request: another window, other
// ranking rules or edited bars are scored afresh. cpu keeps nothing (the test holds it to that
// too); cuda skips visibly without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/plateau.hpp"
#include "wfod/selection/robust_scores.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/selection/selection_extension.hpp"
#include "wfod/selection/window_source.hpp"

namespace wfod {
namespace {

std::vector<StrategySpec> specs() {
  Grid ma;
  ma.family = Family::ma_cross;
  ma.fast = {2, 3, 5, 8, 13};
  ma.slow = {5, 10, 21, 34};
  ma.ma = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};
  ma.side = {Side::long_short, Side::long_only};
  ma.entry = {Entry::state, Entry::cross};
  Grid ma_vol = ma;
  ma_vol.ma = {MaType::sma, MaType::hma};
  ma_vol.entry = {Entry::cross};
  ma_vol.vol_short = {5, 20};
  ma_vol.vol_long = {20, 50};
  ma_vol.vol_threshold = {0.9, 1.2};
  Grid channel;
  channel.family = Family::channel_breakout;
  channel.n = {5, 10, 20, 55};
  channel.source = {Source::close, Source::high_low};
  channel.side = {Side::long_short, Side::long_only};
  Grid bollinger;
  bollinger.family = Family::bollinger;
  bollinger.n = {5, 20, 50};
  bollinger.k = {1.0, 2.0};
  bollinger.style = {Style::reversion, Style::breakout};
  bollinger.side = {Side::long_short, Side::long_only};
  Grid rsi;
  rsi.family = Family::rsi_reversion;
  rsi.n = {2, 7, 14};
  rsi.lo = {25, 35};
  rsi.hi = {30, 65, 75};
  rsi.side = {Side::long_short, Side::long_only};
  return {test::spec_of(ma, Fill::next_open, 2), test::spec_of(ma_vol, Fill::close, 1),
          test::spec_of(channel, Fill::next_open, 3), test::spec_of(bollinger, Fill::close, 1),
          test::spec_of(rsi, Fill::next_open, 2)};
}

selection::RobustOptions options_of(const Grid& g, bool plateau) {
  selection::RobustOptions o;
  if (plateau) {
    selection::SelectionSpec spec;
    spec.plateau = true;
    selection::PlateauRequest p;
    for (const AxisInfo& a : g.axes()) p.axis_sizes.push_back(a.size);
    p.radii = selection::plateau_radii(g, spec);
    p.stat = spec.plateau_stat;
    o.plateau = std::move(p);
  }
  return o;
}

// A preparation of the first `bars` bars (0: all) that keeps each sweep's scores.
std::shared_ptr<PreparedHistory> keeping(Backend& backend, const HistoryView& h,
                                         const StrategySpec& spec, size_t bars = 0) {
  PrepareSpec p;
  p.bars = bars;
  p.keep_scores = true;
  return backend.prepare(h, spec, p);
}

// The request as a backend that never saw its preparation gets it.
SweepRequest unprepared(SweepRequest req) {
  req.prepared = nullptr;
  return req;
}

void expect_same_scores(const selection::RobustScores& got, const selection::RobustScores& want) {
  EXPECT_EQ(got.valid, want.valid);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(got.objective.size(), want.objective.size());
  ASSERT_EQ(got.state.size(), want.state.size());
  for (size_t id = 0; id < want.objective.size(); ++id) {
    ASSERT_TRUE(test::same_bits(got.objective[id], want.objective[id])) << "objective of " << id;
    ASSERT_TRUE(test::same_bits(got.sharpe[id], want.sharpe[id])) << "sharpe of " << id;
    ASSERT_EQ(got.state[id], want.state[id]) << "state of " << id;
  }
  ASSERT_EQ(got.plateau_scores.size(), want.plateau_scores.size());
  for (size_t id = 0; id < want.plateau_scores.size(); ++id)
    ASSERT_TRUE(test::same_bits(got.plateau_scores[id], want.plateau_scores[id]))
        << "plateau " << id;
  ASSERT_EQ(got.plateau.has_value(), want.plateau.has_value());
  if (want.plateau) {
    EXPECT_EQ(got.plateau->id, want.plateau->id);
    EXPECT_TRUE(test::same_bits(got.plateau->score, want.plateau->score));
  }
}

class ScoresFollow : public ::testing::TestWithParam<std::string> {};

// The hinted sweep and the scores after it, against a backend that never saw the hint.
TEST_P(ScoresFollow, SweepAndScoresEqualUnhinted) {
  test::MadeBackend hinted = test::make_or_skip(GetParam());
  if (!hinted.skip.empty()) GTEST_SKIP() << hinted.skip;
  // A +170% bar late in the walk: a short held through it loses more than its equity, so
  // some combos take the host's exact replay (spec-notes 5).
  Series s = test::random_walk(2200, 23, 100, 0.012);
  for (size_t t = 1900; t < 1904; ++t) {
    s.close[t] = s.close[t - 1] * (t == 1901 ? 2.7 : 1.0);
    s.open[t] = s.close[t - 1];
    s.high[t] = std::max(s.open[t], s.close[t]);
    s.low[t] = std::min(s.open[t], s.close[t]);
  }
  const HistoryView h = HistoryView::of(s);
  size_t compared = 0;
  for (const StrategySpec& spec : specs()) {
    SCOPED_TRACE(std::string(to_string(spec.grid.family)));
    const std::shared_ptr<PreparedHistory> prepared = keeping(*hinted.backend, h, spec);
    for (size_t end : {1200u, 2200u}) {
      for (bool plateau : {false, true}) {
        SCOPED_TRACE("window end " + std::to_string(end) + (plateau ? ", plateau" : ""));
        SweepRequest req;
        req.history = h;
        req.strategy = spec;
        req.window = {end, 700, default_warmup(spec.grid)};
        req.rank.top = 7;
        req.rank.min_trades = 2;
        const selection::RobustOptions opt = options_of(spec.grid, plateau);

        test::MadeBackend plain = test::make_or_skip(GetParam());
        ASSERT_TRUE(plain.skip.empty()) << plain.skip;
        req.prepared = plain.backend->prepare(h, spec, {});
        const SweepResult want = plain.backend->sweep(req);
        const selection::RobustScores want_scores =
            selection::robust_scores(*plain.backend, req, opt);

        SweepRequest follow = req;
        follow.prepared = prepared;
        const SweepResult got = hinted.backend->sweep(follow);
        test::expect_same_sweep_bits(got, want);
        expect_same_scores(selection::robust_scores(*hinted.backend, follow, opt), want_scores);
        // Asked again (the kept set is spent): scored afresh, the same.
        expect_same_scores(selection::robust_scores(*hinted.backend, follow, opt), want_scores);
        compared += want.top.size();
      }
    }
  }
  EXPECT_GT(compared, 50u);
}

// A kept score set serves only the robust_scores of its own request.
TEST_P(ScoresFollow, KeptScoresServeOnlyTheirRequest) {
  test::MadeBackend hinted = test::make_or_skip(GetParam());
  if (!hinted.skip.empty()) GTEST_SKIP() << hinted.skip;
  const Series s = test::random_walk(1800, 41, 100, 0.01);
  const HistoryView h = HistoryView::of(s);
  const StrategySpec spec = specs().front();
  SweepRequest req;
  req.history = h;
  req.strategy = spec;
  req.window = {1500, 600, default_warmup(spec.grid)};
  req.rank.min_trades = 2;
  req.prepared = keeping(*hinted.backend, h, spec, req.window.end);
  const selection::RobustOptions opt = options_of(spec.grid, true);

  // Each variant after a hinted sweep of `req`, against a fresh backend's scores of it.
  SweepRequest other_window = req;
  other_window.window.end -= 37;
  SweepRequest other_rules = req;
  other_rules.rank.min_trades = 9;
  other_rules.rank.max_drawdown = 0.4;
  Series edited = s;
  edited.close[1400] *= 1.01;
  SweepRequest other_bars = req;
  other_bars.history = HistoryView::of(edited);
  SweepRequest other_objective = req;
  other_objective.rank.objective = Objective::sortino;
  size_t checked = 0;
  for (const SweepRequest* asked : {&other_window, &other_rules, &other_bars, &other_objective}) {
    SCOPED_TRACE("variant " + std::to_string(checked));
    hinted.backend->sweep(req);
    const selection::RobustScores got = selection::robust_scores(*hinted.backend, *asked, opt);
    test::MadeBackend fresh = test::make_or_skip(GetParam());
    ASSERT_TRUE(fresh.skip.empty()) << fresh.skip;
    const selection::RobustScores want =
        selection::robust_scores(*fresh.backend, unprepared(*asked), opt);
    expect_same_scores(got, want);
    ++checked;
  }
  // And with PBO asked after the hint: the block Summaries' scores, not the kept ones.
  hinted.backend->sweep(req);
  selection::RobustOptions pbo = opt;
  pbo.pbo = true;
  pbo.layout = selection::cscv_layout(req.window, 8);
  test::MadeBackend fresh = test::make_or_skip(GetParam());
  expect_same_scores(selection::robust_scores(*hinted.backend, req, pbo),
                     selection::robust_scores(*fresh.backend, unprepared(req), pbo));
}

// The raw winner's returns the hinted sweep keeps (cuda: computed on the device) equal the
// host's combo_returns bit for bit; they serve once, and only that combo and request.
TEST_P(ScoresFollow, KeptReturnsEqualHostReturns) {
  test::MadeBackend hinted = test::make_or_skip(GetParam());
  if (!hinted.skip.empty()) GTEST_SKIP() << hinted.skip;
  auto host = make_backend("cpu_ref");
  const Series s = test::random_walk(2600, 31, 100, 0.011);
  const HistoryView h = HistoryView::of(s);
  size_t compared = 0;
  for (const StrategySpec& spec : specs()) {
    SCOPED_TRACE(std::string(to_string(spec.grid.family)));
    const std::shared_ptr<PreparedHistory> prepared = keeping(*hinted.backend, h, spec);
    for (size_t end : {1100u, 1701u, 2600u}) {
      SCOPED_TRACE("window end " + std::to_string(end));
      SweepRequest req;
      req.history = h;
      req.strategy = spec;
      req.window = {end, 777, default_warmup(spec.grid)};
      req.rank.min_trades = 1;
      req.prepared = prepared;
      const SweepResult r = hinted.backend->sweep(req);
      ASSERT_FALSE(r.top.empty());
      const Combo& raw = r.top.front().combo;
      selection::BackendWindow window(*hinted.backend, req);
      if (r.top.size() > 1) {
        EXPECT_FALSE(window.kept_returns(r.top[1].combo)) << "another combo";
      }
      hinted.backend->sweep(req);
      std::optional<std::vector<double>> kept = window.kept_returns(raw);
      if (GetParam() != "cuda") {
        EXPECT_FALSE(kept) << "only cuda keeps returns";
        continue;
      }
      ASSERT_TRUE(kept) << "the hinted sweep keeps its raw winner's returns";
      EXPECT_FALSE(window.kept_returns(raw)) << "served once";
      const std::vector<double> want = selection::window_returns(*host, req, raw);
      ASSERT_EQ(kept->size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_TRUE(test::same_bits((*kept)[i], want[i]))
            << "bar " << i << ": " << (*kept)[i] << " vs " << want[i];
      // Another request (the window one bar earlier) is not served them.
      hinted.backend->sweep(req);
      SweepRequest earlier = req;
      earlier.window.end -= 1;
      EXPECT_FALSE(selection::BackendWindow(*hinted.backend, earlier).kept_returns(raw));
      ++compared;
    }
  }
  if (GetParam() == "cuda") {
    EXPECT_EQ(compared, 15u);
  }
}

// select() after a hinted sweep reports what it reports after an unhinted one, to the bit
// (DSR from the kept returns, scores from the kept scores), with and without the plateau.
TEST_P(ScoresFollow, SelectionReportEqualUnhinted) {
  test::MadeBackend hinted = test::make_or_skip(GetParam());
  if (!hinted.skip.empty()) GTEST_SKIP() << hinted.skip;
  const Series s = test::random_walk(2400, 7, 100, 0.012);
  const HistoryView h = HistoryView::of(s);
  for (const StrategySpec& spec : specs()) {
    for (bool plateau : {false, true}) {
      SCOPED_TRACE(std::string(to_string(spec.grid.family)) + (plateau ? ", plateau" : ""));
      selection::SelectionSpec sel;
      sel.pbo_blocks = 0;
      sel.plateau = plateau;
      sel.hysteresis_rel = 0.05;
      SweepRequest req;
      req.history = h;
      req.strategy = spec;
      req.window = {2300, 900, default_warmup(spec.grid)};
      req.rank.min_trades = 2;
      req.threads = 2;
      test::MadeBackend plain = test::make_or_skip(GetParam());
      ASSERT_TRUE(plain.skip.empty()) << plain.skip;
      const SweepResult want_sweep = plain.backend->sweep(req);
      ASSERT_FALSE(want_sweep.top.empty());
      const uint64_t current = want_sweep.top.back().combo.id;
      const selection::SelectionReport want =
          selection::select(*plain.backend, req, want_sweep, current, sel);
      SweepRequest follow = req;
      follow.prepared = keeping(*hinted.backend, h, spec, req.window.end);
      const SweepResult got_sweep = hinted.backend->sweep(follow);
      const selection::SelectionReport got =
          selection::select(*hinted.backend, follow, got_sweep, current, sel);
      ASSERT_EQ(got.winner.has_value(), want.winner.has_value());
      if (want.winner) {
        EXPECT_EQ(got.winner->combo.id, want.winner->combo.id);
      }
      ASSERT_EQ(got.dsr.has_value(), want.dsr.has_value());
      if (want.dsr) {
        EXPECT_EQ(got.dsr->inputs.trials, want.dsr->inputs.trials);
        EXPECT_EQ(got.dsr->inputs.winner.bars, want.dsr->inputs.winner.bars);
        EXPECT_TRUE(test::same_bits(got.dsr->inputs.sharpe_var, want.dsr->inputs.sharpe_var));
        EXPECT_TRUE(test::same_bits(got.dsr->inputs.winner.sharpe, want.dsr->inputs.winner.sharpe));
        EXPECT_TRUE(test::same_bits(got.dsr->inputs.winner.skew, want.dsr->inputs.winner.skew));
        EXPECT_TRUE(test::same_bits(got.dsr->inputs.winner.kurt, want.dsr->inputs.winner.kurt));
        EXPECT_TRUE(test::same_bits(got.dsr->dsr, want.dsr->dsr));
      }
      EXPECT_EQ(got.decision.id, want.decision.id);
      EXPECT_EQ(got.decision.reason, want.decision.reason);
      EXPECT_TRUE(test::same_bits(got.decision.margin, want.decision.margin));
      ASSERT_EQ(got.published.has_value(), want.published.has_value());
      if (want.published) {
        EXPECT_EQ(got.published->combo.id, want.published->combo.id);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ScoresFollow, ::testing::Values("cpu", "cuda"),
                         [](const auto& tp) { return std::string(tp.param); });

}  // namespace
}  // namespace wfod
