// The host build of the cuda stretch evaluator's tables (src/prefix_tables.hpp) and the log1p
// the device build uses for them (src/libm_log1p.hpp): equal to this host's C library bit for
// bit, and the tables' discrete invariants on real and hostile data.
#include "src/prefix_tables.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "src/libm_log1p.hpp"
#include "support/prefix_series.hpp"
#include "support/series.hpp"

namespace wfod {
namespace {

uint64_t bits_of(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Bit for bit; a NaN equals any NaN (payloads are not the same across CPUs and GPUs).
bool same_bits(double a, double b) {
  return bits_of(a) == bits_of(b) || (std::isnan(a) && std::isnan(b));
}

TEST(LibmLog1p, EqualsTheHostLibrary) {
  std::mt19937_64 rng(15);
  std::uniform_real_distribution<double> unit(-1, 1);
  long long differ = 0, checked = 0;
  auto check = [&](double x) {
    ++checked;
    const double want = std::log1p(x), got = detail::libm_log1p(x);
    if (same_bits(want, got)) return;
    if (++differ <= 5)
      ADD_FAILURE() << "log1p(" << std::hexfloat << x << ") = " << want << ", port " << got;
  };
  // Every exponent where returns live, both signs, and values just above -1.
  for (int i = 0; i < 1'500'000; ++i)
    check(std::ldexp(unit(rng), static_cast<int>(rng() % 140) - 120));
  for (int i = 0; i < 200'000; ++i)
    check(-1 + std::ldexp(unit(rng) + 1, -static_cast<int>(rng() % 60)));
  for (int i = 0; i < 300'000; ++i) {
    const uint64_t b = rng();
    double x;
    std::memcpy(&x, &b, sizeof x);
    check(x);
  }
  for (double x : {0.0, -0.0, 1e-300, -1e-300, 0x1p-29, -0x1p-29, 0x1p-54, 0x1.a827ap-2,
                   -0x1.2bec3p-2, 1.0, -0.5, 0x1p53, 1e308, HUGE_VAL, -1.0, -2.0, -HUGE_VAL})
    check(x);
  EXPECT_EQ(differ, 0) << "of " << checked << ": this host's log1p is not the one the device "
                       << "reproduces, so device-built prefix tables differ from host-built ones";
}

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
