// Ranking (SPEC §7): objective order with ties by lower id, TopK merge determinism whatever
// the offer order or thread split, constraints, and sweeps' top-K against a brute-force
// ranking of evaluate() over every combo.
#include "wfod/ranking.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

Ranked candidate(uint64_t id, double objective) {
  Ranked r;
  r.combo.id = id;
  r.objective = objective;
  r.metrics.sharpe = objective;
  return r;
}

// Brute force: sort by (objective desc, id asc), keep k.
std::vector<uint64_t> brute_top(std::vector<Ranked> all, size_t k) {
  std::sort(all.begin(), all.end(), [](const Ranked& a, const Ranked& b) {
    if (a.objective != b.objective) return a.objective > b.objective;
    return a.combo.id < b.combo.id;
  });
  if (all.size() > k) all.resize(k);
  return test::ids_of(all);
}

TEST(RanksBefore, HigherObjectiveThenLowerId) {
  EXPECT_TRUE(ranks_before(2.0, 9, 1.0, 0));
  EXPECT_FALSE(ranks_before(1.0, 0, 2.0, 9));
  EXPECT_TRUE(ranks_before(1.0, 3, 1.0, 4));
  EXPECT_FALSE(ranks_before(1.0, 4, 1.0, 3));
  EXPECT_FALSE(ranks_before(1.0, 4, 1.0, 4));  // strict
  EXPECT_TRUE(ranks_before(-1.0, 7, -2.0, 1));
  EXPECT_TRUE(ranks_before(0.0, 1, -0.0, 2));  // +0 and -0 are equal objectives: id decides
  EXPECT_FALSE(ranks_before(-0.0, 2, 0.0, 1));
}

TEST(RanksBefore, NanRanksLastAndOrderStaysStrictWeak) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(ranks_before(-1e300, 9, nan, 0));
  EXPECT_FALSE(ranks_before(nan, 0, -1e300, 9));
  EXPECT_TRUE(ranks_before(-std::numeric_limits<double>::infinity(), 9, nan, 0));
  // Between NaNs exactly one of the two orders holds (a total order, so sorting is deterministic).
  EXPECT_NE(ranks_before(nan, 1, nan, 2), ranks_before(nan, 2, nan, 1));
  EXPECT_FALSE(ranks_before(nan, 1, nan, 1));
}

TEST(TopK, TiesBreakByLowerIdWhateverTheOfferOrder) {
  std::vector<Ranked> all;
  for (uint64_t id = 0; id < 100; ++id) all.push_back(candidate(id, static_cast<double>(id % 3)));
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::shuffle(all.begin(), all.end(), rng);
    TopK top(10);
    for (const Ranked& r : all) top.offer(r);
    const std::vector<uint64_t> got = test::ids_of(top.sorted());
    // objective 2 belongs to ids 2, 5, 8, ... : the ten lowest of them.
    EXPECT_EQ(got, (std::vector<uint64_t>{2, 5, 8, 11, 14, 17, 20, 23, 26, 29}));
    EXPECT_EQ(got, brute_top(all, 10));
  }
}

TEST(TopK, CapacityLargerThanCandidates) {
  TopK top(50);
  EXPECT_EQ(top.capacity(), 50u);
  EXPECT_TRUE(top.sorted().empty());
  const double objs[] = {0.5, -1, 3, 0.5, 2, -7, 0.5};
  std::vector<Ranked> all;
  for (uint64_t i = 0; i < 7; ++i) all.push_back(candidate(100 - i, objs[i]));
  for (const Ranked& r : all) top.offer(r);
  const std::vector<Ranked> sorted = top.sorted();
  ASSERT_EQ(sorted.size(), 7u);
  EXPECT_EQ(test::ids_of(sorted), (std::vector<uint64_t>{98, 96, 94, 97, 100, 99, 95}));
  for (const Ranked& r : sorted) EXPECT_EQ(r.metrics.sharpe, r.objective);  // carried whole
}

TEST(TopK, MergeIsDeterministicForAnyThreadSplit) {
  constexpr uint64_t kBaseSeed = 777;
  for (uint64_t i = 0; i < 300; ++i) {
    const uint64_t seed = kBaseSeed + i;
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const size_t n = rng() % 400;
    const size_t k = 1 + rng() % 40;
    const int distinct = 1 + static_cast<int>(rng() % 20);  // few values: many ties
    std::vector<Ranked> all;
    for (uint64_t id = 0; id < n; ++id)
      all.push_back(candidate(id * 3 + rng() % 3,
                              static_cast<double>(static_cast<int>(rng() % distinct)) * 0.25 - 1));
    const std::vector<uint64_t> want = brute_top(all, k);
    std::shuffle(all.begin(), all.end(), rng);
    // Random split over "threads", each offering its share in its own order.
    const size_t threads = 1 + rng() % 8;
    std::vector<TopK> parts(threads, TopK(k));
    for (const Ranked& r : all) parts[rng() % threads].offer(r);
    // Merge in a random order into a random first collector...
    std::vector<size_t> order(threads);
    for (size_t t = 0; t < threads; ++t) order[t] = t;
    std::shuffle(order.begin(), order.end(), rng);
    TopK merged = parts[order[0]];
    for (size_t t = 1; t < threads; ++t) merged.merge(parts[order[t]]);
    EXPECT_EQ(test::ids_of(merged.sorted()), want);
    // ...and pairwise, as a tree.
    std::vector<TopK> level = parts;
    while (level.size() > 1) {
      std::vector<TopK> next;
      for (size_t t = 0; t + 1 < level.size(); t += 2) {
        TopK a = level[t];
        a.merge(level[t + 1]);
        next.push_back(a);
      }
      if (level.size() % 2) next.push_back(level.back());
      level = next;
    }
    EXPECT_EQ(test::ids_of(level[0].sorted()), want);
    // Merging an empty collector changes nothing.
    TopK with_empty = merged;
    with_empty.merge(TopK(k));
    EXPECT_EQ(test::ids_of(with_empty.sorted()), want);
    if (::testing::Test::HasFailure()) break;
  }
}

// --- Constraints and objectives -------------------------------------------------------------

Metrics metrics_with(int64_t trades, double dd, double exposure) {
  Metrics m;
  m.trades = trades;
  m.max_drawdown = dd;
  m.exposure = exposure;
  return m;
}

TEST(Constraints, DefaultsAndBoundaries) {
  const RankSpec def;
  EXPECT_EQ(def.min_trades, 1);
  EXPECT_EQ(def.max_drawdown, 1.0);
  EXPECT_FALSE(def.min_exposure.has_value());
  EXPECT_EQ(def.top, 10u);
  EXPECT_EQ(def.objective, Objective::sharpe);
  EXPECT_FALSE(passes_constraints(metrics_with(0, 0.1, 0.5), def));        // no trade
  EXPECT_TRUE(passes_constraints(metrics_with(1, 0.1, 0.0), def));         // no exposure floor
  EXPECT_TRUE(passes_constraints(metrics_with(1, 1.0, 0.5), def));         // dd == max passes
  EXPECT_FALSE(passes_constraints(metrics_with(1, 1.0000001, 0.5), def));  // equity went <= 0

  RankSpec r;
  r.min_trades = 3;
  r.max_drawdown = 0.2;
  r.min_exposure = 0.5;
  EXPECT_TRUE(passes_constraints(metrics_with(3, 0.2, 0.5), r));
  EXPECT_FALSE(passes_constraints(metrics_with(2, 0.1, 0.9), r));
  EXPECT_FALSE(passes_constraints(metrics_with(10, 0.2000001, 0.9), r));
  EXPECT_FALSE(passes_constraints(metrics_with(10, 0.1, 0.4999), r));
  r.min_trades = 0;
  EXPECT_TRUE(passes_constraints(metrics_with(0, 0.0, 0.5), r));
}

TEST(Objectives, ValueAndNames) {
  Metrics m;
  m.sharpe = 1.5;
  m.sortino = 2.5;
  m.calmar = 3.5;
  m.total_return = 0.25;
  m.cagr = 0.125;
  m.profit_factor = 1.75;
  EXPECT_EQ(objective_value(m, Objective::sharpe), 1.5);
  EXPECT_EQ(objective_value(m, Objective::sortino), 2.5);
  EXPECT_EQ(objective_value(m, Objective::calmar), 3.5);
  EXPECT_EQ(objective_value(m, Objective::total_return), 0.25);
  EXPECT_EQ(objective_value(m, Objective::cagr), 0.125);
  EXPECT_EQ(objective_value(m, Objective::profit_factor), 1.75);
  for (Objective o : {Objective::sharpe, Objective::sortino, Objective::calmar,
                      Objective::total_return, Objective::cagr, Objective::profit_factor})
    EXPECT_EQ(parse_objective(to_string(o)), o);
  EXPECT_EQ(to_string(Objective::total_return), "total_return");
  EXPECT_THROW(parse_objective("omega"), std::invalid_argument);
}

// --- Sweeps rank exactly as SPEC §7 says ----------------------------------------------------

Grid small_ma_grid() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {2, 4, 7, 12};
  g.slow = {7, 15, 30};
  g.ma = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};
  g.side = {Side::long_short, Side::long_only};
  g.entry = {Entry::state, Entry::cross};
  return g;
}

TEST(SweepRanking, TopKIsBruteForceRankingOfEvaluate) {
  const Series s = test::random_walk(1500, 2024, 80, 0.012, 0.003);
  const Grid g = small_ma_grid();
  std::vector<uint64_t> valid_ids;
  for (uint64_t id = 0; id < g.size(); ++id)
    if (g.decode(id).valid()) valid_ids.push_back(id);
  for (const char* name : {"cpu_ref", "cpu"}) {
    auto be = make_backend(name);
    for (Objective obj : {Objective::sharpe, Objective::sortino, Objective::calmar,
                          Objective::total_return, Objective::cagr, Objective::profit_factor}) {
      for (int constrained = 0; constrained < 2; ++constrained) {
        SCOPED_TRACE(std::string("backend=") + name + " objective=" + std::string(to_string(obj)) +
                     (constrained ? " constrained" : " defaults"));
        SweepRequest req;
        req.history = HistoryView::of(s);
        req.strategy.grid = g;
        req.strategy.costs.commission_bps = 2;
        req.window = {s.size(), 1000, 90};
        req.rank.objective = obj;
        req.rank.top = 15;
        if (constrained) {
          req.rank.min_trades = 20;
          req.rank.max_drawdown = 0.25;
          req.rank.min_exposure = 0.6;
        }
        req.threads = 2;
        const SweepResult r = be->sweep(req);
        const std::vector<Metrics> ms = be->evaluate(req, valid_ids);
        ASSERT_EQ(ms.size(), valid_ids.size());
        // evaluate() answers in the order asked, not in id order.
        const std::vector<uint64_t> reversed(valid_ids.rbegin(), valid_ids.rend());
        const std::vector<Metrics> mr = be->evaluate(req, reversed);
        ASSERT_EQ(mr.size(), reversed.size());
        for (size_t i = 0; i < reversed.size(); ++i)
          ASSERT_TRUE(test::metrics_near(mr[i], ms[ms.size() - 1 - i], 0, 0))
              << "id " << reversed[i];
        std::vector<Ranked> passing;
        for (size_t i = 0; i < valid_ids.size(); ++i) {
          if (!passes_constraints(ms[i], req.rank)) continue;
          Ranked k;
          k.combo = g.decode(valid_ids[i]);
          k.metrics = ms[i];
          k.objective = objective_value(ms[i], obj);
          passing.push_back(k);
        }
        EXPECT_EQ(r.evaluated, valid_ids.size());
        EXPECT_EQ(r.skipped, g.size() - valid_ids.size());
        EXPECT_EQ(r.ranked, passing.size());
        if (constrained) {
          EXPECT_LT(passing.size(), valid_ids.size())
              << "the constraints should bite on this series";
        }
        EXPECT_EQ(test::ids_of(r.top), brute_top(passing, req.rank.top));
        for (const Ranked& k : r.top) {
          SCOPED_TRACE("id=" + std::to_string(k.combo.id));
          const size_t at = static_cast<size_t>(
              std::find(valid_ids.begin(), valid_ids.end(), k.combo.id) - valid_ids.begin());
          ASSERT_LT(at, valid_ids.size());
          EXPECT_TRUE(test::metrics_near(k.metrics, ms[at]));
          EXPECT_EQ(k.objective, objective_value(k.metrics, obj));
          EXPECT_TRUE(passes_constraints(k.metrics, req.rank));
        }
      }
    }
  }
}

TEST(SweepRanking, ConstantPricesTieEverywhereLowerIdWins) {
  // Every comparison is equal, nothing ever trades, every metric is 0: with min_trades = 0 all
  // valid combos tie and the top K are the K lowest valid ids.
  const Series s = test::constant_series(400, 123.25);
  Grid ma = small_ma_grid();
  Grid ch;
  ch.family = Family::channel_breakout;
  ch.n = {5, 10, 20};
  ch.source = {Source::close, Source::high_low};
  ch.side = {Side::long_short, Side::long_only};
  ch.vol_short = {5, 10};
  ch.vol_long = {10, 30};
  ch.vol_threshold = {0.5, 1.5};
  for (const Grid& g : {ma, ch}) {
    std::vector<uint64_t> lowest;
    for (uint64_t id = 0; id < g.size() && lowest.size() < 10; ++id)
      if (g.decode(id).valid()) lowest.push_back(id);
    for (const char* name : {"cpu_ref", "cpu"}) {
      for (Objective obj : {Objective::sharpe, Objective::total_return, Objective::profit_factor}) {
        SCOPED_TRACE(std::string("backend=") + name +
                     " family=" + std::string(to_string(g.family)) +
                     " objective=" + std::string(to_string(obj)));
        auto be = make_backend(name);
        SweepRequest req;
        req.history = HistoryView::of(s);
        req.strategy.grid = g;
        req.strategy.fill = Fill::next_open;
        req.window = {s.size(), 250, 90};
        req.rank.objective = obj;
        req.rank.min_trades = 0;
        const SweepResult r = be->sweep(req);
        EXPECT_EQ(test::ids_of(r.top), lowest);
        for (const Ranked& k : r.top) {
          EXPECT_EQ(k.metrics.trades, 0);
          EXPECT_EQ(k.metrics.flat_bars, 250);
          EXPECT_EQ(k.metrics.total_return, 0.0);
          EXPECT_EQ(k.metrics.sharpe, 0.0);
          EXPECT_EQ(k.metrics.max_drawdown, 0.0);
        }
        // With the default min_trades = 1 nothing ranks.
        req.rank.min_trades = 1;
        const SweepResult none = be->sweep(req);
        EXPECT_EQ(none.ranked, 0u);
        EXPECT_TRUE(none.top.empty());
      }
    }
  }
}

}  // namespace
}  // namespace wfod
