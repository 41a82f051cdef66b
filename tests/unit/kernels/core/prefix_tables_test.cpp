// The host build of the cuda stretch evaluator's tables (src/prefix_tables.hpp), the reference
// the device build is compared with: the tables' discrete invariants on real and hostile data.
#include "src/prefix_tables.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "support/prefix_series.hpp"
#include "support/series.hpp"

namespace wfod {
namespace {

void expect_invariants(const std::string& name, const Series& s, Fill fill, double cost) {
  SCOPED_TRACE(name);
  const size_t n = s.size();
  const detail::PrefixTables t = detail::build_prefix_tables(HistoryView::of(s), fill, n, cost);
  const long long leaves = t.shape.tree_leaves;
  ASSERT_GE(leaves, static_cast<long long>(n));
  ASSERT_LT(leaves / 2, static_cast<long long>(std::max<size_t>(n, 1)));
  ASSERT_EQ(t.prefix.size(), detail::kPrefixArrays * (n + 1) + detail::kChangeRows * n);
  ASSERT_EQ(t.trees.size(), static_cast<size_t>(12 * leaves));
  const size_t levels = static_cast<size_t>(t.shape.sparse_levels);
  ASSERT_EQ(t.sparse.size(), 4 * levels * n);
  // Bad-bar counts are whole numbers that never decrease.
  for (size_t a : {size_t{6}, size_t{7}})
    for (size_t i = 1; i <= n; ++i) {
      const double c = t.prefix[a * (n + 1) + i], before = t.prefix[a * (n + 1) + i - 1];
      ASSERT_EQ(c, std::floor(c)) << "array " << a << " at " << i;
      ASSERT_TRUE(c == before || c == before + 1) << "array " << a << " at " << i;
    }
  std::mt19937_64 rng(7);
  for (int sign = 0; sign < 2; ++sign) {
    const double* leaf = &t.prefix[static_cast<size_t>(4 + sign) * (n + 1) + 1];
    const double* tree = &t.trees[static_cast<size_t>(sign) * 6 * static_cast<size_t>(leaves)];
    // The root holds the max, min and max drawdown of all leaves.
    double hi = -HUGE_VAL, lo = HUGE_VAL, peak = -HUGE_VAL, dd = 0;
    for (size_t i = 0; i < n; ++i) {
      hi = std::max(hi, leaf[i]);
      lo = std::min(lo, leaf[i]);
      peak = std::max(peak, leaf[i]);
      dd = std::max(dd, peak - leaf[i]);
    }
    EXPECT_EQ(tree[3], hi);
    EXPECT_EQ(tree[4], lo);
    EXPECT_EQ(tree[5], dd);
    // Sparse level k at i: max / min of leaves [i, i + 2^k), sampled.
    for (size_t k = 0; k < levels; ++k) {
      const size_t span = size_t{1} << k;
      for (int sample = 0; sample < 20; ++sample) {
        const size_t i = static_cast<size_t>(rng() % (n - span + 1));
        const double* row = &t.sparse[((static_cast<size_t>(sign) * levels + k) * 2) * n];
        EXPECT_EQ(row[i], *std::max_element(leaf + i, leaf + i + span)) << k << " " << i;
        EXPECT_EQ(row[n + i], *std::min_element(leaf + i, leaf + i + span)) << k << " " << i;
      }
    }
  }
}

TEST(PrefixTables, DiscreteInvariantsOnRealAndHostileData) {
  int files = 0;
  for (const auto& path : test::shared_csv_files()) {
    if (++files > 4) break;  // a few files keep it fast; the device test reads them all
    expect_invariants(path.filename().string(), test::load_csv(path), Fill::next_open, 1e-4);
  }
  for (const auto& [name, s] : test::hostile_prefix_series())
    expect_invariants(name, s, Fill::close, 0.0);
}

}  // namespace
}  // namespace wfod
