// The level families' grids (SPEC §5, v1.1): bollinger (n, k, style, side) and rsi_reversion
// (n, lo, hi, side) decode mixed-radix in canonical order, count valid and skipped combos as
// decoding every id does, reject what no combo can mean, read from TOML with errors naming
// the key, and name their parameters once for every printer (wfod/grid_params.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "wfod/config/config.hpp"
#include "wfod/grid.hpp"
#include "wfod/grid_params.hpp"

namespace wfod {
namespace {

Grid bollinger_grid() {
  Grid g;
  g.family = Family::bollinger;
  g.n = {1, 2, 20};
  g.k = {0.0, 1.5, 2.0};
  g.style = {Style::reversion, Style::breakout};
  g.side = {Side::long_short, Side::long_only};
  return g;
}

Grid rsi_grid() {
  Grid g;
  g.family = Family::rsi_reversion;
  g.n = {1, 7, 14};
  g.lo = {20, 30, 75};
  g.hi = {70, 80};
  g.side = {Side::long_short};
  return g;
}

TEST(LevelFamilyGrid, DecodeIsMixedRadixInCanonicalOrder) {
  const Grid g = bollinger_grid();
  ASSERT_EQ(g.size(), 3u * 3 * 2 * 2);
  uint64_t id = 0;
  for (Side side : g.side)
    for (Style style : g.style)
      for (double k : g.k)
        for (int n : g.n) {
          const Combo c = g.decode(id);
          EXPECT_EQ(c.family, Family::bollinger);
          EXPECT_EQ(c.n, n);
          EXPECT_EQ(c.k, k);
          EXPECT_EQ(c.style, style);
          EXPECT_EQ(c.side, side);
          ++id;
        }
  const Grid r = rsi_grid();
  const Combo c = r.decode(1 + 3 * 2 + 9 * 1);  // n 7, lo 75, hi 80
  EXPECT_EQ(c.n, 7);
  EXPECT_EQ(c.lo, 75);
  EXPECT_EQ(c.hi, 80);
  std::vector<std::string> names;
  for (const AxisInfo& a : r.axes()) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string>{"n", "lo", "hi", "side"}));
}

TEST(LevelFamilyGrid, CountCombosMatchesDecodingEveryId) {
  for (Grid g : {bollinger_grid(), rsi_grid()}) {
    for (bool vol : {false, true}) {
      if (vol) {
        g.vol_short = {5, 20};
        g.vol_long = {10, 20};
        g.vol_threshold = {1.0};
      }
      SCOPED_TRACE(std::string(to_string(g.family)) + (vol ? " vol" : ""));
      uint64_t valid = 0, rule = 0, vols = 0;
      for (uint64_t id = 0; id < g.size(); ++id) {
        const Combo c = g.decode(id);
        valid += c.valid();
        const bool family_ok =
            c.family == Family::bollinger ? c.n >= 2 && c.k > 0 : c.n >= 2 && c.lo < c.hi;
        EXPECT_EQ(c.family_valid(), family_ok);
        rule += !family_ok;
        vols += c.has_vol && c.vol_short >= c.vol_long;
      }
      const ComboCount n = count_combos(g);
      EXPECT_EQ(n.total, g.size());
      EXPECT_EQ(n.valid, valid);
      EXPECT_EQ(n.family_rule, rule);
      EXPECT_EQ(n.vol_short_not_below_long, vols);
      EXPECT_GT(n.valid, 0u);
    }
  }
  EXPECT_EQ(family_rule_text(Family::bollinger), "n < 2 or k <= 0");
  EXPECT_EQ(family_rule_text(Family::rsi_reversion), "n < 2 or lo >= hi");
  // Bollinger reads SMA(n) and STD(n); RSI one row per n.
  EXPECT_EQ(indicator_series(bollinger_grid()), 2u * 3);
  EXPECT_EQ(indicator_series(rsi_grid()), 3u);
}

// Counting valid rsi combos is not quadratic in the level axes: each may hold 10^7 values, and
// a product of two such axes compared pair by pair would hold the plan line for hours.
TEST(LevelFamilyGrid, CountingLevelPairsOfHugeAxesIsFast) {
  Grid g;
  g.family = Family::rsi_reversion;
  g.n = {14};
  for (int i = 1; i <= 2'000'000; ++i) {
    g.lo.push_back(i * 1e-5);       // 0.00001 .. 20
    g.hi.push_back(19 + i * 1e-5);  // 19.00001 .. 39
  }
  // The expected count by a two-pointer merge over the sorted axes (both already sorted).
  uint64_t want = 0;
  size_t j = 0;
  for (double lo : g.lo) {
    while (j < g.hi.size() && g.hi[j] <= lo) ++j;
    want += g.hi.size() - j;
  }
  const auto start = std::chrono::steady_clock::now();
  const ComboCount c = count_combos(g);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(c.valid, want);
  EXPECT_EQ(c.family_rule, c.total - want);
  // Pair by pair would be 4e12 comparisons (hours); the merge takes well under a second
  // optimised, ~10 s under the sanitizers on a loaded 2-core machine.
  EXPECT_LT(seconds, 60.0);
}

TEST(LevelFamilyGrid, ValidateRejectsWhatNoComboCanMean) {
  auto error_of = [](const Grid& g) -> std::string {
    try {
      g.validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of(bollinger_grid()), "");
  EXPECT_EQ(error_of(rsi_grid()), "");
  Grid g = bollinger_grid();
  g.n = {0, 20};
  EXPECT_NE(error_of(g).find("'n' must be >= 1"), std::string::npos);
  g = bollinger_grid();
  g.k = {std::numeric_limits<double>::infinity()};
  EXPECT_NE(error_of(g).find("'k' must be finite"), std::string::npos);
  g = bollinger_grid();
  g.k.clear();
  EXPECT_NE(error_of(g).find("bollinger grid needs 'k'"), std::string::npos);
  g = bollinger_grid();
  g.lo = {30};
  EXPECT_NE(error_of(g).find("'lo' is not a parameter of bollinger"), std::string::npos);
  for (double level : {0.0, 100.0, -5.0, std::nan("")}) {
    Grid r = rsi_grid();
    r.hi = {level};
    EXPECT_NE(error_of(r).find("strictly between 0 and 100"), std::string::npos) << level;
  }
  Grid r = rsi_grid();
  r.k = {2.0};
  EXPECT_NE(error_of(r).find("'k' is not a parameter of rsi_reversion"), std::string::npos);
  r = rsi_grid();
  r.fast = {5};
  EXPECT_NE(error_of(r).find("'fast' is not a parameter of rsi_reversion"), std::string::npos);
  r = rsi_grid();
  r.lo = {20, 20};
  EXPECT_NE(error_of(r).find("'lo' lists 20 more than once"), std::string::npos);
}

TEST(LevelFamilyGrid, ParamsAreNamedOnceInCanonicalOrder) {
  const Grid g = bollinger_grid();
  const Combo c = g.decode(2 + 3 * 1 + 9 * 1);  // n 20, k 1.5, breakout, long_short
  const std::vector<ParamValue> p = combo_params(c);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].name, "n");
  EXPECT_EQ(param_value_text(p[0]), "20");
  EXPECT_EQ(p[1].name, "k");
  EXPECT_EQ(p[1].kind, ParamKind::real);
  EXPECT_EQ(param_value_text(p[1]), "1.5");
  EXPECT_EQ(param_value_text(p[2]), "breakout");
  EXPECT_EQ(param_value_text(p[3]), "long_short");
  const std::vector<AxisValues> axes = axis_values(rsi_grid());
  ASSERT_EQ(axes.size(), 4u);
  EXPECT_EQ(axes[1].name, "lo");
  EXPECT_EQ(axes[1].numbers, (std::vector<double>{20, 30, 75}));
  EXPECT_EQ(parse_style("breakout"), Style::breakout);
  EXPECT_THROW(parse_style("mean"), std::invalid_argument);
  EXPECT_EQ(parse_family("rsi_reversion"), Family::rsi_reversion);
}

config::Config with_grid(std::string_view family, std::string_view grid) {
  const std::string text = "[[strategy]]\nname = \"s\"\nsymbols = [\"X\"]\nfamily = \"" +
                           std::string(family) + "\"\nwindow = 10\n[strategy.grid]\n" +
                           std::string(grid) + "\n";
  return config::parse_config(text, "t.toml");
}

std::string config_error(std::string_view family, std::string_view grid) {
  try {
    with_grid(family, grid);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(LevelFamilyGrid, TomlGridsOfBothFamilies) {
  const Grid b = with_grid("bollinger",
                           "n = \"10:50:20\"\nk = \"1.5:2.5:0.5\"\nstyle = [\"reversion\", "
                           "\"breakout\"]\nside = \"long_only\"")
                     .strategies.at(0)
                     .spec.grid;
  EXPECT_EQ(b.family, Family::bollinger);
  EXPECT_EQ(b.n, (std::vector<int>{10, 30, 50}));
  EXPECT_EQ(b.k, (std::vector<double>{1.5, 2.0, 2.5}));
  EXPECT_EQ(b.style.size(), 2u);
  const Grid d = with_grid("bollinger", "n = 20\nk = 2").strategies.at(0).spec.grid;
  EXPECT_EQ(d.style, std::vector<Style>{Style::reversion});  // the default style
  const Grid r = with_grid("rsi_reversion", "n = \"7:21:7\"\nlo = [20, 25.5]\nhi = 70")
                     .strategies.at(0)
                     .spec.grid;
  EXPECT_EQ(r.n, (std::vector<int>{7, 14, 21}));
  EXPECT_EQ(r.lo, (std::vector<double>{20, 25.5}));
  EXPECT_EQ(r.hi, std::vector<double>{70});

  std::string e = config_error("bollinger", "n = 20\nk = 2\nfast = 5");
  EXPECT_NE(e.find("t.toml:9"), std::string::npos) << e;
  EXPECT_NE(e.find("strategy[0].grid.fast"), std::string::npos) << e;
  EXPECT_NE(e.find("not a parameter of family bollinger"), std::string::npos) << e;
  e = config_error("bollinger", "n = 20");
  EXPECT_NE(e.find("k"), std::string::npos) << e;
  e = config_error("rsi_reversion", "n = 14\nlo = 30\nhi = 170");
  EXPECT_NE(e.find("strictly between 0 and 100"), std::string::npos) << e;
  e = config_error("rsi_reversion", "n = 14\nlo = 30\nhi = 70\nstyle = \"breakout\"");
  EXPECT_NE(e.find("belongs to bollinger"), std::string::npos) << e;
  e = config_error("bollinger", "n = 20\nk = 2\nstyle = \"fade\"");
  EXPECT_NE(e.find("unknown style 'fade' (expected reversion|breakout)"), std::string::npos) << e;
}

}  // namespace
}  // namespace wfod
