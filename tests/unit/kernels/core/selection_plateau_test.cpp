// Plateau-centred selection (docs/spec-10-selection.md §10.2): the stencil against a brute
// force over all pairs of combos on seeded random grids, states and objectives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "support/sanitizers.hpp"
#include "wfod/ranking.hpp"
#include "wfod/selection/plateau.hpp"

namespace wfod::selection {
namespace {

// Plain: decode both ids, compare coordinates axis by axis, collect, sort.
std::vector<double> brute_scores(const std::vector<size_t>& sizes, const std::vector<int>& radii,
                                 const std::vector<double>& obj,
                                 const std::vector<ComboState>& state, PlateauStat stat) {
  const size_t total = obj.size();
  auto coords = [&](size_t id) {
    std::vector<long> c;
    for (size_t s : sizes) {
      c.push_back(static_cast<long>(id % s));
      id /= s;
    }
    return c;
  };
  double worst = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < total; ++i)
    if (state[i] == ComboState::ranked && !std::isnan(obj[i])) worst = std::min(worst, obj[i]);
  std::vector<double> out(total, NAN);
  for (size_t i = 0; i < total; ++i) {
    if (state[i] != ComboState::ranked || std::isnan(obj[i])) continue;
    const auto ci = coords(i);
    std::vector<double> v;
    for (size_t j = 0; j < total; ++j) {
      const auto cj = coords(j);
      bool in = true;
      for (size_t a = 0; a < sizes.size(); ++a) in = in && std::labs(ci[a] - cj[a]) <= radii[a];
      if (!in || state[j] == ComboState::invalid) continue;
      v.push_back(state[j] == ComboState::ranked && !std::isnan(obj[j]) ? obj[j] : worst);
    }
    if (stat.mean) {
      double s = 0;
      for (double x : v) s += x;  // increasing id order, as the stencil visits them
      out[i] = s / static_cast<double>(v.size());
    } else {
      std::sort(v.begin(), v.end());
      const double h = static_cast<double>(v.size() - 1) * stat.q;
      const size_t lo = static_cast<size_t>(std::floor(h));
      out[i] = lo + 1 < v.size() && v[lo + 1] != v[lo]
                   ? v[lo] + (h - static_cast<double>(lo)) * (v[lo + 1] - v[lo])
                   : v[lo];
    }
  }
  return out;
}

TEST(Plateau, MatchesBruteForce) {
  for (uint64_t seed = 1; seed <= test::property_cases(300); ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<size_t> sizes(static_cast<size_t>(pick(1, 4)));
    std::vector<int> radii(sizes.size());
    size_t total = 1;
    for (size_t a = 0; a < sizes.size(); ++a) {
      sizes[a] = static_cast<size_t>(pick(1, 7));
      radii[a] = pick(0, 3);
      total *= sizes[a];
    }
    std::vector<double> obj(total);
    std::vector<ComboState> state(total);
    for (size_t i = 0; i < total; ++i) {
      const int s = pick(0, 9);
      state[i] = s == 0 ? ComboState::invalid : s == 1 ? ComboState::unranked : ComboState::ranked;
      obj[i] = pick(0, 19) == 0 ? NAN : pick(0, 4) == 0 ? 0.5 : std::normal_distribution<>()(rng);
    }
    const PlateauStat stats[] = {{true, 0}, {false, 0.25}, {false, 0}, {false, 0.5}};
    for (const PlateauStat stat : stats) {
      std::vector<double> scores;
      const auto best = plateau_select(sizes, radii, obj, state, stat, &scores);
      const auto want = brute_scores(sizes, radii, obj, state, stat);
      std::optional<size_t> want_best;
      for (size_t i = 0; i < total; ++i) {
        if (std::isnan(want[i])) {
          EXPECT_TRUE(std::isnan(scores[i])) << i;
          continue;
        }
        EXPECT_DOUBLE_EQ(scores[i], want[i]) << i;
        if (!want_best || ranks_before(want[i], i, want[*want_best], *want_best)) want_best = i;
      }
      ASSERT_EQ(best.has_value(), want_best.has_value());
      if (best) {
        EXPECT_EQ(best->id, *want_best);
      }
    }
  }
}

TEST(Plateau, PrefersBroadPlateauOverSpike) {
  // 1-D: a lone spike at 2 (value 10) and a broad shelf 6..9 (value 5).
  const std::vector<size_t> sizes{10};
  const std::vector<int> radii{1};
  std::vector<double> obj{0, 0, 10, 0, 0, 0, 5, 5, 5, 5};
  std::vector<ComboState> st(10, ComboState::ranked);
  const auto best = plateau_select(sizes, radii, obj, st, {true, 0});
  ASSERT_TRUE(best);
  EXPECT_EQ(best->id, 7u);  // first full-shelf centre (ties by lower id)
  EXPECT_EQ(best->neighbours, 3u);
  // Nothing ranked: no winner.
  std::vector<ComboState> none(10, ComboState::unranked);
  EXPECT_FALSE(plateau_select(sizes, radii, obj, none, {true, 0}));
}

TEST(Plateau, RadiiFromSpec) {
  Grid g;
  g.fast = {1, 2};
  g.slow = {3, 4, 5};
  g.ma = {MaType::sma, MaType::ema};
  SelectionSpec spec;
  spec.plateau_radius = 2;
  spec.plateau_radius_axes = {{"slow", 1}};
  const auto r = plateau_radii(g, spec);
  ASSERT_EQ(r.size(), g.axes().size());
  EXPECT_EQ(r[0], 2);  // fast
  EXPECT_EQ(r[1], 1);  // slow, overridden
  EXPECT_EQ(r[2], 0);  // ma: categorical
  spec.plateau_radius_axes = {{"nope", 1}};
  EXPECT_THROW(plateau_radii(g, spec), std::invalid_argument);
  // Bollinger: style is categorical (SPEC §5a), k numeric like n.
  Grid b;
  b.family = Family::bollinger;
  b.n = {10, 20, 30};
  b.k = {1.0, 2.0};
  b.style = {Style::reversion, Style::breakout};
  spec.plateau_radius_axes = {};
  const auto rb = plateau_radii(b, spec);
  const std::vector<AxisInfo> axes = b.axes();
  ASSERT_EQ(rb.size(), axes.size());
  for (size_t a = 0; a < axes.size(); ++a)
    EXPECT_EQ(rb[a], axes[a].name == "style" || axes[a].name == "side" ? 0 : 2) << axes[a].name;
  EXPECT_EQ(to_string(parse_plateau_stat("q25")), "q25");
  EXPECT_EQ(parse_plateau_stat("median").q, 0.5);
  EXPECT_THROW(parse_plateau_stat("q5"), std::invalid_argument);
}

}  // namespace
}  // namespace wfod::selection
