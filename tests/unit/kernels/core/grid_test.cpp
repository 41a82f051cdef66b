// Parameter grids (SPEC §5): axis text parsing (exact decimal ranges), mixed-radix combo ids
// against a brute-force nested loop, validity, and invalid combos counted as skipped by sweeps.
#include "wfod/grid.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

double strtod_of(const char* s) { return std::strtod(s, nullptr); }

// --- Axis text ---------------------------------------------------------------------------------

TEST(ParseIntAxis, ScalarsListsRanges) {
  EXPECT_EQ(parse_int_axis("12"), (std::vector<int>{12}));
  EXPECT_EQ(parse_int_axis("1"), (std::vector<int>{1}));
  EXPECT_EQ(parse_int_axis("5,10,20"), (std::vector<int>{5, 10, 20}));
  EXPECT_EQ(parse_int_axis("20,5,10"), (std::vector<int>{20, 5, 10}));     // order as given
  EXPECT_EQ(parse_int_axis("5:20:5"), (std::vector<int>{5, 10, 15, 20}));  // inclusive
  EXPECT_EQ(parse_int_axis("5:21:5"), (std::vector<int>{5, 10, 15, 20}));  // stop not on the grid
  EXPECT_EQ(parse_int_axis("7:7:1"), (std::vector<int>{7}));
  EXPECT_EQ(parse_int_axis("7:7:3"), (std::vector<int>{7}));
  EXPECT_EQ(parse_int_axis("1:10:1").size(), 10u);
  EXPECT_EQ(parse_int_axis("2:200:2").back(), 200);
}

TEST(ParseIntAxis, Errors) {
  for (const char* bad : {"", "5:20:0", "5:20:-5", "20:5:5", "20:5:-5", "abc", "5x", "x5", "5,,6",
                          "5,", ",5", "1:2", "1:2:3:4", "1.5", "5:10:1.5", "::", "5:a:1"}) {
    SCOPED_TRACE(std::string("text='") + bad + "'");
    EXPECT_THROW(parse_int_axis(bad), std::invalid_argument);
  }
}

// Found while fuzzing the config loader (fuzz/): a range end outside int was truncated
// ("4294967297:4294967297:1" gave {1}) and `v += step` overflowed long long near the top.
TEST(ParseIntAxis, RangeEndsOutsideIntAndHugeStepsAreErrors) {
  EXPECT_EQ(parse_int_axis("1:2:9223372036854775807"), (std::vector<int>{1}));
  EXPECT_EQ(parse_int_axis("-2147483647:2147483647:2147483647"),
            (std::vector<int>{-2147483647, 0, 2147483647}));
  for (const char* bad :
       {"4294967297:4294967297:1", "9223372036854775806:9223372036854775807:5",
        "-9223372036854775807:9223372036854775807:1", "2147483647:2147483648:1"}) {
    SCOPED_TRACE(std::string("text='") + bad + "'");
    EXPECT_THROW(parse_int_axis(bad), std::invalid_argument);
  }
}

TEST(ParseRealAxis, DecimalRangesAreExactInDecimal) {
  // SPEC §5: "0.6:1.2:0.2" is 0.6, 0.8, 1.0, 1.2: the doubles strtod gives for those decimals,
  // not 0.6 + k * 0.2 accumulated in binary (which gives 0.8000000000000002, ...).
  const std::vector<double> want = {strtod_of("0.6"), strtod_of("0.8"), strtod_of("1.0"),
                                    strtod_of("1.2")};
  EXPECT_EQ(parse_real_axis("0.6:1.2:0.2"), want);
  std::vector<double> tenths;
  for (const char* s :
       {"0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"})
    tenths.push_back(strtod_of(s));
  EXPECT_EQ(parse_real_axis("0:1:0.1"), tenths);
  EXPECT_EQ(parse_real_axis("0.1:0.35:0.1"),
            (std::vector<double>{strtod_of("0.1"), strtod_of("0.2"), strtod_of("0.3")}));
  EXPECT_EQ(parse_real_axis("1:2:0.25"), (std::vector<double>{1.0, 1.25, 1.5, 1.75, 2.0}));
  EXPECT_EQ(parse_real_axis("-0.5:0.5:0.5"), (std::vector<double>{-0.5, 0.0, 0.5}));
  EXPECT_EQ(parse_real_axis("1.5:1.5:0.1"), (std::vector<double>{1.5}));
  EXPECT_EQ(parse_real_axis("0.95:1.05:0.05"),
            (std::vector<double>{strtod_of("0.95"), strtod_of("1.00"), strtod_of("1.05")}));
}

TEST(ParseRealAxis, ScalarsAndLists) {
  EXPECT_EQ(parse_real_axis("1.5"), (std::vector<double>{1.5}));
  EXPECT_EQ(parse_real_axis("1"), (std::vector<double>{1.0}));
  EXPECT_EQ(parse_real_axis("0.8,1,1.2"),
            (std::vector<double>{strtod_of("0.8"), 1.0, strtod_of("1.2")}));
  EXPECT_EQ(parse_real_axis("0.3"), (std::vector<double>{strtod_of("0.3")}));
}

TEST(ParseRealAxis, Errors) {
  for (const char* bad : {"", "0.6:1.2:0", "0.6:1.2:-0.2", "1.2:0.6:0.2", "abc", "1.2x", "0.5,,1",
                          "0.5,", "0.6:1.2", "0.6:1.2:0.2:1", "nan", "inf", ":", "1..2"}) {
    SCOPED_TRACE(std::string("text='") + bad + "'");
    EXPECT_THROW(parse_real_axis(bad), std::invalid_argument);
  }
}

// Found while fuzzing the config loader (fuzz/): rescaling to the finest step's scale,
// stop - start and m += step overflowed long long (undefined behaviour), not errors.
TEST(ParseRealAxis, RangeOverflowIsAnError) {
  EXPECT_EQ(parse_real_axis("0:1:9007199254740993"), (std::vector<double>{0.0}));
  for (const char* bad :
       {"0:90071992547409920:0.000000000000001", "-90071992547409920:90071992547409920:0.01"}) {
    SCOPED_TRACE(std::string("text='") + bad + "'");
    EXPECT_THROW(parse_real_axis(bad), std::invalid_argument);
  }
}

TEST(Enums, NamesRoundTripAndUnknownThrows) {
  for (Family v : {Family::ma_cross, Family::channel_breakout})
    EXPECT_EQ(parse_family(to_string(v)), v);
  for (MaType v : {MaType::sma, MaType::ema, MaType::wma, MaType::hma})
    EXPECT_EQ(parse_ma(to_string(v)), v);
  for (Side v : {Side::long_short, Side::long_only}) EXPECT_EQ(parse_side(to_string(v)), v);
  for (Entry v : {Entry::state, Entry::cross}) EXPECT_EQ(parse_entry(to_string(v)), v);
  for (Source v : {Source::close, Source::high_low}) EXPECT_EQ(parse_source(to_string(v)), v);
  for (Fill v : {Fill::close, Fill::next_open}) EXPECT_EQ(parse_fill(to_string(v)), v);
  EXPECT_EQ(to_string(MaType::hma), "hma");
  EXPECT_EQ(to_string(Family::channel_breakout), "channel_breakout");
  EXPECT_EQ(to_string(Fill::next_open), "next_open");
  EXPECT_EQ(to_string(Source::high_low), "high_low");
  EXPECT_EQ(to_string(Side::long_only), "long_only");
  EXPECT_THROW(parse_ma("kama"), std::invalid_argument);
  EXPECT_THROW(parse_family(""), std::invalid_argument);
  EXPECT_THROW(parse_fill("open"), std::invalid_argument);
  EXPECT_THROW(parse_side("short_only"), std::invalid_argument);
}

// --- Mixed-radix ids ------------------------------------------------------------------------

// All combos of a grid by nested loops, the first canonical axis innermost (fastest).
std::vector<Combo> nested_loop_combos(const Grid& g) {
  std::vector<Combo> out;
  const bool vol = g.has_vol_filter();
  const std::vector<int> no_int{0};
  const std::vector<double> no_real{0};
  const auto& vs = vol ? g.vol_short : no_int;
  const auto& vl = vol ? g.vol_long : no_int;
  const auto& vt = vol ? g.vol_threshold : no_real;
  for (double th : vt)
    for (int l : vl)
      for (int s : vs) {
        auto add = [&](Combo c) {
          c.family = g.family;
          c.has_vol = vol;
          c.vol_short = s;
          c.vol_long = l;
          c.vol_threshold = th;
          c.id = out.size();
          out.push_back(c);
        };
        if (g.family == Family::ma_cross) {
          for (Entry e : g.entry)
            for (Side sd : g.side)
              for (MaType m : g.ma)
                for (int slow : g.slow)
                  for (int fast : g.fast) {
                    Combo c;
                    c.fast = fast;
                    c.slow = slow;
                    c.ma = m;
                    c.side = sd;
                    c.entry = e;
                    add(c);
                  }
        } else {
          for (Side sd : g.side)
            for (Source src : g.source)
              for (int n : g.n) {
                Combo c;
                c.n = n;
                c.source = src;
                c.side = sd;
                add(c);
              }
        }
      }
  return out;
}

void expect_same_combo(const Combo& got, const Combo& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.family, want.family);
  EXPECT_EQ(got.side, want.side);
  EXPECT_EQ(got.has_vol, want.has_vol);
  if (want.family == Family::ma_cross) {
    EXPECT_EQ(got.fast, want.fast);
    EXPECT_EQ(got.slow, want.slow);
    EXPECT_EQ(got.ma, want.ma);
    EXPECT_EQ(got.entry, want.entry);
  } else {
    EXPECT_EQ(got.n, want.n);
    EXPECT_EQ(got.source, want.source);
  }
  if (want.has_vol) {
    EXPECT_EQ(got.vol_short, want.vol_short);
    EXPECT_EQ(got.vol_long, want.vol_long);
    EXPECT_EQ(got.vol_threshold, want.vol_threshold);
  }
}

struct GridCase {
  const char* name;
  Grid grid;
  std::vector<AxisInfo> axes;
};

std::vector<GridCase> grid_cases() {
  std::vector<GridCase> cs;
  {
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {3, 5, 8};
    g.slow = {5, 10, 20, 30};
    g.ma = {MaType::sma, MaType::hma};
    g.side = {Side::long_short, Side::long_only};
    g.entry = {Entry::state, Entry::cross};
    cs.push_back(
        {"ma_cross_all_axes", g, {{"fast", 3}, {"slow", 4}, {"ma", 2}, {"side", 2}, {"entry", 2}}});
  }
  {
    Grid g;  // size-1 axes between varying ones, and the filter's axes after the family's
    g.family = Family::ma_cross;
    g.fast = {5};
    g.slow = {10, 20};
    g.ma = {MaType::ema};
    g.side = {Side::long_only};
    g.entry = {Entry::cross, Entry::state};
    g.vol_short = {5, 10, 20};
    g.vol_long = {20};
    g.vol_threshold = {0.8, 1.0, 1.2};
    cs.push_back({"ma_cross_size1_axes_vol",
                  g,
                  {{"fast", 1},
                   {"slow", 2},
                   {"ma", 1},
                   {"side", 1},
                   {"entry", 2},
                   {"vol_short", 3},
                   {"vol_long", 1},
                   {"vol_threshold", 3}}});
  }
  {
    Grid g;
    g.family = Family::channel_breakout;
    g.n = {10, 20, 55};
    g.source = {Source::close, Source::high_low};
    g.side = {Side::long_short, Side::long_only};
    g.vol_short = {10};
    g.vol_long = {10, 50};
    g.vol_threshold = {1.0, 1.5};
    cs.push_back({"channel_vol",
                  g,
                  {{"n", 3},
                   {"source", 2},
                   {"side", 2},
                   {"vol_short", 1},
                   {"vol_long", 2},
                   {"vol_threshold", 2}}});
  }
  {
    Grid g;
    g.family = Family::channel_breakout;
    g.n = {20};
    g.source = {Source::high_low};
    g.side = {Side::long_only};
    cs.push_back({"channel_single_combo", g, {{"n", 1}, {"source", 1}, {"side", 1}}});
  }
  return cs;
}

TEST(Grid, MixedRadixDecodeMatchesNestedLoops) {
  for (const GridCase& c : grid_cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_NO_THROW(c.grid.validate());
    const std::vector<AxisInfo> axes = c.grid.axes();
    ASSERT_EQ(axes.size(), c.axes.size());
    uint64_t product = 1;
    for (size_t i = 0; i < axes.size(); ++i) {
      EXPECT_EQ(axes[i].name, c.axes[i].name) << "axis " << i;
      EXPECT_EQ(axes[i].size, c.axes[i].size) << "axis " << i;
      product *= c.axes[i].size;
    }
    const std::vector<Combo> want = nested_loop_combos(c.grid);
    EXPECT_EQ(c.grid.size(), product);
    ASSERT_EQ(c.grid.size(), want.size());
    for (uint64_t id = 0; id < want.size(); ++id) {
      SCOPED_TRACE("id=" + std::to_string(id));
      expect_same_combo(c.grid.decode(id), want[id]);
    }
  }
}

bool brute_valid(const Combo& c) {
  if (c.family == Family::ma_cross && !(c.fast < c.slow)) return false;
  if (c.has_vol && !(c.vol_short < c.vol_long)) return false;
  return true;
}

TEST(Grid, ValidityAndMaxPeriod) {
  for (const GridCase& c : grid_cases()) {
    SCOPED_TRACE(c.name);
    for (uint64_t id = 0; id < c.grid.size(); ++id) {
      const Combo k = c.grid.decode(id);
      EXPECT_EQ(k.valid(), brute_valid(k)) << "id=" << id;
    }
  }
  const std::vector<GridCase> cs = grid_cases();
  EXPECT_EQ(cs[0].grid.max_period(), 30);
  EXPECT_EQ(cs[1].grid.max_period(), 20);
  EXPECT_EQ(cs[2].grid.max_period(), 55);
  EXPECT_EQ(cs[3].grid.max_period(), 20);
  Grid g = cs[0].grid;
  g.vol_short = {10};
  g.vol_long = {60};
  g.vol_threshold = {1.0};
  EXPECT_EQ(g.max_period(), 60);
  EXPECT_EQ(default_warmup(g), 180u);  // SPEC §3: 3 x the largest period
  EXPECT_EQ(default_warmup(cs[2].grid), 165u);
}

TEST(Grid, ValidateRejectsIncompleteGrids) {
  Grid ok = grid_cases()[0].grid;
  EXPECT_NO_THROW(ok.validate());
  Grid g = ok;
  g.fast.clear();
  EXPECT_THROW(g.validate(), std::invalid_argument);
  g = ok;
  g.slow = {0, 10};
  EXPECT_THROW(g.validate(), std::invalid_argument);
  g = ok;
  g.vol_short = {5};  // filter only partly given
  EXPECT_THROW(g.validate(), std::invalid_argument);
  g = ok;
  g.ma.clear();
  EXPECT_THROW(g.validate(), std::invalid_argument);
  Grid ch = grid_cases()[2].grid;
  EXPECT_NO_THROW(ch.validate());
  ch.n = {};
  EXPECT_THROW(ch.validate(), std::invalid_argument);
  ch = grid_cases()[2].grid;
  ch.vol_long = {0};
  EXPECT_THROW(ch.validate(), std::invalid_argument);
}

// A value listed twice would be evaluated twice and count twice among the DSR's trials:
// every grid entry point (flags, TOML, the engine's check_window) rejects it, naming the
// axis and the value.
TEST(Grid, ValidateRejectsRepeatedValues) {
  const auto message_of = [](const Grid& g) {
    try {
      g.validate();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  Grid g = grid_cases()[0].grid;
  g.fast = {5, 5, 5, 5, 10};
  ASSERT_TRUE(g.repeated_value());
  EXPECT_EQ(g.repeated_value()->axis, "fast");
  EXPECT_EQ(g.repeated_value()->value, "5");
  EXPECT_NE(message_of(g).find("grid axis 'fast' lists 5 more than once"), std::string::npos)
      << message_of(g);
  g = grid_cases()[0].grid;
  g.ma = {MaType::sma, MaType::ema, MaType::sma};
  EXPECT_NE(message_of(g).find("'ma' lists sma more than once"), std::string::npos)
      << message_of(g);
  g = grid_cases()[0].grid;
  g.vol_short = {5};
  g.vol_long = {30};
  g.vol_threshold = parse_real_axis("1.0,0.8,1");  // 1.0 and 1 are the same double
  EXPECT_NE(message_of(g).find("'vol_threshold' lists 1 more than once"), std::string::npos)
      << message_of(g);
  // Ranges give distinct values: one-value ranges and decimal steps make no near-repeats.
  g.vol_threshold = parse_real_axis("0.8:1.2:0.2");
  g.fast = parse_int_axis("5:5:1");
  EXPECT_FALSE(g.repeated_value());
  EXPECT_NO_THROW(g.validate());
  g.vol_threshold = parse_real_axis("0:1:0.01");
  EXPECT_EQ(g.vol_threshold.size(), 101u);
  EXPECT_FALSE(g.repeated_value());
  Grid ch = grid_cases()[2].grid;
  ch.side = {Side::long_only, Side::long_only};
  EXPECT_EQ(ch.repeated_value()->axis, "side");
  EXPECT_THROW(ch.validate(), std::invalid_argument);
}

TEST(Grid, EmptyGridIsAnErrorNotAnEmptyResult) {
  const Series s = test::random_walk(300, 5);
  Grid g = grid_cases()[0].grid;
  g.slow.clear();
  EXPECT_EQ(g.size(), 0u);
  for (const char* name : {"cpu_ref", "cpu"}) {
    SCOPED_TRACE(name);
    auto be = make_backend(name);
    SweepRequest req;
    req.history = HistoryView::of(s);
    req.strategy.grid = g;
    req.window = {s.size(), 100, 30};
    EXPECT_THROW(be->sweep(req), std::invalid_argument);
  }
}

// --- Invalid combos are skipped by sweeps -------------------------------------------------------

// count_combos counts from the axes what decoding every id finds, reasons included.
TEST(Grid, CountCombosMatchesDecodingEveryId) {
  std::vector<GridCase> cases = grid_cases();
  Grid none;  // every combo invalid: fast >= slow
  none.fast = {50, 55, 60};
  none.slow = {10, 20, 30};
  cases.push_back({"no_valid_combo", none, {}});
  Grid both = none;  // invalid for both reasons, some for one
  both.fast = {5, 50};
  both.vol_short = {10, 40};
  both.vol_long = {20, 30};
  both.vol_threshold = {1.0};
  cases.push_back({"both_reasons", both, {}});
  for (const GridCase& c : cases) {
    SCOPED_TRACE(c.name);
    uint64_t valid = 0, fast_ge_slow = 0, vol_ge = 0;
    for (uint64_t id = 0; id < c.grid.size(); ++id) {
      const Combo k = c.grid.decode(id);
      valid += brute_valid(k);
      fast_ge_slow += k.family == Family::ma_cross && k.fast >= k.slow;
      vol_ge += k.has_vol && k.vol_short >= k.vol_long;
    }
    const ComboCount n = count_combos(c.grid);
    EXPECT_EQ(n.total, c.grid.size());
    EXPECT_EQ(n.valid, valid);
    EXPECT_EQ(n.invalid(), c.grid.size() - valid);
    EXPECT_EQ(n.family_rule, fast_ge_slow);
    EXPECT_EQ(n.vol_short_not_below_long, vol_ge);
  }
  EXPECT_EQ(count_combos(none).valid, 0u);
  // Series: (ma, period) of ma_cross; upper and lower per (source, n); one per vol period.
  EXPECT_EQ(indicator_series(grid_cases()[0].grid), 2u * 6);  // sma, hma x {3,5,8,10,20,30}
  EXPECT_EQ(indicator_series(grid_cases()[1].grid), 3u + 3);  // ema {5,10,20}; vol {5,10,20}
  EXPECT_EQ(indicator_series(grid_cases()[2].grid), 2u * 2 * 3 + 2);  // vol {10,50}
}

TEST(Grid, SweepCountsInvalidCombosAsSkipped) {
  const Series s = test::random_walk(900, 77, 30, 0.015, 0.004);
  for (const GridCase& c : grid_cases()) {
    uint64_t valid = 0;
    for (const Combo& k : nested_loop_combos(c.grid)) valid += brute_valid(k);
    for (const char* name : {"cpu_ref", "cpu"}) {
      SCOPED_TRACE(std::string(c.name) + " backend=" + name);
      auto be = make_backend(name);
      SweepRequest req;
      req.history = HistoryView::of(s);
      req.strategy.grid = c.grid;
      req.window = {s.size(), 600, static_cast<size_t>(c.grid.max_period())};
      req.rank.min_trades = 0;
      req.rank.max_drawdown = 1e9;
      req.rank.top = 1000;
      req.threads = 2;
      const SweepResult r = be->sweep(req);
      EXPECT_EQ(r.evaluated, valid);
      EXPECT_EQ(r.skipped, c.grid.size() - valid);
      EXPECT_EQ(r.ranked, valid);  // no constraint can fail here
      EXPECT_EQ(r.top.size(), valid);
      for (const Ranked& k : r.top)
        EXPECT_TRUE(brute_valid(c.grid.decode(k.combo.id))) << "ranked invalid id " << k.combo.id;
      for (uint64_t id = 0; id < c.grid.size(); ++id) {
        const uint64_t one[] = {id};
        if (!brute_valid(c.grid.decode(id))) {
          EXPECT_THROW(be->evaluate(req, one), std::invalid_argument) << "id=" << id;
        }
      }
    }
  }
}

}  // namespace
}  // namespace wfod
