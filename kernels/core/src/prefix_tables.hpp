// The per-bar tables of the cuda sweep's stretch evaluator (cuda PrefixData, sweep_kernels.cuh):
// compensated prefix sums of r_t = gap_t + body_t and friends, each change bar's log growth,
// drawdown trees and sparse tables over the log growth prefix. The cuda backend builds them on
// the device (cuda/prefix_tables.cu); this host build is the reference the device build is
// compared with bit for bit (tests/parity/prefix_tables_device_test.cpp), laid out the same.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/grid.hpp"

namespace wfod::detail {

// sum r, r^2, min(r,0)^2, max(r,0)^2, log1p(r), log1p(-r), bad long bars, bad short bars, then
// |gap| + |body| (a held bar's sum of absolute segment values: the trades' dead band, SPEC v1.2
// §6). The first kRecordPrefixes go into the device's StretchRecord; the last stays an array.
inline constexpr size_t kPrefixArrays = 9;
inline constexpr size_t kRecordPrefixes = 8;
inline constexpr size_t kAbsPrefix = 8;
// Change-bar log growth rows, one per (p_{t-2}, p_{t-1}) pair: row (p2 + 1) * 3 + (p1 + 1).
inline constexpr size_t kChangeRows = 9;

struct PrefixShape {
  long long tree_leaves = 1;  // a power of two >= bars
  int sparse_levels = 1;      // levels k with 2^k <= bars (at least 1)
};
PrefixShape prefix_shape(size_t bars);

struct PrefixTables {
  std::vector<double> gap, body;  // bar_returns (segments.hpp)
  // kPrefixArrays prefixes of bars + 1 values (index t + 1 = sum over u <= t), then
  // kChangeRows rows of bars values.
  std::vector<double> prefix;
  // Per sign (long, short) a segment tree of 2 * tree_leaves nodes (max, min, internal max
  // drawdown; root at node 1, node 0 unused and zero) over the leaves log_prefix[t + 1].
  std::vector<double> trees;
  // [sign][level][max|min][bars]: level k holds max / min over [i, i + 2^k) (zero past the end).
  std::vector<double> sparse;
  PrefixShape shape;
};

// The host build: bars [0, bars) of the history, cost per unit of position change.
PrefixTables build_prefix_tables(const HistoryView& h, Fill fill, size_t bars, double cost);

// The same tables built by the cuda backend's kernels and copied back (tests). nullopt, with
// *why set, when this build has no cuda backend or no usable device. Defined beside the
// backend registry (registry/prefix_tables_probe.cpp), which knows whether cuda is built.
std::optional<PrefixTables> build_prefix_tables_on_device(const HistoryView& h, Fill fill,
                                                          size_t bars, double cost,
                                                          std::string* why);

}  // namespace wfod::detail
