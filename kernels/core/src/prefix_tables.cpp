// Host build of the stretch evaluator's tables (prefix_tables.hpp): the reference for the
// device build. Every value is what the cuda backend computed on the host before the tables
// moved to the device.
#include "src/prefix_tables.hpp"

#include <algorithm>
#include <cmath>

#include "src/compensated.hpp"
#include "wfod/segments.hpp"

namespace wfod::detail {

PrefixShape prefix_shape(size_t bars) {
  PrefixShape s;
  while (s.tree_leaves < static_cast<long long>(bars)) s.tree_leaves <<= 1;
  while ((size_t{1} << s.sparse_levels) <= bars) ++s.sparse_levels;
  return s;
}

PrefixTables build_prefix_tables(const HistoryView& h, Fill fill, size_t n, double cost) {
  PrefixTables out;
  bar_returns(h, fill, n, out.gap, out.body);
  const std::vector<double>& gap = out.gap;
  const std::vector<double>& body = out.body;
  // Prefix sums, accumulated with compensation so every stored prefix is within an ulp of
  // the exact sum.
  std::vector<double>& all = out.prefix;
  all.assign(kPrefixArrays * (n + 1) + kChangeRows * n, 0.0);
  CompensatedSum acc[kPrefixArrays];
  for (size_t t = 0; t < n; ++t) {
    const double r = t == 0 ? 0.0 : gap[t] + body[t];
    const double terms[kPrefixArrays] = {r,
                                         r * r,
                                         r < 0 ? r * r : 0.0,
                                         r > 0 ? r * r : 0.0,
                                         1.0 + r > 0 ? std::log1p(r) : 0.0,
                                         1.0 - r > 0 ? std::log1p(-r) : 0.0,
                                         1.0 + r > 0 ? 0.0 : 1.0,
                                         1.0 - r > 0 ? 0.0 : 1.0,
                                         t == 0 ? 0.0 : std::abs(gap[t]) + std::abs(body[t])};
    for (size_t a = 0; a < kPrefixArrays; ++a) {
      acc[a].add(terms[a]);
      all[a * (n + 1) + t + 1] = acc[a].value();
    }
  }
  // Change-bar log growth per (p2, p1): the same segment values as evaluate_range.
  double* change = all.data() + kPrefixArrays * (n + 1);
  for (int p2 = -1; p2 <= 1; ++p2)
    for (int p1 = -1; p1 <= 1; ++p1) {
      if (p1 == p2) continue;
      double* row = change + static_cast<size_t>((p2 + 1) * 3 + (p1 + 1)) * n;
      for (size_t t = 1; t < n; ++t) {
        const double s = (p2 * gap[t] - cost * std::abs(p2)) + (p1 * body[t] - cost * std::abs(p1));
        row[t] = 1.0 + s > 0 ? std::log1p(s) : 0.0;  // bad bars are flagged in the kernel
      }
    }
  out.shape = prefix_shape(n);
  // Drawdown trees over the log growth prefix of each sign.
  const size_t leaves = static_cast<size_t>(out.shape.tree_leaves);
  out.trees.assign(2 * 3 * 2 * leaves, 0.0);
  for (int sign = 0; sign < 2; ++sign) {
    double* tree = &out.trees[static_cast<size_t>(sign) * 3 * 2 * leaves];
    const double* log_prefix = &all[static_cast<size_t>(4 + sign) * (n + 1)];
    for (size_t i = 0; i < leaves; ++i) {
      double* node = tree + 3 * (leaves + i);
      const bool real = i < n;
      node[0] = real ? log_prefix[i + 1] : -HUGE_VAL;
      node[1] = real ? log_prefix[i + 1] : HUGE_VAL;
      node[2] = 0.0;
    }
    for (size_t i = leaves - 1; i >= 1; --i) {
      const double *l = tree + 3 * (2 * i), *r = tree + 3 * (2 * i + 1);
      double* node = tree + 3 * i;
      node[0] = std::max(l[0], r[0]);
      node[1] = std::min(l[1], r[1]);
      node[2] = std::max({l[2], r[2], l[0] - r[1]});
    }
  }
  // Sparse tables of the same leaves: level k = max/min over 2^k bars.
  const size_t levels = static_cast<size_t>(out.shape.sparse_levels);
  out.sparse.assign(2 * levels * 2 * n, 0.0);
  for (size_t sign = 0; sign < 2; ++sign) {
    const double* log_prefix = &all[(4 + sign) * (n + 1)];
    auto at = [&](size_t level, size_t which) {
      return &out.sparse[((sign * levels + level) * 2 + which) * n];
    };
    for (size_t i = 0; i < n; ++i) at(0, 0)[i] = at(0, 1)[i] = log_prefix[i + 1];
    for (size_t level = 1; level < levels; ++level) {
      const size_t half = size_t{1} << (level - 1);
      for (size_t i = 0; i + (half << 1) <= n; ++i) {
        at(level, 0)[i] = std::max(at(level - 1, 0)[i], at(level - 1, 0)[i + half]);
        at(level, 1)[i] = std::min(at(level - 1, 1)[i], at(level - 1, 1)[i + half]);
      }
    }
  }
  return out;
}

}  // namespace wfod::detail
