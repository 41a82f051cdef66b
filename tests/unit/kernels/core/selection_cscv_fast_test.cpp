// The screened CSCV walk (kernels/core/src/selection/cscv_fast.cpp) against the plain walk, its
// oracle: bit-identical PboResults on random block Summaries (exact ties, NaN and infinite
// objectives, every passing objective NaN, constraints that fail on some half-sets, drawdown
// constraints, every even S in 2..20, several chunks, 1 to 3 threads) and on real data, for
// every kernel variant this CPU runs; and the screens' band and the thresholds the exact
// decisions rest on.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "src/selection/cscv_fast.hpp"
#include "src/selection/cscv_screen.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/selection/pbo.hpp"

namespace wfod::selection::cscv {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_pbo(const PboResult& a, const PboResult& b) {
  EXPECT_EQ(a.blocks, b.blocks);
  EXPECT_EQ(a.splits, b.splits);
  EXPECT_EQ(a.splits_with_winner, b.splits_with_winner);
  EXPECT_EQ(a.combos, b.combos);
  EXPECT_EQ(a.excluded_nonpositive, b.excluded_nonpositive);
  EXPECT_TRUE(same_bits(a.pbo, b.pbo)) << a.pbo << " vs " << b.pbo;
  ASSERT_EQ(a.logits.size(), b.logits.size());
  for (size_t i = 0; i < a.logits.size(); ++i)
    ASSERT_TRUE(same_bits(a.logits[i], b.logits[i])) << "logit " << i;
  for (int i = 0; i < 7; ++i) EXPECT_TRUE(same_bits(a.q[i], b.q[i])) << "q" << i;
  EXPECT_TRUE(same_bits(a.mean_logit, b.mean_logit));
  EXPECT_TRUE(same_bits(a.hist_lo, b.hist_lo));
  EXPECT_TRUE(same_bits(a.hist_hi, b.hist_hi));
  EXPECT_EQ(a.histogram, b.histogram);
  EXPECT_TRUE(same_bits(a.slope, b.slope)) << a.slope << " vs " << b.slope;
  EXPECT_TRUE(same_bits(a.intercept, b.intercept));
  EXPECT_EQ(a.regression_points, b.regression_points);
  EXPECT_TRUE(same_bits(a.prob_oos_loss, b.prob_oos_loss));
}

std::vector<CpuIsa> variants() {
  std::vector<CpuIsa> v;
  for (CpuIsa isa : {CpuIsa::generic, CpuIsa::avx2, CpuIsa::avx512})
    if (cpu_supports(isa)) v.push_back(isa);
  return v;
}

struct RankCase {
  Objective objective;
  int64_t min_trades;
  double max_drawdown;
  std::optional<double> min_exposure;
};

RankSpec rank_of(const RankCase& c) {
  RankSpec r;
  r.objective = c.objective;
  r.min_trades = c.min_trades;
  r.max_drawdown = c.max_drawdown;
  r.min_exposure = c.min_exposure;
  return r;
}

std::string name_of(const RankCase& c) {
  return std::string(to_string(c.objective)) + " min_trades " + std::to_string(c.min_trades) +
         " max_dd " + std::to_string(c.max_drawdown) + " min_exposure " +
         (c.min_exposure ? std::to_string(*c.min_exposure) : "none");
}

// Defaults, ties at zero among flat combos (no trade minimum), trade and exposure minimums and
// drawdown limits that hold on some half-sets and fail on others, for each screened objective.
std::vector<RankCase> rank_cases() {
  return {{Objective::sharpe, 1, 1.0, std::nullopt},
          {Objective::sharpe, 0, 1.0, std::nullopt},
          {Objective::sharpe, 9, 1.0, 0.45},
          {Objective::sharpe, 2, 0.12, std::nullopt},
          {Objective::sortino, 3, 1.0, std::nullopt},
          {Objective::sortino, 1, 0.2, 0.3},
          {Objective::total_return, 1, 1.0, std::nullopt},
          {Objective::total_return, 5, 0.15, 0.35}};
}

// Block `b` of random combos: `bars` bars of a position that switches with a per-combo
// probability among {-1, 0, 1} ({0, 1} for some combos; some blocks stay flat), returns
// N(drift, vol), a cost on each change. Combo-major, `stride` blocks each.
std::vector<Summary> random_blocks(size_t combos, size_t stride, size_t bars, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<Summary> out(combos * stride);
  for (size_t k = 0; k < combos; ++k) {
    const double p_switch = 0.01 + 0.3 * unit(rng), drift = 0.002 * (unit(rng) - 0.5);
    const double vol = 0.004 + 0.02 * unit(rng);
    const bool long_only = unit(rng) < 0.3;
    std::normal_distribution<double> ret(drift, vol);
    int8_t p2 = 0, p1 = 0;
    for (size_t b = 0; b < stride; ++b) {
      const bool flat_block = unit(rng) < 0.15;
      SummaryBuilder sb;
      for (size_t i = 0; i < bars; ++i) {
        int8_t p = p1;
        if (flat_block) {
          p = 0;
        } else if (unit(rng) < p_switch) {
          p = static_cast<int8_t>(static_cast<int>(unit(rng) * (long_only ? 2 : 3)) -
                                  (long_only ? 0 : 1));
        }
        const double r = ret(rng);
        const double cost = p1 != p2 ? 1e-4 * std::abs(p1 - p2) : 0.0;
        sb.add({p2, p1, p2 * 0.2 * r - cost, p1 * 0.8 * r});
        p2 = p1;
        p1 = p;
      }
      out[k * stride + b] = sb.summary();
    }
  }
  return out;
}

// Exact ties: full copies of other combos' blocks, half copies (some blocks only), and a
// combo whose blocks repeat one block.
void add_ties(std::vector<Summary>& blocks, size_t combos, size_t stride, std::mt19937_64& rng) {
  for (size_t k = 3; k < combos; k += 7) {
    const size_t from = rng() % combos;
    std::copy_n(&blocks[from * stride], stride, &blocks[k * stride]);
  }
  for (size_t k = 5; k < combos; k += 11) {
    const size_t from = rng() % combos;
    for (size_t b = 0; b < stride; b += 2) blocks[k * stride + b] = blocks[from * stride + b];
  }
  for (size_t b = 1; b < stride; ++b) blocks[1 * stride + b] = blocks[1 * stride];
}

// NaN and infinite objectives: NaN sums in one block of some combos (every objective of a
// half-set holding it is NaN), sums that make Sortino overflow to -inf or +inf on every
// half-set, and total returns that overflow to +inf; one combo with a nonpositive block
// (excluded from CSCV).
void add_extremes(std::vector<Summary>& blocks, size_t combos, size_t stride, size_t first) {
  auto at = [&](size_t k, size_t b) -> Summary& { return blocks[k * stride + first + b]; };
  const size_t S = stride - first;
  for (size_t k = 2; k < combos; k += 13) {
    at(k, k % S).sum = kNaN;
    at(k, k % S).growth = kNaN;
  }
  if (combos > 8) {
    for (size_t b = 0; b < S; ++b) {
      at(4, b).sum = -1e303;
      at(4, b).down_sq = 1e-300;
      at(6, b).sum = 1e303;
      at(6, b).down_sq = 1e-300;
      at(8, b).growth = 1e300;
    }
  }
  at(combos - 1, S / 2).nonpositive = true;
}

struct Data {
  std::vector<Summary> blocks;
  std::vector<uint8_t> take;
  size_t stride = 0, first = 0, S = 0;
};

Data random_data(size_t combos, size_t S, size_t bars, uint64_t seed, bool remainder) {
  Data d;
  d.S = S;
  d.first = remainder ? 1 : 0;
  d.stride = S + d.first;
  d.blocks = random_blocks(combos, d.stride, bars, seed);
  std::mt19937_64 rng(seed * 7919);
  add_ties(d.blocks, combos, d.stride, rng);
  add_extremes(d.blocks, combos, d.stride, d.first);
  d.take.assign(combos, 1);
  for (size_t k = 9; k < combos; k += 17) d.take[k] = 0;  // invalid combos
  return d;
}

// The plain walk once, then the screened walk on every variant and thread count: equal bits.
void expect_fast_equals_plain(const Data& d, const RankCase& rc, std::vector<int> threads,
                              FastStats* last = nullptr) {
  SCOPED_TRACE(name_of(rc));
  const RankSpec rank = rank_of(rc);
  const PboResult want = cscv_pbo_plain(d.blocks, d.take, d.stride, d.first, d.S, rank, 252, 2, 20);
  for (CpuIsa isa : variants()) {
    SCOPED_TRACE(to_string(isa));
    for (int t : threads) {
      SCOPED_TRACE("threads " + std::to_string(t));
      FastStats stats;
      const std::optional<PboResult> got = cscv_pbo_fast(
          d.blocks, d.take, d.stride, d.first, d.S, rank, 252, t, 20, walk_kernels(isa), &stats);
      ASSERT_TRUE(got.has_value());
      expect_same_pbo(*got, want);
      if (last) *last = stats;
    }
  }
}

TEST(CscvFast, EqualsPlainOnRandomBlocksForEverySAndRanking) {
  for (size_t S = 2; S <= 16; S += 2) {
    SCOPED_TRACE("S = " + std::to_string(S));
    const Data d = random_data(S <= 10 ? 90 : 50, S, 40, 100 + S, S % 4 == 0);
    for (const RankCase& rc : rank_cases()) {
      FastStats stats;
      expect_fast_equals_plain(d, rc, {1, 3}, &stats);
      EXPECT_GT(stats.exact, 0u);
      if (rc.max_drawdown < 1) {
        EXPECT_TRUE(stats.drawdown);
      }
    }
  }
}

TEST(CscvFast, EqualsPlainAtTheLargestS) {
  for (size_t S : {18u, 20u}) {
    SCOPED_TRACE("S = " + std::to_string(S));
    const Data d = random_data(S == 18 ? 24 : 14, S, 20, 7 + S, true);
    expect_fast_equals_plain(d, rank_cases()[0], {2});
    expect_fast_equals_plain(d, rank_cases()[3], {2});
  }
}

// More participants than one walk chunk holds, with both groups (unchecked: the trade minimum
// holds on every half-set; checked: it fails on some).
TEST(CscvFast, EqualsPlainOverSeveralChunksAndBothGroups) {
  const Data d = random_data(1400, 8, 30, 31, false);
  FastStats stats;
  expect_fast_equals_plain(d, {Objective::sharpe, 6, 1.0, std::nullopt}, {1, 2}, &stats);
  EXPECT_GT(stats.checked, 0u);
  EXPECT_LT(stats.checked, 1300u);
  EXPECT_GT(stats.guarded, 0u);  // flat blocks, NaN and extreme sums: all four groups
  EXPECT_LT(stats.guarded, 1300u);
  expect_fast_equals_plain(d, {Objective::sortino, 4, 0.1, 0.25}, {2}, &stats);
  EXPECT_TRUE(stats.drawdown);
  // Enough participants that the setup (groups, layout) runs on several threads too.
  const Data big = random_data(9000, 4, 20, 37, true);
  expect_fast_equals_plain(big, {Objective::sharpe, 3, 1.0, std::nullopt}, {1, 3}, &stats);
  EXPECT_GT(stats.checked, 0u);
  EXPECT_GT(stats.guarded, 0u);
}

// Every combo's block 0 NaN: every split with block 0 in sample ranks only NaN objectives (the
// lowest id wins), and the OOS counts of the others meet NaN targets.
TEST(CscvFast, EveryPassingObjectiveNaN) {
  Data d = random_data(40, 8, 30, 5, false);
  for (size_t k = 0; k < 40; ++k) d.blocks[k * d.stride].sum = kNaN;
  expect_fast_equals_plain(d, rank_cases()[0], {1});
  expect_fast_equals_plain(d, {Objective::sharpe, 8, 1.0, 0.5}, {1});
}

// Flat prices: every combo ties, in and out of sample.
TEST(CscvFast, AllTied) {
  Data d = random_data(30, 6, 25, 9, false);
  for (size_t k = 1; k < 30; ++k) std::copy_n(&d.blocks[0], d.stride, &d.blocks[k * d.stride]);
  expect_fast_equals_plain(d, rank_cases()[0], {1, 2});
  expect_fast_equals_plain(d, rank_cases()[6], {1});
}

// Blocks of unequal bar counts and objectives without a screen take the plain walk.
TEST(CscvFast, DeclinesWhatItDoesNotScreen) {
  Data d = random_data(20, 4, 20, 3, false);
  RankSpec pf;
  pf.objective = Objective::profit_factor;
  EXPECT_FALSE(cscv_pbo_fast(d.blocks, d.take, d.stride, 0, 4, pf, 252, 1, 20).has_value());
  expect_same_pbo(cscv_pbo(d.blocks, d.take, d.stride, 0, 4, pf, 252, 1),
                  cscv_pbo_plain(d.blocks, d.take, d.stride, 0, 4, pf, 252, 1));
  d.blocks[3].bars += 1;
  EXPECT_FALSE(cscv_pbo_fast(d.blocks, d.take, d.stride, 0, 4, {}, 252, 1, 20).has_value());
  EXPECT_THROW(cscv_pbo_fast(d.blocks, d.take, d.stride, 0, 3, {}, 252, 1, 20),
               std::invalid_argument);
}

// Real data: the cpu backend's block Summaries of GOOG (a leading remainder block), every
// ranking case, with exact ties added as the device parity test does.
TEST(CscvFast, EqualsPlainOnRealData) {
  const Series s =
      test::load_csv(std::filesystem::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv");
  SweepRequest req;
  req.history = HistoryView::of(s);
  Grid& g = req.strategy.grid;
  g.fast = {2, 3, 5, 8, 13, 21, 34};
  g.slow = {5, 10, 21, 34, 55, 89};
  g.ma = {MaType::sma, MaType::ema};
  g.entry = {Entry::state, Entry::cross};
  g.side = {Side::long_short, Side::long_only};
  req.strategy.costs.commission_bps = 2;
  const size_t warmup = default_warmup(g);
  req.window = {req.history.size(), 1203, warmup};
  req.threads = 2;
  auto cpu = make_backend("cpu");
  for (size_t S : {4u, 16u}) {
    SCOPED_TRACE("S = " + std::to_string(S));
    const BlockLayout layout = cscv_layout(req.window, S);
    Data d;
    d.S = S;
    d.stride = layout.total_blocks();
    d.first = layout.first_cscv_block();
    d.blocks = cpu->block_summaries(req, layout.cuts);
    d.take.resize(g.size());
    for (uint64_t i = 0; i < g.size(); ++i) d.take[i] = g.decode(i).valid();
    std::vector<uint64_t> valid;  // copies of other combos' blocks: exact ties
    for (uint64_t i = 0; i < g.size(); ++i)
      if (d.take[i]) valid.push_back(i);
    for (size_t j = 7; j < valid.size(); j += 23)
      std::copy_n(&d.blocks[valid[j - 6] * d.stride], d.stride, &d.blocks[valid[j] * d.stride]);
    for (const RankCase& rc : rank_cases()) {
      if (S == 16 && rc.min_trades != 1) continue;  // keep the oracle's time short
      expect_fast_equals_plain(d, rc, {2});
    }
  }
}

// --- what the decisions rest on -------------------------------------------------------------

// Every screen that is not replaced by the exact value lies in its band, on sums from random
// returns and on adversarial ones (cancellation up to the guard, tiny and huge magnitudes).
TEST(CscvScreens, LieInTheirBand) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0, 1);
  size_t checked = 0;
  for (int i = 0; i < 400000; ++i) {
    const double bars = std::floor(1 + 5000 * unit(rng));
    const double annual = std::sqrt(1 + 100000 * unit(rng));
    const double scale = std::ldexp(1.0, static_cast<int>(unit(rng) * 240) - 120);
    const double sum = (unit(rng) - 0.5) * scale * bars;
    // Q from a variance near the guard's limit (K up to 2^21) or far from it.
    const double k = std::ldexp(1.0, static_cast<int>(unit(rng) * 22));
    const double mean = sum / bars, var = mean * mean / k * (0.5 + unit(rng));
    const double sq = (var + mean * mean) * bars;
    for (Screen sc : {Screen::sharpe, Screen::sortino}) {
      const MomentScreen m = moment_screen(sc, sum, sq, bars, annual);
      const double x = exact_moment_objective(sc, sum, sq, bars, annual);
      if (!m.ok) continue;
      ++checked;
      ASSERT_TRUE(std::isfinite(m.y));
      ASSERT_LE(band_lo(m.y), x) << sum << " " << sq << " " << bars;
      ASSERT_GE(band_hi(m.y), x) << sum << " " << sq << " " << bars;
    }
  }
  EXPECT_GT(checked, 200000u);  // the rest fail a guard (and are replaced)
}

// A participant whose guard is proven for every half-set (the walk then skips the guard) keeps
// it on every half-set: brute force over the half-sets, with blocks of every scale, flat
// blocks, strong drifts, NaN and infinite sums.
TEST(CscvScreens, GuardProvenForAllHalfSetsHoldsOnEach) {
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> unit(0, 1);
  size_t proven = 0, not_proven = 0;
  for (int i = 0; i < 600; ++i) {
    const int S = 2 * (1 + static_cast<int>(unit(rng) * 6));  // 2..12
    const double bars = std::floor(1 + 400 * unit(rng)), annual = std::sqrt(252.0);
    const double scale = std::ldexp(1.0, static_cast<int>(unit(rng) * 80) - 60);
    double sum[20], sq[20];
    for (int b = 0; b < S; ++b) {
      const double drift = i % 3 == 0 ? 0.5 : 0.01;  // strong drifts approach the K bound
      sum[b] = (unit(rng) - 0.5 + drift) * scale * bars / S;
      sq[b] = unit(rng) < 0.05 ? 0.0 : sum[b] * sum[b] / (bars / S) * (1 + 3 * unit(rng));
      if (i % 97 == 0 && b == 1) sum[b] = kNaN;
      if (i % 89 == 0 && b == 0) sq[b] = kInf;
    }
    for (Screen sc : {Screen::sharpe, Screen::sortino}) {
      if (!moment_guard_always_holds(sc, sum, sq, S, bars, annual)) {
        ++not_proven;
        continue;
      }
      ++proven;
      for (uint32_t mask = 0; mask < (1u << S); ++mask) {
        if (std::popcount(mask) != S / 2) continue;
        double s = 0, q = 0;
        bool first = true;
        for (int b = 0; b < S; ++b) {
          if (!((mask >> b) & 1u)) continue;
          s = first ? sum[b] : s + sum[b];
          q = first ? sq[b] : q + sq[b];
          first = false;
        }
        ASSERT_TRUE(moment_screen(sc, s, q, bars, annual).ok)
            << "S " << S << " mask " << mask << " i " << i;
      }
    }
  }
  EXPECT_GT(proven, 200u);
  EXPECT_GT(not_proven, 50u);
}

TEST(CscvScreens, KeysOrderAsRanksBefore) {
  const float values[] = {
      -std::numeric_limits<float>::infinity(), -3.5f, -1e-40f, -0.0f, 0.0f, 1e-40f, 2.0f,
      std::numeric_limits<float>::infinity()};
  for (float a : values)
    for (float b : values) {
      EXPECT_EQ(screen_key(a) < screen_key(b), a < b) << a << " " << b;
      EXPECT_EQ(screen_key(a) == screen_key(b), a == b);
    }
  EXPECT_EQ(screen_key(std::numeric_limits<float>::quiet_NaN()), 1u);
  for (float a : values) {
    EXPECT_GE(screen_key(a), 2u);
    EXPECT_EQ(screen_of_key(screen_key(a)), a == 0 ? 0.0f : a);
  }
}

// The thresholds are the last (first) floats whose band lies wholly below (above) the target.
TEST(CscvScreens, ThresholdsAreTight) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> unit(0, 1);
  const float inf = std::numeric_limits<float>::infinity();
  // Edges (zero, infinities, float range ends, subnormals, the band's absolute term), then
  // random magnitudes over 2^-150 .. 2^150.
  const double edges[] = {0.0,   kInf,   -kInf,   0x1.fffffep127, -0x1.fffffep127, 1e39,  -1e39,
                          1e-45, -1e-45, 0x1p-96, -0x1p-96,       0x1p-120,        1e-300};
  constexpr int kEdges = sizeof edges / sizeof edges[0];
  for (int i = 0; i < 20000; ++i) {
    const double t =
        i < kEdges ? edges[i]
                   : (unit(rng) - 0.5) * std::ldexp(1.0, static_cast<int>(unit(rng) * 300) - 150);
    const CountThresholds c = count_thresholds(t);
    if (std::isfinite(c.under)) {
      EXPECT_LT(band_hi(c.under), t);
      const float up = std::nextafter(c.under, inf);
      if (std::isfinite(up)) {
        EXPECT_FALSE(band_hi(up) < t) << t;
      }
    }
    if (std::isfinite(c.above)) {
      EXPECT_GT(band_lo(c.above), t);
      const float down = std::nextafter(c.above, -inf);
      if (std::isfinite(down)) {
        EXPECT_FALSE(band_lo(down) > t) << t;
      }
    }
    const float best = static_cast<float>(t);
    const float f = candidate_floor(best);
    if (std::isfinite(best) && std::isfinite(f)) {
      // Tight against the best's band lowered by a rank-key unit (SPEC v1.2 §7: a combo tied
      // with the best by key and with a lower id wins).
      const double lowest = ::wfod::detail::rank_key_tie_floor(band_lo(best));
      EXPECT_GE(band_hi(f), lowest);
      const float down = std::nextafter(f, -inf);
      if (std::isfinite(down)) {
        EXPECT_LT(band_hi(down), lowest);
      }
    }
  }
  EXPECT_EQ(count_thresholds(kInf).under, std::numeric_limits<float>::max());
  EXPECT_EQ(count_thresholds(kInf).above, inf);
  EXPECT_EQ(count_thresholds(-kInf).under, -inf);
  EXPECT_EQ(candidate_floor(-inf), -inf);
  EXPECT_TRUE(std::isfinite(candidate_floor(inf)));
}

}  // namespace
}  // namespace wfod::selection::cscv
