// Sweeps and evaluate() under a memory budget (SweepRequest::memory_budget): a budget far
// below the grid's indicator rows makes the cpu backend run tile by tile (evaluate() batch
// by batch) and cpu_ref evict series between combos; every result must equal the
// one-pass run's bit for bit, and a budget below one combo's rows is an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/sweep_tiles.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

// Metrics is plain doubles and int64s: equal objects have equal bytes (NaN included).
::testing::AssertionResult identical(const Metrics& a, const Metrics& b) {
  static_assert(sizeof(Metrics) == 16 * 8, "Metrics has no padding");
  if (std::memcmp(&a, &b, sizeof a) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "sharpe " << a.sharpe << " vs " << b.sharpe << ", trades "
                                       << a.trades << " vs " << b.trades;
}

struct Case {
  const char* name;
  Grid grid;
  size_t bars = 1500;  // history; the window is all but the warm-up
};

std::vector<Case> cases() {
  std::vector<Case> out;
  Grid ma;
  ma.family = Family::ma_cross;
  ma.fast = parse_int_axis("2:40:6");
  ma.slow = parse_int_axis("5:120:12");
  ma.ma = {MaType::sma, MaType::ema, MaType::hma};
  ma.side = {Side::long_short, Side::long_only};
  ma.entry = {Entry::state, Entry::cross};
  out.push_back({"ma_cross", ma});
  Grid vol = ma;
  vol.ma = {MaType::wma};
  vol.side = {Side::long_short};
  vol.vol_short = {3, 8, 30};
  vol.vol_long = {10, 25};
  vol.vol_threshold = {0.8, 1.2};
  out.push_back({"ma_cross_vol", vol});
  // SPEC §5b's stop axes sit between the family's and the filter's: tiles cut them too (a
  // stop_loss of 1 makes a third of the combos invalid; trailing_stop not given is {0}).
  Grid stops = vol;
  stops.fast = parse_int_axis("2:40:12");
  stops.slow = parse_int_axis("5:120:24");
  stops.stop_loss = {0, 0.02, 1.0};
  stops.take_profit = {0.05};
  out.push_back({"ma_cross_vol_stops", stops});
  Grid ch;
  ch.family = Family::channel_breakout;
  ch.n = parse_int_axis("3:90:8");
  ch.source = {Source::close, Source::high_low};
  ch.side = {Side::long_short, Side::long_only};
  out.push_back({"channel", ch});
  Grid few;  // few lane groups on a long window: the sweep cuts time too
  few.family = Family::ma_cross;
  few.fast = {3, 9};
  few.slow = {20, 60};
  out.push_back({"few_groups_time_chunks", few, 6000});
  Grid many;  // enough groups not to cut time, but a tile of one pair would: it must not
  many.family = Family::ma_cross;
  many.fast = parse_int_axis("2:20:3");
  many.slow = parse_int_axis("25:60:5");
  many.ma = {MaType::sma, MaType::ema};
  out.push_back({"many_groups_long_window", many, 4800});
  return out;
}

// The bar tables, the fewest rows one combo reads, and a little for lane groups.
size_t tiny_budget(const Grid& g, size_t bars) {
  return (2 + (g.has_vol_filter() ? 4 : 2)) * bars * sizeof(double) + 1024;
}

TEST(SweepBudget, TinyBudgetGivesTheOnePassResultsBitForBit) {
  for (const Case& c : cases()) {
    const Series s = test::random_walk(c.bars, 4242, 50, 0.012, 0.003);
    const size_t warmup = 3 * static_cast<size_t>(c.grid.max_period());
    for (const char* name : {"cpu", "cpu_ref"}) {
      SCOPED_TRACE(std::string(c.name) + " backend=" + name);
      auto be = make_backend(name);
      SweepRequest req;
      req.history = HistoryView::of(s);
      req.strategy.grid = c.grid;
      req.strategy.costs.commission_bps = 1;
      req.window = {s.size(), s.size() - 1 - warmup, warmup};
      req.rank.top = 25;
      req.rank.min_trades = 3;
      req.threads = 2;
      req.memory_budget = size_t{1} << 30;  // every row at once: one tile
      const SweepResult whole = be->sweep(req);
      // Room for the bar tables and one combo's rows: a tile per pair of periods.
      req.memory_budget = tiny_budget(c.grid, s.size());
      if (std::string(name) == "cpu") {
        const auto plan =
            cpu::plan_tiles(c.grid, s.size(), req.memory_budget - 2 * s.size() * sizeof(double));
        EXPECT_GE(plan.tiles, 4u);
      }
      const SweepResult tiled = be->sweep(req);
      EXPECT_EQ(tiled.evaluated, whole.evaluated);
      EXPECT_EQ(tiled.skipped, whole.skipped);
      EXPECT_EQ(tiled.ranked, whole.ranked);
      ASSERT_TRUE(tiled.unranked_by && whole.unranked_by);
      EXPECT_EQ(tiled.unranked_by->min_trades, whole.unranked_by->min_trades);
      ASSERT_EQ(tiled.top.size(), whole.top.size());
      for (size_t i = 0; i < whole.top.size(); ++i) {
        EXPECT_EQ(tiled.top[i].combo.id, whole.top[i].combo.id) << "rank " << i;
        EXPECT_TRUE(identical(tiled.top[i].metrics, whole.top[i].metrics)) << "rank " << i;
      }

      // evaluate(): every valid id, in an order that mixes periods, batch by batch.
      std::vector<uint64_t> ids;
      for (uint64_t id = c.grid.size(); id-- > 0;)
        if (c.grid.decode(id).valid()) ids.push_back(id);
      req.memory_budget = size_t{1} << 30;
      const std::vector<Metrics> one = be->evaluate(req, ids);
      req.memory_budget = tiny_budget(c.grid, s.size());
      const std::vector<Metrics> batched = be->evaluate(req, ids);
      ASSERT_EQ(batched.size(), one.size());
      for (size_t i = 0; i < one.size(); ++i)
        EXPECT_TRUE(identical(batched[i], one[i])) << "id " << ids[i];
    }
  }
}

TEST(SweepBudget, BudgetBelowOneCombosRowsIsAnError) {
  const Series s = test::random_walk(3000, 7);
  for (const char* name : {"cpu", "cpu_ref"}) {
    SCOPED_TRACE(name);
    auto be = make_backend(name);
    SweepRequest req;
    req.history = HistoryView::of(s);
    req.strategy.grid = cases()[0].grid;
    req.window = {s.size(), 2000, 120};
    req.memory_budget = s.size() * sizeof(double);  // one row: not one combo's two
    try {
      be->sweep(req);
      ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("memory budget"), std::string::npos) << e.what();
    }
    const uint64_t id[] = {1};
    EXPECT_THROW(be->evaluate(req, id), std::invalid_argument);
  }
}

// Tiles cover the grid exactly once, whatever the budget.
TEST(SweepBudget, TilesCoverEveryIdOnce) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    for (size_t rows : {4, 7, 30, 1000}) {
      const size_t bars = 1000;
      const auto plan = cpu::plan_tiles(c.grid, bars, rows * bars * sizeof(double) + 4096);
      std::vector<int> seen(c.grid.size(), 0);
      for (size_t k = 0; k < plan.tiles; ++k) {
        const cpu::Tile t = cpu::tile_at(c.grid, plan, k);
        uint64_t last = 0;
        bool first = true;
        cpu::for_each_id(c.grid, t, [&](uint64_t id) {
          ASSERT_LT(id, c.grid.size());
          EXPECT_TRUE(first || id > last) << "ids increase inside a tile";
          first = false;
          last = id;
          ++seen[id];
          // The tile's grid holds the combo's values.
          const Combo combo = c.grid.decode(id);
          auto holds = [](const auto& values, auto v) {
            return std::find(values.begin(), values.end(), v) != values.end();
          };
          if (combo.family == Family::ma_cross) {
            EXPECT_TRUE(holds(t.grid.fast, combo.fast));
            EXPECT_TRUE(holds(t.grid.slow, combo.slow));
          }
          if (combo.has_vol) {
            EXPECT_TRUE(holds(t.grid.vol_short, combo.vol_short));
            EXPECT_TRUE(holds(t.grid.vol_threshold, combo.vol_threshold));
          }
          if (combo.has_stops) {  // an axis not given stays empty: {0}
            EXPECT_TRUE(t.grid.has_stops());
            auto stop_holds = [&](const std::vector<double>& v, double x) {
              return v.empty() ? x == 0 : holds(v, x);
            };
            EXPECT_TRUE(stop_holds(t.grid.stop_loss, combo.stop_loss));
            EXPECT_TRUE(stop_holds(t.grid.take_profit, combo.take_profit));
            EXPECT_TRUE(stop_holds(t.grid.trailing_stop, combo.trailing_stop));
          }
        });
      }
      for (uint64_t id = 0; id < c.grid.size(); ++id) EXPECT_EQ(seen[id], 1) << "id " << id;
    }
  }
}

}  // namespace
}  // namespace wfod
