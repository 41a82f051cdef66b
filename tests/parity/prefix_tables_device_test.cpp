// The cuda backend's tables built on the device (cuda/prefix_tables.cu) equal the host build
// (src/prefix_tables.hpp, what the backend computed on the host before) bit for bit: every
// real data file and hostile series (huge and tiny prices, constant stretches between huge
// jumps, returns near -1, 150k bars), both fills, with and without costs. Skips without a GPU.
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
      for (const auto& [table, member] : tables) {
        const auto& w = want.*member;
        const auto& g = (*got).*member;
        ASSERT_EQ(g.size(), w.size()) << table;
        const long long at = first_difference(w, g);
        EXPECT_EQ(at, -1) << table << "[" << at << "]: host " << std::hexfloat
                          << w[static_cast<size_t>(std::max(at, 0ll))] << ", device "
                          << g[static_cast<size_t>(std::max(at, 0ll))];
      }
    }
}

TEST(PrefixTablesDevice, EqualHostBuildBitForBit) {
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
  std::printf("[ prefix   ] %zu data files and the hostile series: device == host bit for bit\n",
              files.size());
}

}  // namespace
}  // namespace wfod
