// PBO via CSCV (docs/spec-10-selection.md §10.4): cscv_pbo on block summaries against a
// brute-force CSCV that replays every split's concatenated IS and OOS segments through
// SequentialMetrics (no block summaries), plus known answers on synthetic blocks: pure
// noise gives PBO near 0.5, one dominant combo gives 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/selection/pbo.hpp"
#include "wfod/selection/selection.hpp"

namespace wfod::selection {
namespace {

struct Brute {
  double pbo = NAN;
  std::vector<double> logits, is_obj, oos_obj;
};

// CSCV by the paper: for each S/2-subset of blocks (increasing bitmask order), metrics of
// the IS and OOS halves from their segments in time order; IS-best by SPEC §7; relative
// rank = mid-rank of its OOS value among all combos (sorted), over N + 1.
Brute brute_cscv(const std::vector<std::vector<BarSegments>>& segs, size_t first, size_t S,
                 size_t block_bars, const RankSpec& rank, double A) {
  Brute out;
  const size_t n = segs.size();
  size_t overfit = 0;
  for (uint32_t mask = 0; mask < (1u << S); ++mask) {
    if (static_cast<size_t>(std::popcount(mask)) != S / 2) continue;
    std::vector<double> oos(n);
    std::optional<size_t> best;
    double best_obj = 0;
    for (size_t k = 0; k < n; ++k) {
      SequentialMetrics is, os;
      for (size_t b = 0; b < S; ++b)
        for (size_t i = 0; i < block_bars; ++i) {
          const BarSegments& seg = segs[k][first + b * block_bars + i];
          (mask >> b & 1u ? is : os).add(seg);
        }
      const Metrics mi = is.finish(A);
      oos[k] = objective_value(os.finish(A), rank.objective);
      if (!passes_constraints(mi, rank)) continue;
      const double o = objective_value(mi, rank.objective);
      if (!best || o > best_obj) {  // strict: the lower id wins ties
        best = k;
        best_obj = o;
      }
    }
    if (!best) continue;
    std::vector<double> sorted = oos;
    std::sort(sorted.begin(), sorted.end());
    double pos_sum = 0, count = 0;
    for (size_t i = 0; i < n; ++i)
      if (sorted[i] == oos[*best]) {
        pos_sum += static_cast<double>(i + 1);
        ++count;
      }
    const double omega = pos_sum / count / static_cast<double>(n + 1);
    const double logit = std::log(omega / (1 - omega));
    out.logits.push_back(logit);
    out.is_obj.push_back(best_obj);
    out.oos_obj.push_back(oos[*best]);
    overfit += logit <= 0;
  }
  if (!out.logits.empty()) out.pbo = static_cast<double>(overfit) / out.logits.size();
  return out;
}

class PboVsBrute : public ::testing::TestWithParam<std::tuple<uint64_t, size_t, size_t>> {};

TEST_P(PboVsBrute, SameSplitsSameAnswer) {
  const auto [seed, S, bars] = GetParam();
  SCOPED_TRACE(seed);
  const Series s = test::random_walk(700, seed, 100, 0.012, 0.003, 0.0002);
  const HistoryView h = HistoryView::of(s);
  SweepRequest req;
  req.history = h;
  req.strategy.grid.fast = {2, 3, 5, 8};
  req.strategy.grid.slow = {5, 10, 20, 30};
  req.strategy.costs.commission_bps = 1;
  req.window = {h.size(), bars, 90};
  req.threads = 2;
  const BlockLayout layout = cscv_layout(req.window, S);
  auto cpu = make_backend("cpu");
  const GridScores scores = score_grid(*cpu, req, layout);
  std::vector<uint8_t> take(scores.state.size());
  for (size_t i = 0; i < take.size(); ++i) take[i] = scores.state[i] != ComboState::invalid;
  const PboResult got = cscv_pbo(scores.blocks, take, layout.total_blocks(),
                                 layout.first_cscv_block(), S, req.rank, 252, 2);

  // Brute force from cpu_ref positions, segment by segment.
  auto ref = make_backend("cpu_ref");
  std::vector<std::vector<BarSegments>> segs;
  for (uint64_t id = 0; id < req.strategy.grid.size(); ++id) {
    const Combo c = req.strategy.grid.decode(id);
    if (!c.valid()) continue;
    const auto p = ref->positions(h, req.strategy, c);
    std::vector<BarSegments> v;
    for (size_t t = req.window.first(); t < req.window.end; ++t)
      v.push_back(bar_segments(h, req.strategy.fill, 1e-4, t, p[t - 2], p[t - 1]));
    segs.push_back(std::move(v));
  }
  const Brute want = brute_cscv(segs, layout.remainder_bars, S, layout.block_bars, req.rank, 252);

  EXPECT_EQ(got.combos, segs.size());
  EXPECT_EQ(got.splits_with_winner, want.logits.size());
  ASSERT_EQ(got.logits.size(), want.logits.size());
  for (size_t i = 0; i < want.logits.size(); ++i) EXPECT_NEAR(got.logits[i], want.logits[i], 1e-12);
  EXPECT_EQ(got.pbo, want.pbo);
  // Degradation: OLS of the brute force's pairs.
  double mx = 0, my = 0;
  const double k = static_cast<double>(want.is_obj.size());
  for (size_t i = 0; i < want.is_obj.size(); ++i) {
    mx += want.is_obj[i] / k;
    my += want.oos_obj[i] / k;
  }
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < want.is_obj.size(); ++i) {
    sxx += (want.is_obj[i] - mx) * (want.is_obj[i] - mx);
    sxy += (want.is_obj[i] - mx) * (want.oos_obj[i] - my);
  }
  EXPECT_NEAR(got.slope, sxy / sxx, 1e-9 * std::max(1.0, std::fabs(sxy / sxx)));
  EXPECT_NEAR(got.intercept, my - sxy / sxx * mx, 1e-9);
  uint64_t in_hist = 0;
  for (auto c : got.histogram) in_hist += c;
  EXPECT_EQ(in_hist, got.logits.size());
}

INSTANTIATE_TEST_SUITE_P(Seeds, PboVsBrute,
                         ::testing::Values(std::tuple<uint64_t, size_t, size_t>{1, 8, 480},
                                           std::tuple<uint64_t, size_t, size_t>{2, 6, 485},
                                           std::tuple<uint64_t, size_t, size_t>{3, 10, 503},
                                           std::tuple<uint64_t, size_t, size_t>{4, 2, 100}));

// Synthetic blocks: combo k's block b summarises `bars` always-long returns.
std::vector<Summary> synthetic(size_t combos, size_t S, size_t bars, uint64_t seed,
                               double dominant_drift) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.01);
  std::vector<Summary> out(combos * S);
  for (size_t k = 0; k < combos; ++k)
    for (size_t b = 0; b < S; ++b) {
      SummaryBuilder sb;
      for (size_t i = 0; i < bars; ++i)
        sb.add({1, 1, 0.0, (k == 0 ? dominant_drift : 0.0) + noise(rng)});
      out[k * S + b] = sb.summary();
    }
  return out;
}

TEST(Pbo, NoiseGivesAboutOneHalf) {
  const size_t N = 40, S = 16;
  const auto blocks = synthetic(N, S, 25, 11, 0.0);
  const std::vector<uint8_t> take(N, 1);
  RankSpec rank;
  rank.min_trades = 0;
  const PboResult r = cscv_pbo(blocks, take, S, 0, S, rank, 252, 2);
  EXPECT_EQ(r.splits, 12870u);
  EXPECT_EQ(r.splits_with_winner, 12870u);
  EXPECT_GT(r.pbo, 0.3);
  EXPECT_LT(r.pbo, 0.7);
}

TEST(Pbo, DominantComboGivesZero) {
  const size_t N = 30, S = 8;
  const auto blocks = synthetic(N, S, 40, 12, 0.01);
  const std::vector<uint8_t> take(N, 1);
  RankSpec rank;
  rank.min_trades = 0;
  const PboResult r = cscv_pbo(blocks, take, S, 0, S, rank, 252, 1);
  EXPECT_EQ(r.pbo, 0.0);
  EXPECT_NEAR(r.q[3], std::log(30.0), 1e-12);  // always ranked first OOS: omega = N / (N + 1)
  EXPECT_EQ(r.prob_oos_loss, 0.0);
}

TEST(Pbo, EdgeCases) {
  RankSpec rank;
  rank.min_trades = 0;
  const auto one = synthetic(1, 4, 10, 3, 0.0);
  const PboResult r = cscv_pbo(one, std::vector<uint8_t>{1}, 4, 0, 4, rank, 252, 1);
  EXPECT_TRUE(std::isnan(r.pbo));  // one combo: no selection
  EXPECT_EQ(r.splits, 6u);
  const auto two = synthetic(2, 4, 10, 3, 0.0);
  EXPECT_THROW(cscv_pbo(two, std::vector<uint8_t>{1, 1}, 4, 0, 3, rank, 252, 1),
               std::invalid_argument);  // odd S
  // Identical combos: every OOS value ties, mid-rank 1/2, logit 0, counted as overfit.
  std::vector<Summary> same = synthetic(1, 4, 10, 5, 0.0);
  same.insert(same.end(), same.begin(), same.end());
  const PboResult t = cscv_pbo(same, std::vector<uint8_t>{1, 1}, 4, 0, 4, rank, 252, 1);
  EXPECT_EQ(t.pbo, 1.0);
  EXPECT_EQ(t.q[6], 0.0);
}

}  // namespace
}  // namespace wfod::selection
