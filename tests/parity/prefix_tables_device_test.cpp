// The cuda backend's tables built on the device (cuda/prefix_tables.cu) against the host build
// (src/prefix_tables.hpp, what the backend computed on the host before): bar returns, the
// prefix sums of r, r^2, the semi-squares and the bad-bar counts bit for bit; what rests on
// log1p (CUDA's and the host library's may differ in the last place) within the bound those
// ulps allow: each change-row value within 2 ulps, each log prefix within 2 ulps of the sum
// of its summands' magnitudes, tree and sparse entries (max, min, differences of log prefixes)
// within twice that. Every real data file and hostile series (huge and tiny prices, constant
// stretches between huge jumps, returns near -1, 150k bars), both fills, with and without
// costs. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "src/prefix_tables.hpp"
#include "support/prefix_series.hpp"
#include "support/series.hpp"

namespace wfod {
namespace {

// The first index where two tables differ (bits, any NaN equal to any NaN), or -1.
long long first_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t x, y;
    std::memcpy(&x, &a[i], sizeof x);
    std::memcpy(&y, &b[i], sizeof y);
    if (x != y && !(std::isnan(a[i]) && std::isnan(b[i]))) return static_cast<long long>(i);
  }
  return -1;
}

// The first index i in [from, to) where |a - b| > tol(i) (infinities must be equal), or -1.
template <typename Tol>
long long first_beyond(const std::vector<double>& a, const std::vector<double>& b, size_t from,
                       size_t to, Tol tol) {
  for (size_t i = from; i < to; ++i) {
    if (std::isinf(a[i]) || std::isinf(b[i])) {
      if (a[i] != b[i]) return static_cast<long long>(i);
    } else if (!(std::abs(a[i] - b[i]) <= tol(i))) {
      return static_cast<long long>(i);
    }
  }
  return -1;
}

constexpr double kTwoUlps = 0x1p-51;  // 2^-51: two units in the last place, relative

void expect_same_tables(const std::string& name, const Series& s) {
  const HistoryView h = HistoryView::of(s);
  for (Fill fill : {Fill::close, Fill::next_open})
    for (double cost : {0.0, 1.5e-4}) {
      SCOPED_TRACE(name + (fill == Fill::close ? " fill=close" : " fill=next_open") +
                   " cost=" + std::to_string(cost));
      const auto want = detail::build_prefix_tables(h, fill, s.size(), cost);
      std::string why;
      const auto got = detail::build_prefix_tables_on_device(h, fill, s.size(), cost, &why);
      ASSERT_TRUE(got.has_value()) << why;
      EXPECT_EQ(got->shape.tree_leaves, want.shape.tree_leaves);
      EXPECT_EQ(got->shape.sparse_levels, want.shape.sparse_levels);
      const std::pair<const char*, const std::vector<double> detail::PrefixTables::*> tables[] = {
          {"gap", &detail::PrefixTables::gap},
          {"body", &detail::PrefixTables::body},
          {"prefix", &detail::PrefixTables::prefix},
          {"trees", &detail::PrefixTables::trees},
          {"sparse", &detail::PrefixTables::sparse}};
      auto report = [&](const char* table, const std::vector<double>& w,
                        const std::vector<double>& g, long long at) {
        EXPECT_EQ(at, -1) << table << "[" << at << "]: host " << std::hexfloat
                          << w[static_cast<size_t>(std::max(at, 0ll))] << ", device "
                          << g[static_cast<size_t>(std::max(at, 0ll))];
      };
      for (const auto& [table, member] : tables) {
        const auto& w = want.*member;
        const auto& g = (*got).*member;
        ASSERT_EQ(g.size(), w.size()) << table;
      }
      report("gap", want.gap, got->gap, first_difference(want.gap, got->gap));
      report("body", want.body, got->body, first_difference(want.body, got->body));
      // Every log prefix is a compensated sum of log1p values each within 2 ulps of the host's:
      // the sums differ by at most 2 ulps of the sum of magnitudes (plus their own rounding).
      double magnitude = 1.0;
      for (size_t t = 1; t < s.size(); ++t) {
        const double r = want.gap[t] + want.body[t];
        if (1.0 + r > 0) magnitude += std::abs(std::log1p(r));
        if (1.0 - r > 0) magnitude += std::abs(std::log1p(-r));
      }
      const double log_tol = 2 * kTwoUlps * magnitude;
      const size_t n1 = s.size() + 1;
      for (size_t a = 0; a < detail::kPrefixArrays; ++a) {
        const std::string table = "prefix array " + std::to_string(a);
        const bool logs = a == 4 || a == 5;
        const std::vector<double> w(want.prefix.begin() + a * n1,
                                    want.prefix.begin() + (a + 1) * n1);
        const std::vector<double> g(got->prefix.begin() + a * n1,
                                    got->prefix.begin() + (a + 1) * n1);
        report(table.c_str(), w, g,
               logs ? first_beyond(w, g, 0, n1, [&](size_t) { return log_tol; })
                    : first_difference(w, g));
      }
      const size_t rows_at = detail::kPrefixArrays * n1;
      report("change rows", want.prefix, got->prefix,
             first_beyond(want.prefix, got->prefix, rows_at, want.prefix.size(),
                          [&](size_t i) { return kTwoUlps * std::abs(want.prefix[i]) + 1e-300; }));
      report("trees", want.trees, got->trees,
             first_beyond(want.trees, got->trees, 0, want.trees.size(),
                          [&](size_t) { return 2 * log_tol; }));
      report("sparse", want.sparse, got->sparse,
             first_beyond(want.sparse, got->sparse, 0, want.sparse.size(),
                          [&](size_t) { return 2 * log_tol; }));
    }
}

TEST(PrefixTablesDevice, EqualHostBuild) {
  std::string why;
  const Series probe = test::random_walk(8, 1);
  if (!detail::build_prefix_tables_on_device(HistoryView::of(probe), Fill::close, 8, 0.0, &why))
    GTEST_SKIP() << "device prefix tables NOT compared: " << why;
  const auto files = test::shared_csv_files();
  EXPECT_FALSE(files.empty()) << "no real data under " << test::shared_data_dir();
  for (const auto& path : files) expect_same_tables(path.filename().string(), test::load_csv(path));
  for (const auto& [name, s] : test::hostile_prefix_series()) expect_same_tables(name, s);
  for (size_t n : {1, 2, 3, 4, 5, 1023, 1024, 1025, 2049})  // tree and sparse edges
    expect_same_tables("walk_" + std::to_string(n), test::random_walk(n, 30 + n));
  std::printf(
      "[ prefix   ] %zu data files and the hostile series: device == host (logs within their ulp "
      "bound)\n",
      files.size());
}

}  // namespace
}  // namespace wfod
