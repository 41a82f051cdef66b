// Robust selection on the device (SPEC §10) against the host pipeline, exactly:
// - CPU, always: the device's CSCV algorithm (kernels/cuda/selection_lean.cuh: lean fields,
//   prefix-tree walk over half-sets, complement = OOS, rank keys, aggregation) run on the host
//   equals cscv_pbo bit for bit; the device's plateau stencil (selection_plateau.cuh) equals
//   plateau_select; the host pipeline (selection::host_robust_scores) equals score_grid + cscv_pbo
//   + plateau_select on cpu and cpu_ref.
// - CUDA (skipped with the reason where no device is): cuda block_summaries == cpu's, every
//   field bit for bit, on real and synthetic series of every family, both fills, odd cuts; cuda
//   robust_scores (device CSCV and plateau) == the host pipeline, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "cuda/selection_lean.cuh"
#include "cuda/selection_plateau.cuh"
#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/robust_scores.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/selection/selection_extension.hpp"

namespace wfod {
namespace {

namespace lean = selection::lean;
using selection::ComboState;

using test::same_bits;
// Equal values (NaN equal to NaN, -0 equal to +0): what ranking and hysteresis compare.
bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

Series goog() {
  return test::load_csv(std::filesystem::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv");
}

StrategySpec ma_spec(std::vector<MaType> ma, std::vector<Entry> entry, std::vector<Side> side,
                     bool vol, Fill fill) {
  StrategySpec s;
  s.grid.family = Family::ma_cross;
  s.grid.fast = {2, 3, 5, 8, 13, 21};
  s.grid.slow = {5, 10, 21, 34, 55};  // some fast >= slow: invalid combos
  s.grid.ma = std::move(ma);
  s.grid.entry = std::move(entry);
  s.grid.side = std::move(side);
  if (vol) {
    s.grid.vol_short = {5, 10};
    s.grid.vol_long = {20, 40};
    s.grid.vol_threshold = {0.8, 1.1};
  }
  s.fill = fill;
  s.costs.commission_bps = 2;
  return s;
}

StrategySpec channel_spec(bool vol, Fill fill) {
  StrategySpec s;
  s.grid.family = Family::channel_breakout;
  s.grid.n = {3, 5, 10, 20, 50};
  s.grid.source = {Source::close, Source::high_low};
  s.grid.side = {Side::long_short, Side::long_only};
  if (vol) {
    s.grid.vol_short = {5};
    s.grid.vol_long = {30};
    s.grid.vol_threshold = {0.9, 1.1};
  }
  s.fill = fill;
  s.costs.slippage_bps = 1;
  return s;
}

// bollinger: both styles and sides, invalid n = 1 and k = 0 combos.
StrategySpec bollinger_spec(bool vol, Fill fill, std::vector<double> k = {0, 1, 2}) {
  StrategySpec s;
  s.grid.family = Family::bollinger;
  s.grid.n = {1, 5, 20, 40};
  s.grid.k = std::move(k);
  s.grid.style = {Style::reversion, Style::breakout};
  s.grid.side = {Side::long_short, Side::long_only};
  if (vol) {
    s.grid.vol_short = {5};
    s.grid.vol_long = {30};
    s.grid.vol_threshold = {0.9, 1.1};
  }
  s.fill = fill;
  s.costs.commission_bps = 1;
  return s;
}

// rsi_reversion: both sides, invalid n = 1 and lo >= hi combos.
StrategySpec rsi_spec(bool vol, Fill fill) {
  StrategySpec s;
  s.grid.family = Family::rsi_reversion;
  s.grid.n = {1, 3, 14, 30};
  s.grid.lo = {25, 35};
  s.grid.hi = {30, 65, 75};
  s.grid.side = {Side::long_short, Side::long_only};
  if (vol) {
    s.grid.vol_short = {10};
    s.grid.vol_long = {40};
    s.grid.vol_threshold = {0.8, 1.2};
  }
  s.fill = fill;
  s.costs.slippage_bps = 2;
  return s;
}

SweepRequest request_of(const HistoryView& h, const StrategySpec& spec, size_t bars) {
  SweepRequest req;
  req.history = h;
  req.strategy = spec;
  const size_t warmup = default_warmup(spec.grid);
  req.window = {h.size(), std::min(bars, h.size() - warmup - 1), warmup};
  req.threads = 2;
  return req;
}

// --- the device CSCV algorithm, run on the host ------------------------------------------

// What the kernels compute, sequentially: pass A (best passing participant per split by rank
// key, lowest k on ties), targets (winner's IS and OOS folds), pass B (counts), aggregation.
selection::PboResult device_algorithm_pbo(std::span<const Summary> summaries,
                                          std::span<const uint8_t> take, size_t stride,
                                          size_t first, size_t S, const RankSpec& rank, double bpy,
                                          size_t block_bars) {
  selection::PboResult r;
  r.blocks = S;
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < take.size(); ++i) {
    if (!take[i]) continue;
    bool ok = true;
    for (size_t b = 0; b < S; ++b) ok = ok && !summaries[i * stride + first + b].nonpositive;
    if (ok) {
      ids.push_back(i);
    } else {
      ++r.excluded_nonpositive;
    }
  }
  r.combos = ids.size();
  const std::vector<uint32_t> masks = lean::split_masks(S);
  r.splits = masks.size();
  r.pbo = std::numeric_limits<double>::quiet_NaN();
  if (ids.size() < 2) return r;
  lean::Ranking rk;
  rk.bars = static_cast<double>(S / 2 * block_bars);
  rk.annual = std::sqrt(bpy);
  rk.objective = static_cast<int>(rank.objective);
  rk.min_trades = rank.min_trades;
  rk.max_drawdown = rank.max_drawdown;
  rk.has_min_exposure = rank.min_exposure.has_value();
  rk.min_exposure = rank.min_exposure.value_or(0.0);
  const std::vector<uint32_t> binom = lean::binomial_table();
  const size_t splits = masks.size(), n = ids.size();
  std::vector<lean::SplitOutcome> out(splits);
  const bool handled = lean::dispatch(rk, [&](auto mask_c, auto obj_c) {
    constexpr unsigned M = decltype(mask_c)::value;
    constexpr int Obj = decltype(obj_c)::value;
    auto blocks_of = [&](size_t k) {
      return [&, k](int c) {
        return lean::lean_of<M>(summaries[ids[k] * stride + first + static_cast<size_t>(c)]);
      };
    };
    std::vector<uint64_t> best_key(splits, 0);
    std::vector<int64_t> best_k(splits, -1);
    std::vector<int> seen(splits, 0);
    for (size_t k = 0; k < n; ++k) {
      const auto block = blocks_of(k);
      // The device's unchecked walk: marked participants are not checked.
      const bool checked = !lean::lean_always_passes<M>(static_cast<int>(S), block, rk);
      auto leaf = [&](uint32_t s, const lean::Lean<M>& fold) {
        ++seen[s];
        if (checked && !lean::lean_passes(fold, rk)) return;
        const uint64_t key = lean::rank_key(lean::lean_objective<M, Obj>(fold, rk));
        if (key > best_key[s]) {
          best_key[s] = key;
          best_k[s] = static_cast<int64_t>(k);
        }
      };
      lean::walk_half_sets<M>(static_cast<int>(S), block, binom.data(), leaf);
    }
    for (size_t s = 0; s < splits; ++s) ASSERT_EQ(seen[s], static_cast<int>(n)) << "split " << s;
    const uint32_t all = (1u << S) - 1u;
    for (size_t s = 0; s < splits; ++s) {
      if (best_k[s] < 0) continue;
      const auto block = blocks_of(static_cast<size_t>(best_k[s]));
      out[s].winner = best_k[s];
      out[s].is_obj = lean::lean_objective<M, Obj>(
          lean::fold_mask<M>(masks[s], static_cast<int>(S), block), rk);
      out[s].oos_obj = lean::lean_objective<M, Obj>(
          lean::fold_mask<M>(all & ~masks[s], static_cast<int>(S), block), rk);
    }
    for (size_t k = 0; k < n; ++k) {
      const auto block = blocks_of(k);
      auto leaf = [&](uint32_t s, const lean::Lean<M>& fold) {
        const size_t J = splits - 1 - s;  // this half is split J's OOS
        if (out[J].winner < 0) return;
        const double x = lean::lean_objective<M, Obj>(fold, rk);
        out[J].under += lean::below(x, out[J].oos_obj) ? 1 : 0;
        out[J].ties +=
            (static_cast<int64_t>(k) != out[J].winner && lean::same(x, out[J].oos_obj)) ? 1 : 0;
      };
      lean::walk_half_sets<M>(static_cast<int>(S), block, binom.data(), leaf);
    }
  });
  EXPECT_TRUE(handled);
  lean::aggregate(out, n, 20, r);
  return r;
}

void expect_same_pbo(const selection::PboResult& a, const selection::PboResult& b) {
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

struct RankCase {
  Objective objective;
  int64_t min_trades;
  double max_drawdown;
  std::optional<double> min_exposure;
};

std::vector<RankCase> rank_cases() {
  return {
      {Objective::sharpe, 1, 1.0, std::nullopt},  {Objective::sharpe, 6, 0.35, 0.3},
      {Objective::sortino, 2, 1.0, std::nullopt}, {Objective::total_return, 1, 0.5, std::nullopt},
      {Objective::profit_factor, 3, 1.0, 0.1},    {Objective::profit_factor, 0, 0.6, std::nullopt}};
}

RankSpec rank_of(const RankCase& c) {
  RankSpec r;
  r.objective = c.objective;
  r.min_trades = c.min_trades;
  r.max_drawdown = c.max_drawdown;
  r.min_exposure = c.min_exposure;
  return r;
}

TEST(SelectionDeviceAlgorithm, HostRunEqualsCscvPbo) {
  const Series s = goog();
  const HistoryView h = HistoryView::of(s);
  auto cpu = make_backend("cpu");
  const StrategySpec spec = ma_spec({MaType::sma, MaType::ema}, {Entry::state, Entry::cross},
                                    {Side::long_short}, false, Fill::close);
  for (size_t S : {2u, 4u, 8u, 16u}) {
    SCOPED_TRACE("S = " + std::to_string(S));
    const SweepRequest req = request_of(h, spec, S == 16 ? 1203 : 777);  // remainder blocks
    const auto layout = selection::cscv_layout(req.window, S);
    std::vector<Summary> blocks = cpu->block_summaries(req, layout.cuts);
    const size_t stride = layout.total_blocks(), first = layout.first_cscv_block();
    const uint64_t total = spec.grid.size();
    std::vector<uint8_t> take(total);
    for (uint64_t i = 0; i < total; ++i) take[i] = spec.grid.decode(i).valid();
    // Exact ties: copies of other combos' blocks (the IS winner's tie-break by lower id, the
    // OOS mid-rank); and one combo with a nonpositive block (excluded).
    std::vector<uint64_t> valid;
    for (uint64_t i = 0; i < total; ++i)
      if (take[i]) valid.push_back(i);
    // The best combo on the whole window copied onto every third valid combo, lower ids
    // too: its copies win many splits in sample and tie each other out of sample.
    uint64_t best = valid.front();
    double best_sharpe = -1e300;
    for (uint64_t id : valid) {
      Summary joined;
      for (size_t b = 0; b < stride; ++b) joined = combine(joined, blocks[id * stride + b]);
      const double sh = finalize(joined, spec.bars_per_year).sharpe;
      if (sh > best_sharpe) {
        best_sharpe = sh;
        best = id;
      }
    }
    for (size_t j = 0; j < valid.size(); j += 3)
      if (valid[j] != best) std::copy_n(&blocks[best * stride], stride, &blocks[valid[j] * stride]);
    // Half copies (the first S/2 CSCV blocks only): in-sample ties with different OOS, so the
    // winner's tie-break by lower id decides the split's outcome.
    for (size_t j = 1; j < valid.size(); j += 9)
      if (valid[j] != best)
        std::copy_n(&blocks[best * stride + first], S / 2, &blocks[valid[j] * stride + first]);
    blocks[valid[1] * stride + first].nonpositive = true;
    for (const RankCase& rc : rank_cases()) {
      SCOPED_TRACE(std::string(to_string(rc.objective)) + " min_trades " +
                   std::to_string(rc.min_trades));
      const RankSpec rank = rank_of(rc);
      const auto want =
          selection::cscv_pbo(blocks, take, stride, first, S, rank, spec.bars_per_year, 2);
      const auto got = device_algorithm_pbo(blocks, take, stride, first, S, rank,
                                            spec.bars_per_year, layout.block_bars);
      EXPECT_GT(want.splits_with_winner, 0u);
      expect_same_pbo(got, want);
    }
  }
}

// The device ranks and counts on screens: floats within a band of the exact objective
// (selection_lean.cuh screen_objective), deciding exactly wherever a band could change the
// outcome. Sound only if every screen lies in its band: checked here against the exact
// objective on sums from real block folds and on adversarial sums (strong cancellation, tiny
// and huge values, zero variance), for every objective. The keys must order screens as
// rank_key orders numbers, and screen_of_key must invert screen_key.
TEST(SelectionDeviceAlgorithm, ScreensLieInTheirBand) {
  const lean::ScreenBand band;
  lean::Ranking rk;
  rk.bars = 600;
  rk.annual = std::sqrt(252.0);
  constexpr unsigned M = lean::bit(lean::kSum) | lean::bit(lean::kSumSq);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> exp(-60, 40);
  size_t fast = 0, checked = 0;
  double worst = 0;
  for (int i = 0; i < 400000; ++i) {
    lean::Lean<M> l{};
    const double mean = std::ldexp(unit(rng), exp(rng));
    double var = std::ldexp(std::abs(unit(rng)), exp(rng) * 2);
    if (i % 7 == 0)
      var = mean * mean * std::ldexp(1.0, -std::uniform_int_distribution<int>(0, 60)(rng));
    if (i % 101 == 0) var = 0;
    l.template f<lean::kSum>() = mean * rk.bars;
    l.template f<lean::kSumSq>() = (var + mean * mean) * rk.bars;
    const double x = lean::lean_objective<M, static_cast<int>(Objective::sharpe)>(l, rk);
    const float y = lean::screen_objective<M, static_cast<int>(Objective::sharpe)>(l, rk);
    ASSERT_EQ(std::isnan(x), std::isnan(y));
    if (!std::isfinite(y)) continue;
    ++checked;
    ASSERT_LE(lean::band_lo(y, band), x) << "sum " << l.v[0] << " sumsq " << l.v[1];
    ASSERT_GE(lean::band_hi(y, band), x) << "sum " << l.v[0] << " sumsq " << l.v[1];
    if (static_cast<double>(y) != x && x != 0) {
      worst = std::max(worst, std::abs(x - y) / std::abs(static_cast<double>(y)));
      fast += static_cast<float>(x) != y ? 1 : 0;  // not the rounded exact value: fast path
    }
  }
  EXPECT_GT(fast, 1000u);     // the division-free path ran
  EXPECT_LT(worst, 0x1p-20);  // and stayed well inside the band
  EXPECT_GT(checked, 300000u);
  // The count's float thresholds: below them the band is wholly below t, above them wholly
  // above, and they are the last such floats (the next one towards t is undecided).
  for (const double rel : {band.rel, 1e-3, 0.5}) {
    lean::ScreenBand wide = band;
    wide.rel = rel;
    for (int i = 0; i < 20000; ++i) {
      const double t = i % 97 == 0 ? 0.0 : std::ldexp(unit(rng), exp(rng));
      const lean::ScreenThresholds th = lean::screen_thresholds(t, wide);
      ASSERT_LT(lean::band_hi(th.below, wide), t) << t;
      ASSERT_FALSE(lean::band_hi(std::nextafter(th.below, 1e30f), wide) < t) << t;
      ASSERT_GT(lean::band_lo(th.above, wide), t) << t;
      ASSERT_FALSE(lean::band_lo(std::nextafter(th.above, -1e30f), wide) > t) << t;
      ASSERT_LT(th.below, th.above);
    }
  }
  const lean::ScreenThresholds nan_t =
      lean::screen_thresholds(std::numeric_limits<double>::quiet_NaN(), band);
  EXPECT_TRUE(nan_t.above == -std::numeric_limits<float>::infinity());
  // Screen keys: the raw order, NaN 1, numbers >= 2, invertible.
  const double inf = std::numeric_limits<double>::infinity();
  const double v[] = {-inf,
                      -1e30,
                      -2.5,
                      -1e-40,
                      -0.0,
                      0.0,
                      1e-44,
                      3.0,
                      1e30,
                      inf,
                      std::numeric_limits<double>::quiet_NaN()};
  for (double a : v) {
    const float fa = static_cast<float>(a);
    const uint32_t ka = lean::screen_key(fa);
    if (std::isnan(a)) {
      EXPECT_EQ(ka, 1u);
      continue;
    }
    EXPECT_GE(ka, 2u);
    EXPECT_EQ(static_cast<double>(lean::screen_of_key(ka)), a == 0 ? 0.0 : static_cast<double>(fa));
    for (double b : v) {
      const uint32_t kb = lean::screen_key(static_cast<float>(b));
      // Screens order as the raw values do (the rank key's rounding is the exact side's).
      if (a < b) {
        EXPECT_LE(ka, kb) << a << " " << b;
      } else if (a == b) {
        EXPECT_EQ(ka, kb) << a << " " << b;
      }
    }
  }
}

// The device's unchecked walk skips the constraints for participants lean_always_passes
// marks: every one of them must pass on every half-set (brute force over the walk), and the
// mark must be neither never nor always given on real data, or the test would prove nothing.
TEST(SelectionDeviceAlgorithm, AlwaysPassesHoldsOnEveryHalfSet) {
  const Series s = goog();
  auto cpu = make_backend("cpu");
  const StrategySpec spec = ma_spec({MaType::sma, MaType::ema}, {Entry::state, Entry::cross},
                                    {Side::long_short, Side::long_only}, false, Fill::close);
  const std::vector<uint32_t> binom = lean::binomial_table();
  size_t marked_total = 0, unmarked_total = 0;
  for (size_t S : {4u, 8u, 16u}) {
    const SweepRequest req = request_of(HistoryView::of(s), spec, S == 16 ? 1203 : 777);
    const auto layout = selection::cscv_layout(req.window, S);
    const std::vector<Summary> blocks = cpu->block_summaries(req, layout.cuts);
    const size_t stride = layout.total_blocks(), first = layout.first_cscv_block();
    std::vector<RankCase> cases = rank_cases();
    cases.push_back({Objective::sharpe, 12, 1.0, 0.45});  // binds on most half-sets
    cases.push_back({Objective::sortino, 4, 1.0, std::nullopt});
    for (const RankCase& rc : cases) {
      SCOPED_TRACE(std::string(to_string(rc.objective)) + " min_trades " +
                   std::to_string(rc.min_trades) + " S " + std::to_string(S));
      lean::Ranking rk;
      rk.bars = static_cast<double>(S / 2 * layout.block_bars);
      rk.annual = std::sqrt(spec.bars_per_year);
      rk.objective = static_cast<int>(rc.objective);
      rk.min_trades = rc.min_trades;
      rk.max_drawdown = rc.max_drawdown;
      rk.has_min_exposure = rc.min_exposure.has_value();
      rk.min_exposure = rc.min_exposure.value_or(0.0);
      lean::dispatch(rk, [&](auto mask_c, auto) {
        constexpr unsigned M = decltype(mask_c)::value;
        for (uint64_t id = 0; id < spec.grid.size(); ++id) {
          if (!spec.grid.decode(id).valid()) continue;
          auto block = [&](int c) {
            return lean::lean_of<M>(blocks[id * stride + first + static_cast<size_t>(c)]);
          };
          if (!lean::lean_always_passes<M>(static_cast<int>(S), block, rk)) {
            ++unmarked_total;
            continue;
          }
          ++marked_total;
          size_t failed = 0;
          auto leaf = [&](uint32_t, const lean::Lean<M>& fold) {
            failed += lean::lean_passes(fold, rk) ? 0 : 1;
          };
          lean::walk_half_sets<M>(static_cast<int>(S), block, binom.data(), leaf);
          ASSERT_EQ(failed, 0u) << "combo " << id << " marked but fails on " << failed
                                << " half-sets";
        }
      });
    }
  }
  EXPECT_GT(marked_total, 100u);
  EXPECT_GT(unmarked_total, 100u);
}

// The walk with the tree's shape fixed at compile time (the device's S = 16 kernel) visits the
// same splits in the same order with the same folds, bit for bit, as the run-time shape.
TEST(SelectionDeviceAlgorithm, FixedShapeWalkEqualsRuntimeWalk) {
  const Series s = goog();
  auto cpu = make_backend("cpu");
  const StrategySpec spec =
      ma_spec({MaType::sma}, {Entry::state}, {Side::long_short}, false, Fill::close);
  const SweepRequest req = request_of(HistoryView::of(s), spec, 1203);
  const auto layout = selection::cscv_layout(req.window, 16);
  const std::vector<Summary> blocks = cpu->block_summaries(req, layout.cuts);
  const size_t stride = layout.total_blocks(), first = layout.first_cscv_block();
  const std::vector<uint32_t> binom = lean::binomial_table();
  constexpr unsigned M = lean::bit(lean::kSum) | lean::bit(lean::kSumSq) | lean::kDrawdownFields |
                         lean::objective_fields(Objective::profit_factor);
  for (uint64_t id = 0; id < spec.grid.size(); ++id) {
    if (!spec.grid.decode(id).valid()) continue;
    auto block = [&](int c) {
      return lean::lean_of<M>(blocks[id * stride + first + static_cast<size_t>(c)]);
    };
    std::vector<std::pair<uint32_t, lean::Lean<M>>> runtime, fixed;
    auto keep = [](auto& v) {
      return [&v](uint32_t split, const lean::Lean<M>& f) { v.emplace_back(split, f); };
    };
    auto leaf_r = keep(runtime);
    auto leaf_f = keep(fixed);
    lean::walk_half_sets<M>(16, block, binom.data(), leaf_r);
    lean::walk_half_sets<M, 8>(16, block, binom.data(), leaf_f);
    ASSERT_EQ(runtime.size(), 12870u);
    ASSERT_EQ(fixed.size(), runtime.size());
    for (size_t i = 0; i < runtime.size(); ++i) {
      ASSERT_EQ(fixed[i].first, runtime[i].first) << "leaf " << i;
      const lean::Lean<M>& a = fixed[i].second;
      const lean::Lean<M>& b = runtime[i].second;
      for (int f = 0; f < lean::Lean<M>::kDoubles; ++f)
        ASSERT_TRUE(same_bits(a.v[f], b.v[f])) << "leaf " << i << " field " << f;
      ASSERT_EQ(a.closed, b.closed);
      ASSERT_EQ(a.held, b.held);
      ASSERT_EQ(a.head_pos, b.head_pos);
      ASSERT_EQ(a.tail_pos, b.tail_pos);
      ASSERT_EQ(a.single_run, b.single_run);
    }
  }
}

TEST(SelectionDeviceAlgorithm, RankKeyOrdersAsRanksBefore) {
  const double inf = std::numeric_limits<double>::infinity();
  const double v[] = {-inf,
                      -1e300,
                      -2.5,
                      -1e-300,
                      -0.0,
                      0.0,
                      1e-310,
                      3.0,
                      1e308,
                      inf,
                      std::numeric_limits<double>::quiet_NaN()};
  for (double a : v)
    for (double b : v) {
      // Same id: ranks_before(a, 0, b, 1) is "a before b or equal"; keys must agree.
      const bool a_first = ranks_before(a, 0, b, 1), b_first = ranks_before(b, 0, a, 1);
      const uint64_t ka = lean::rank_key(a), kb = lean::rank_key(b);
      EXPECT_GT(ka, 0u);
      if (a_first && b_first) {
        EXPECT_EQ(ka, kb) << a << " " << b;
      } else if (a_first) {
        EXPECT_GT(ka, kb) << a << " " << b;
      } else {
        EXPECT_LT(ka, kb) << a << " " << b;
      }
    }
}

TEST(SelectionDeviceAlgorithm, StencilEqualsPlateauSelect) {
  std::mt19937_64 rng(11);
  const std::vector<std::vector<size_t>> shapes = {{7, 9}, {5, 4, 3}, {3, 1, 4, 2, 3}, {40}};
  for (const auto& sizes : shapes) {
    uint64_t total = 1;
    for (size_t x : sizes) total *= x;
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<int> radii;
      for (size_t a = 0; a < sizes.size(); ++a)
        radii.push_back(std::uniform_int_distribution<int>(-1, 2)(rng));
      std::vector<double> obj(total);
      std::vector<ComboState> st(total);
      std::uniform_int_distribution<int> pick(0, 9);
      for (uint64_t i = 0; i < total; ++i) {
        const int p = pick(rng);
        st[i] = p == 0 ? ComboState::invalid : p <= 2 ? ComboState::unranked : ComboState::ranked;
        // Few distinct values: many ties among the order statistics.
        obj[i] = st[i] == ComboState::invalid ? std::nan("")
                 : p == 9                     ? std::nan("")
                          : std::uniform_int_distribution<int>(-3, 3)(rng) * 0.5;
      }
      selection::stencil::StencilGrid g;
      g.axes = static_cast<int>(sizes.size());
      uint64_t stride = 1;
      for (size_t a = 0; a < sizes.size(); ++a) {
        g.size[a] = sizes[a];
        g.stride[a] = stride;
        g.radius[a] = static_cast<uint64_t>(std::max(radii[a], 0));
        stride *= sizes[a];
      }
      std::vector<uint8_t> bytes(total);
      for (uint64_t i = 0; i < total; ++i) bytes[i] = static_cast<uint8_t>(st[i]);
      double worst = std::numeric_limits<double>::infinity();
      for (uint64_t i = 0; i < total; ++i)
        if (st[i] == ComboState::ranked && !std::isnan(obj[i])) worst = std::min(worst, obj[i]);
      g.worst = worst;
      for (const char* stat : {"mean", "min", "median", "q25", "q90"}) {
        SCOPED_TRACE(stat);
        const selection::PlateauStat ps = selection::parse_plateau_stat(stat);
        g.mean = ps.mean;
        g.q = ps.q;
        std::vector<double> want;
        const auto best = selection::plateau_select(sizes, radii, obj, st, ps, &want);
        for (uint64_t i = 0; i < total; ++i) {
          if (st[i] != ComboState::ranked || std::isnan(obj[i])) continue;
          const auto c = selection::stencil::centre_score(g, i, obj.data(), bytes.data());
          ASSERT_TRUE(same_value(c.score, want[i])) << i << ": " << c.score << " vs " << want[i];
          if (best && best->id == i) {
            EXPECT_EQ(c.neighbours, best->neighbours);
            EXPECT_EQ(c.worst_counted, best->worst_counted);
          }
        }
      }
    }
  }
}

// --- the robust_scores seam (selection_extension.hpp) --------------------------------------

// The backend's own robust_scores, with no fallback: its selection extension, else the host
// pipeline on it.
selection::RobustScores own_robust_scores(Backend& backend, const SweepRequest& req,
                                          const selection::RobustOptions& opt) {
  if (selection::SelectionExtension* ext = backend.selection()) return ext->robust_scores(req, opt);
  return selection::host_robust_scores(backend, req, opt);
}

void expect_same_scores(const selection::RobustScores& a, const selection::RobustScores& b) {
  ASSERT_EQ(a.objective.size(), b.objective.size());
  EXPECT_EQ(a.valid, b.valid);
  EXPECT_EQ(a.ranked, b.ranked);
  for (size_t i = 0; i < a.objective.size(); ++i) {
    ASSERT_EQ(a.state[i], b.state[i]) << "combo " << i;
    ASSERT_TRUE(same_bits(a.objective[i], b.objective[i]))
        << "combo " << i << ": " << a.objective[i] << " vs " << b.objective[i];
    ASSERT_TRUE(same_bits(a.sharpe[i], b.sharpe[i])) << "combo " << i;
  }
  ASSERT_EQ(a.pbo.has_value(), b.pbo.has_value());
  if (a.pbo) expect_same_pbo(*a.pbo, *b.pbo);
  ASSERT_EQ(a.plateau_scores.size(), b.plateau_scores.size());
  for (size_t i = 0; i < a.plateau_scores.size(); ++i)
    ASSERT_TRUE(same_value(a.plateau_scores[i], b.plateau_scores[i])) << "plateau " << i;
  ASSERT_EQ(a.plateau.has_value(), b.plateau.has_value());
  if (a.plateau) {
    EXPECT_EQ(a.plateau->id, b.plateau->id);
    EXPECT_TRUE(same_value(a.plateau->score, b.plateau->score));
    EXPECT_EQ(a.plateau->neighbours, b.plateau->neighbours);
    EXPECT_EQ(a.plateau->worst_counted, b.plateau->worst_counted);
  }
}

selection::RobustOptions options_of(const SweepRequest& req, size_t S, const char* stat) {
  selection::RobustOptions o;
  if (S) {
    o.pbo = true;
    o.layout = selection::cscv_layout(req.window, S);
  }
  if (stat) {
    selection::SelectionSpec spec;
    spec.plateau_radius = 1;
    if (req.strategy.grid.family == Family::ma_cross) spec.plateau_radius_axes = {{"fast", 2}};
    selection::PlateauRequest p;
    for (const AxisInfo& a : req.strategy.grid.axes()) p.axis_sizes.push_back(a.size);
    p.radii = selection::plateau_radii(req.strategy.grid, spec);
    p.stat = selection::parse_plateau_stat(stat);
    o.plateau = p;
  }
  return o;
}

TEST(RobustScoresDefault, EqualsScoreGridPboAndPlateauOnCpuBackends) {
  const Series s = goog();
  const HistoryView h = HistoryView::of(s);
  const StrategySpec spec =
      ma_spec({MaType::sma}, {Entry::state}, {Side::long_short}, false, Fill::next_open);
  for (const char* name : {"cpu", "cpu_ref"}) {
    SCOPED_TRACE(name);
    auto be = make_backend(name);
    SweepRequest req = request_of(h, spec, 999);
    req.rank.min_trades = 3;
    for (size_t S : {0u, 6u}) {
      const auto opt = options_of(req, S, S ? "q25" : "mean");
      const selection::RobustScores got = own_robust_scores(*be, req, opt);
      // What select() ran before the seam.
      const selection::GridScores g = S ? selection::score_grid(*be, req, opt.layout)
                                        : selection::score_grid_by_evaluate(*be, req);
      selection::RobustScores want;
      want.objective = g.objective;
      want.sharpe = g.sharpe;
      want.state = g.state;
      want.valid = g.valid;
      want.ranked = g.ranked;
      if (S) {
        std::vector<uint8_t> take(g.state.size());
        for (size_t i = 0; i < take.size(); ++i) take[i] = g.state[i] != ComboState::invalid;
        want.pbo =
            selection::cscv_pbo(g.blocks, take, opt.layout.total_blocks(),
                                opt.layout.first_cscv_block(), S, req.rank, spec.bars_per_year, 2);
      }
      want.plateau =
          selection::plateau_select(opt.plateau->axis_sizes, opt.plateau->radii, want.objective,
                                    want.state, opt.plateau->stat, &want.plateau_scores);
      expect_same_scores(got, want);
      if (S) {
        EXPECT_GT(got.pbo->splits_with_winner, 0u);
      }
    }
  }
}

// --- CUDA -----------------------------------------------------------------------------------

std::unique_ptr<Backend> cuda_or_null(std::string* why) {
  try {
    return make_backend("cuda");
  } catch (const std::exception& e) {
    *why = e.what();
    return nullptr;
  }
}

#define WFOD_CUDA_OR_SKIP(var)                                                               \
  std::string why_##var;                                                                     \
  auto var = cuda_or_null(&why_##var);                                                       \
  if (!var) {                                                                                \
    GTEST_SKIP() << "no CUDA device (cuda backend not available here: " << why_##var << ")"; \
  }

void expect_bit_identical(const Summary& a, const Summary& b) {
  test::expect_same_summary_bits(a, b, "summary");
}

struct BlockCase {
  std::string name;
  StrategySpec spec;
};

std::vector<BlockCase> block_cases() {
  const std::vector<MaType> all_ma{MaType::sma, MaType::ema, MaType::wma, MaType::hma};
  std::vector<BlockCase> out;
  for (Fill fill : {Fill::close, Fill::next_open}) {
    const std::string f = fill == Fill::close ? "_close" : "_next_open";
    out.push_back(
        {"ma_state_all_types" + f,
         ma_spec(all_ma, {Entry::state}, {Side::long_short, Side::long_only}, false, fill)});
    out.push_back({"ma_cross" + f, ma_spec({MaType::sma, MaType::ema}, {Entry::cross},
                                           {Side::long_short, Side::long_only}, false, fill)});
    out.push_back({"ma_vol_filter" + f, ma_spec({MaType::wma}, {Entry::state, Entry::cross},
                                                {Side::long_short}, true, fill)});
    out.push_back({"channel" + f, channel_spec(false, fill)});
    out.push_back({"channel_vol_filter" + f, channel_spec(true, fill)});
    out.push_back({"bollinger" + f, bollinger_spec(false, fill)});
    out.push_back({"bollinger_vol_filter" + f, bollinger_spec(true, fill)});
    out.push_back({"rsi_reversion" + f, rsi_spec(false, fill)});
    out.push_back({"rsi_reversion_vol_filter" + f, rsi_spec(true, fill)});
  }
  return out;
}

// Random strictly increasing cuts inside the window: none, one bar apart, odd spacings.
std::vector<size_t> odd_cuts(const SweepRequest& req, std::mt19937_64& rng) {
  const size_t n = std::uniform_int_distribution<size_t>(0, 14)(rng);
  std::vector<size_t> cuts;
  for (size_t i = 0; i < n; ++i)
    cuts.push_back(
        std::uniform_int_distribution<size_t>(req.window.first() + 1, req.window.end - 1)(rng));
  cuts.push_back(req.window.first() + 1);
  cuts.push_back(req.window.end - 1);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

void check_blocks(Backend& cuda, Backend& cpu, const HistoryView& h, const StrategySpec& spec,
                  uint64_t seed) {
  std::mt19937_64 rng(seed);
  const size_t warmup = default_warmup(spec.grid);
  if (h.size() < warmup + 40) return;
  SweepRequest req;
  req.history = h;
  req.strategy = spec;
  const size_t bars =
      std::uniform_int_distribution<size_t>(20, std::min<size_t>(h.size() - warmup - 1, 3000))(rng);
  const size_t end = std::uniform_int_distribution<size_t>(warmup + bars + 1, h.size())(rng);
  req.window = {end, bars, warmup};
  req.threads = 2;
  const std::vector<size_t> cuts = odd_cuts(req, rng);
  const auto want = cpu.block_summaries(req, cuts);
  const auto got = cuda.block_summaries(req, cuts);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("combo " + std::to_string(i / (cuts.size() + 1)) + " block " +
                 std::to_string(i % (cuts.size() + 1)));
    expect_bit_identical(got[i], want[i]);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(SelectionDeviceParity, BlockSummariesEqualCpuOnSyntheticSeries) {
  WFOD_CUDA_OR_SKIP(cuda);
  auto cpu = make_backend("cpu");
  const Series walk = test::random_walk(2600, 5);
  const Series spikes = test::spike_series(2600, 6, {700, 1500, 2200}, 2.3);
  const Series flat = test::constant_series(900, 50);
  // Both decision paths of the block kernel: the float32 screen (default) and plain float64.
  for (const char* exact : {"0", "1"}) {
    SCOPED_TRACE(std::string("WFOD_CUDA_BLOCKS_EXACT=") + exact);
    ::setenv("WFOD_CUDA_BLOCKS_EXACT", exact, 1);
    uint64_t seed = 1;
    for (const BlockCase& c : block_cases()) {
      SCOPED_TRACE(c.name);
      for (const Series* s : {&walk, &spikes, &flat})
        check_blocks(*cuda, *cpu, HistoryView::of(*s), c.spec, seed++);
    }
  }
  ::unsetenv("WFOD_CUDA_BLOCKS_EXACT");
}

// Prices whose indicators are denormal as floats (below ~1.2e-38; a float there is off by up
// to half its value, the vol ratio of two of them by more): the block kernel's float32
// screen, whose answers are not re-scored, must leave every such comparison to the doubles.
// The constant series sits halfway between the two smallest denormals, where moving averages
// an ulp apart round to different floats yet tie within the dead band.
TEST(SelectionDeviceParity, BlockSummariesEqualCpuOnDenormalFloatPrices) {
  WFOD_CUDA_OR_SKIP(cuda);
  auto cpu = make_backend("cpu");
  const Series tiny = test::random_walk(2600, 7, 1e-41, 0.01, 0.003);
  const Series midpoint = test::constant_series(900, std::ldexp(3.0, -150));
  ::setenv("WFOD_CUDA_BLOCKS_EXACT", "0", 1);
  uint64_t seed = 101;
  for (const BlockCase& c : block_cases()) {
    SCOPED_TRACE(c.name);
    for (const Series* s : {&tiny, &midpoint})
      check_blocks(*cuda, *cpu, HistoryView::of(*s), c.spec, seed++);
  }
  ::unsetenv("WFOD_CUDA_BLOCKS_EXACT");
}

TEST(SelectionDeviceParity, BlockSummariesEqualCpuOnRealData) {
  WFOD_CUDA_OR_SKIP(cuda);
  auto cpu = make_backend("cpu");
  auto files = test::shared_csv_files();
  if (files.empty())
    files.push_back(std::filesystem::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv");
  uint64_t seed = 100;
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    const Series s = test::load_csv(f);
    const HistoryView h = HistoryView::of(s);
    for (const BlockCase& c : block_cases()) {
      SCOPED_TRACE(c.name);
      check_blocks(*cuda, *cpu, h, c.spec, seed++);
    }
  }
}

// cuda robust_scores (device scores, CSCV, plateau) against the host pipeline on cuda's own
// block summaries (selection::host_robust_scores) and against cpu's.
TEST(SelectionDeviceParity, RobustScoresEqualHostPipeline) {
  WFOD_CUDA_OR_SKIP(cuda);
  auto cpu = make_backend("cpu");
  const Series real = goog();
  const Series spikes = test::spike_series(3000, 9, {900, 1900, 2600}, 2.4);  // replays, exclusions
  struct Run {
    const Series* series;
    StrategySpec spec;
    size_t bars, S;
    const char* stat;
  };
  const std::vector<Run> runs = {
      {&real,
       ma_spec({MaType::sma, MaType::ema}, {Entry::state, Entry::cross}, {Side::long_short}, false,
               Fill::close),
       1203, 16, "mean"},
      {&real, channel_spec(true, Fill::next_open), 1001, 8, "q25"},
      {&spikes,
       ma_spec({MaType::sma}, {Entry::state}, {Side::long_short, Side::long_only}, true,
               Fill::next_open),
       2000, 10, "median"},
      {&spikes, channel_spec(false, Fill::close), 1500, 4, nullptr},
      {&real, ma_spec({MaType::hma}, {Entry::state}, {Side::long_short}, false, Fill::close), 800,
       0, "min"},
      {&real, bollinger_spec(true, Fill::next_open), 1101, 8, "median"},
      {&spikes, rsi_spec(false, Fill::close), 1700, 10, "mean"},
  };
  for (const Run& run : runs) {
    for (const RankCase& rc : rank_cases()) {
      SCOPED_TRACE(std::string(to_string(rc.objective)) + " S " + std::to_string(run.S));
      SweepRequest req = request_of(HistoryView::of(*run.series), run.spec, run.bars);
      req.rank = rank_of(rc);
      const auto opt = options_of(req, run.S, run.stat);
      const auto got = own_robust_scores(*cuda, req, opt);
      const auto host = selection::host_robust_scores(*cuda, req, opt);
      expect_same_scores(got, host);
      if (run.S) {
        // With PBO both score from block summaries: cpu's host pipeline is the same to the bit.
        const auto on_cpu = own_robust_scores(*cpu, req, opt);
        expect_same_scores(got, on_cpu);
      }
    }
  }
  // Without PBO (the canonical Summaries scored on the device) on every series, with the host
  // replays of the spikes, in both precisions (fast: evaluate()'s change-driven evaluator).
  for (size_t i : {0u, 2u, 4u}) {
    for (const Precision precision : {Precision::exact, Precision::fast}) {
      SCOPED_TRACE(std::string("no PBO, run ") + std::to_string(i) + ", precision " +
                   std::string(to_string(precision)));
      SweepRequest req = request_of(HistoryView::of(*runs[i].series), runs[i].spec, runs[i].bars);
      req.precision = precision;
      const auto opt = options_of(req, 0, runs[i].stat ? runs[i].stat : "mean");
      expect_same_scores(own_robust_scores(*cuda, req, opt),
                         selection::host_robust_scores(*cuda, req, opt));
    }
  }
  // Pass B by a second walk (what runs when the objective store does not fit the device).
  ::setenv("WFOD_CUDA_CSCV_STORE", "0", 1);
  for (size_t i : {0u, 2u}) {
    for (const RankCase& rc : rank_cases()) {
      SCOPED_TRACE(std::string("no store: ") + std::string(to_string(rc.objective)));
      SweepRequest req = request_of(HistoryView::of(*runs[i].series), runs[i].spec, runs[i].bars);
      req.rank = rank_of(rc);
      const auto opt = options_of(req, runs[i].S, runs[i].stat);
      expect_same_scores(own_robust_scores(*cuda, req, opt), own_robust_scores(*cpu, req, opt));
    }
  }
  ::unsetenv("WFOD_CUDA_CSCV_STORE");
  // Wide screen bands: most screens cannot decide, so the exact decisions (the winner among
  // the candidate warps, the counts near the target) carry the result.
  for (const char* rel : {"1e-3", "0.5"}) {
    ::setenv("WFOD_CUDA_CSCV_SCREEN_REL", rel, 1);
    for (const char* store : {"1", "0"}) {
      ::setenv("WFOD_CUDA_CSCV_STORE", store, 1);
      for (size_t i : {0u, 2u}) {
        for (const RankCase& rc : rank_cases()) {
          SCOPED_TRACE(std::string("screen band ") + rel + " store " + store + ": " +
                       std::string(to_string(rc.objective)));
          SweepRequest req =
              request_of(HistoryView::of(*runs[i].series), runs[i].spec, runs[i].bars);
          req.rank = rank_of(rc);
          const auto opt = options_of(req, runs[i].S, runs[i].stat);
          expect_same_scores(own_robust_scores(*cuda, req, opt), own_robust_scores(*cpu, req, opt));
        }
      }
    }
  }
  ::unsetenv("WFOD_CUDA_CSCV_SCREEN_REL");
  ::unsetenv("WFOD_CUDA_CSCV_STORE");
  // The run-time tree shape for S = 16 (the fixed-shape kernel is the default there).
  ::setenv("WFOD_CUDA_WALK_GENERIC", "1", 1);
  for (const RankCase& rc : rank_cases()) {
    SCOPED_TRACE(std::string("generic walk: ") + std::string(to_string(rc.objective)));
    SweepRequest req = request_of(HistoryView::of(*runs[0].series), runs[0].spec, runs[0].bars);
    req.rank = rank_of(rc);
    const auto opt = options_of(req, runs[0].S, runs[0].stat);
    expect_same_scores(own_robust_scores(*cuda, req, opt), own_robust_scores(*cpu, req, opt));
  }
  ::unsetenv("WFOD_CUDA_WALK_GENERIC");
  // cagr goes through the host pipeline on this backend (pow): still equal.
  SweepRequest req = request_of(HistoryView::of(real), runs[0].spec, 1203);
  req.rank.objective = Objective::cagr;
  const auto opt = options_of(req, 16, "mean");
  expect_same_scores(own_robust_scores(*cuda, req, opt), own_robust_scores(*cpu, req, opt));
}

// robust_scores right after a sweep reuses the sweep's prepared device state only when the
// request is the same: a sweep of another grid, another cost or another series (same length,
// same first and last close, a bar between changed) must not leave its state behind.
TEST(SelectionDeviceParity, RobustScoresAfterSweepOfAnotherRequest) {
  WFOD_CUDA_OR_SKIP(cuda);
  auto cpu = make_backend("cpu");
  const Series real = goog();
  const StrategySpec spec =
      ma_spec({MaType::sma, MaType::ema}, {Entry::state}, {Side::long_short}, false, Fill::close);
  SweepRequest req = request_of(HistoryView::of(real), spec, 1203);
  const auto opt = options_of(req, 16, "mean");
  const auto want = own_robust_scores(*cpu, req, opt);
  // Same request: the second prepare is skipped, the scores are the same.
  cuda->sweep(req);
  expect_same_scores(own_robust_scores(*cuda, req, opt), want);
  // Another grid, then another cost, then the same request again.
  SweepRequest other = req;
  other.strategy.grid.fast = {3, 4, 6};
  other.strategy.grid.ma = {MaType::wma};
  cuda->sweep(other);
  expect_same_scores(own_robust_scores(*cuda, req, opt), want);
  other = req;
  other.strategy.costs.commission_bps = 9;
  cuda->sweep(other);
  expect_same_scores(own_robust_scores(*cuda, req, opt), want);
  // A bollinger request after a sweep of the same grid with other band widths, then with the
  // styles in another order (k and style are grid values the prepared tables depend on).
  const StrategySpec bands = bollinger_spec(false, Fill::close, {1, 2});
  SweepRequest band_req = request_of(HistoryView::of(real), bands, 1203);
  const auto band_opt = options_of(band_req, 16, "mean");
  const auto band_want = own_robust_scores(*cpu, band_req, band_opt);
  other = band_req;
  other.strategy.grid.k = {1.5, 2.5};
  cuda->sweep(other);
  expect_same_scores(own_robust_scores(*cuda, band_req, band_opt), band_want);
  other = band_req;
  other.strategy.grid.style = {Style::breakout, Style::reversion};
  cuda->sweep(other);
  expect_same_scores(own_robust_scores(*cuda, band_req, band_opt), band_want);
  // Another series in another buffer: same length, same first and last close, one bar between
  // changed (so the bar returns differ).
  Series changed = real;
  const size_t mid = req.window.first() + 100;
  changed.close[mid] *= 1.05;
  changed.high[mid] = std::max(changed.high[mid], changed.close[mid]);
  other = req;
  other.history = HistoryView::of(changed);
  cuda->sweep(other);
  expect_same_scores(own_robust_scores(*cuda, req, opt), want);
  // And block_summaries after a sweep of the other series.
  cuda->sweep(other);
  const auto layout = selection::cscv_layout(req.window, 16);
  const auto got = cuda->block_summaries(req, layout.cuts);
  const auto cpu_blocks = cpu->block_summaries(req, layout.cuts);
  ASSERT_EQ(got.size(), cpu_blocks.size());
  for (size_t i = 0; i < got.size(); ++i) {
    expect_bit_identical(got[i], cpu_blocks[i]);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace wfod
