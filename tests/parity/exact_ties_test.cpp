// The exact_ties parity cases (parity_test.cpp, test::tie_series) on the host: the tied
// combos' returns summed bar by bar are bit-equal (what every backend's canonical order
// sees), and summed per constant-position stretch from the prefix sums of r, as the cuda
// sweep's screen sums them (stretch_evaluator.cuh StretchAccount, on the tables that
// src/prefix_tables.hpp builds bit for bit like the device), some of them are not: without
// the canonical re-score (docs/spec-notes.md item 13) the cuda sweep would order those ties
// by their rounding, and the parity cases would fail on it.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "src/prefix_tables.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

uint64_t bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The window's sum of s_t bar by bar (SPEC §2 segments, the canonical order).
double per_bar_sum(const std::vector<int8_t>& p, const std::vector<double>& gap,
                   const std::vector<double>& body, double cost, size_t first, size_t last) {
  double sum = 0;
  for (size_t t = first; t < last; ++t) {
    const double a = t >= 2 ? p[t - 2] : 0, b = t >= 1 ? p[t - 1] : 0;
    const bool changed = a != b;
    const double exit_value = a * gap[t] - (changed ? cost * std::fabs(a) : 0.0);
    const double body_value = b * body[t] - (changed ? cost * std::fabs(b) : 0.0);
    sum += exit_value + body_value;
  }
  return sum;
}

// The same sum as the stretch evaluator forms it: prefix differences per stretch without a
// change, each change bar's own return.
double stretch_sum(const std::vector<int8_t>& p, const detail::PrefixTables& px, double cost,
                   size_t first, size_t last) {
  const double* r = px.prefix.data();  // sum r, index t + 1 = sum over u <= t
  double sum = 0;
  size_t stretch = first;
  auto flush = [&](double q, size_t a, size_t b) {
    if (b <= a || q == 0) return;
    sum += q * (r[b] - r[a]);
  };
  for (size_t t = first; t < last; ++t) {
    const double a = t >= 2 ? p[t - 2] : 0, b = t >= 1 ? p[t - 1] : 0;
    if (a == b) continue;
    flush(a, stretch, t);
    const double exit_value = a * px.gap[t] - cost * std::fabs(a);
    const double body_value = b * px.body[t] - cost * std::fabs(b);
    sum += exit_value + body_value;
    stretch = t + 1;
  }
  flush(last >= 2 ? p[last - 2] : 0, stretch, last);
  return sum;
}

TEST(ExactTies, TieSeriesSplitsStretchSumsOfCombosThatTieBarByBar) {
  const Series s = test::tie_series(40, 117);
  const HistoryView h = HistoryView::of(s);
  StrategySpec spec;
  spec.grid.family = Family::ma_cross;
  spec.grid.fast = {1, 2, 3};
  spec.grid.slow = {4};
  spec.grid.ma = {MaType::sma, MaType::wma};
  spec.grid.side = {Side::long_short, Side::long_only};
  spec.grid.entry = {Entry::state};
  const size_t warmup = static_cast<size_t>(spec.grid.max_period());
  const size_t first = warmup + 1, last = h.size();  // the parity case's window
  const double cost = spec.costs.per_unit();
  const detail::PrefixTables px = detail::build_prefix_tables(h, spec.fill, last, cost);
  auto ref = make_backend("cpu_ref");
  // Combos by their bar-by-bar sum's bits: each group ties exactly.
  std::map<uint64_t, std::vector<std::pair<uint64_t, double>>> groups;
  for (uint64_t id = 0; id < spec.grid.size(); ++id) {
    const std::vector<int8_t> p = ref->positions(h, spec, spec.grid.decode(id));
    const double canonical = per_bar_sum(p, px.gap, px.body, cost, first, last);
    groups[bits(canonical)].push_back({id, stretch_sum(p, px, cost, first, last)});
  }
  size_t tie_groups = 0, split = 0, reversed = 0;
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    ++tie_groups;
    // members are in id order: a higher id whose stretch sum is larger would rank first.
    for (const auto& m : members)
      if (m.second > members.front().second) {
        ++reversed;
        break;
      }
    for (const auto& m : members)
      if (bits(m.second) != bits(members.front().second)) {
        ++split;
        std::printf("[ TIES     ] ids %llu and %llu: bar by bar %.17g, by stretch %.17g vs %.17g\n",
                    static_cast<unsigned long long>(members.front().first),
                    static_cast<unsigned long long>(m.first), std::bit_cast<double>(key),
                    members.front().second, m.second);
        break;
      }
  }
  EXPECT_GE(tie_groups, 2u) << "the series must tie combos exactly";
  EXPECT_GE(split, 1u) << "no tie group's stretch sums differ: the case would not catch a "
                          "backend ranking by them";
  EXPECT_GE(reversed, 1u) << "no tie group's stretch sums put a higher id first";
}

}  // namespace
}  // namespace wfod
