// Device build of the stretch evaluator's tables (prefix_tables.cuh). The per-bar values are
// the host build's IEEE operations in the same order (src/prefix_tables.cpp; this file is
// compiled with -fmad=false: no contraction the host does not do), except log1p: CUDA's is
// within 1 ulp, like the host library's, but not always the same double, so the log rows and
// what is built on them (log prefixes, trees, sparse tables) may differ from a host build by
// the ulps of their summands (tests/parity/prefix_tables_device_test.cpp bounds it); every
// other table is bit for bit. The compensated sums are not a parallel scan, whose association
// would round differently, but the host's sequential Neumaier recurrence, one thread block
// per array; the trees and sparse tables are max / min / difference, exact in any order, and
// use std::max / std::min's comparisons (hd_max).
#include <algorithm>

#include "cuda_check.cuh"
#include "prefix_tables.cuh"
#include "prefix_tables_host.hpp"
#include "src/compensated.hpp"
#include "sweep_device_memory.hpp"
#include "wfod/detail/hd.hpp"

namespace wfod::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kScanTile = 2048;  // bars per shared-memory tile of the sequential sums

unsigned blocks_for(size_t items) {
  return static_cast<unsigned>(std::clamp<size_t>((items + kThreads - 1) / kThreads, 1, 65535));
}

// Per bar: the bar returns (segments.hpp's bar_returns), the kPrefixArrays summands and the
// change rows (zero where p1 == p2 and at bar 0).
__global__ void __launch_bounds__(kThreads)
    bar_terms_kernel(const double* close, const double* open, bool fill_close, long long n,
                     double cost, double* gap, double* body, double* terms, double* change) {
  for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<long long>(gridDim.x) * blockDim.x) {
    double g = 0.0, b = 0.0;
    if (t > 0) {
      const double prev = close[t - 1];
      const double x = fill_close ? prev : open[t];
      g = (x - prev) / prev;
      b = (close[t] - x) / prev;
    }
    gap[t] = g;
    body[t] = b;
    const double r = t == 0 ? 0.0 : g + b;
    const double summands[detail::kPrefixArrays] = {r,
                                                    r * r,
                                                    r < 0 ? r * r : 0.0,
                                                    r > 0 ? r * r : 0.0,
                                                    1.0 + r > 0 ? log1p(r) : 0.0,
                                                    1.0 - r > 0 ? log1p(-r) : 0.0,
                                                    1.0 + r > 0 ? 0.0 : 1.0,
                                                    1.0 - r > 0 ? 0.0 : 1.0,
                                                    t == 0 ? 0.0 : fabs(g) + fabs(b)};
    for (int a = 0; a < static_cast<int>(detail::kPrefixArrays); ++a)
      terms[a * n + t] = summands[a];
    for (int p2 = -1; p2 <= 1; ++p2)
      for (int p1 = -1; p1 <= 1; ++p1) {
        double v = 0.0;
        if (p1 != p2 && t > 0) {
          const double s = (p2 * g - cost * abs(p2)) + (p1 * b - cost * abs(p1));
          v = 1.0 + s > 0 ? log1p(s) : 0.0;
        }
        change[((p2 + 1) * 3 + (p1 + 1)) * n + t] = v;
      }
  }
}

// Block a: prefix a = the running compensated sum of terms a, in bar order, by one thread
// (the host's recurrence); the block stages tiles through shared memory around it.
__global__ void __launch_bounds__(kThreads)
    compensated_prefix_kernel(const double* terms, long long n, double* prefix) {
  __shared__ double in[kScanTile], out[kScanTile];
  const double* summands = terms + blockIdx.x * n;
  double* sums = prefix + blockIdx.x * (n + 1);
  if (threadIdx.x == 0) sums[0] = 0.0;
  detail::CompensatedSum acc;
  for (long long t0 = 0; t0 < n; t0 += kScanTile) {
    const int count = n - t0 < kScanTile ? static_cast<int>(n - t0) : kScanTile;
    for (int j = threadIdx.x; j < count; j += blockDim.x) in[j] = summands[t0 + j];
    __syncthreads();
    if (threadIdx.x == 0) {
#pragma unroll 8
      for (int j = 0; j < count; ++j) {
        acc.add(in[j]);
        out[j] = acc.value();
      }
    }
    __syncthreads();  // every thread passes the next tile's first barrier before out is reused
    for (int j = threadIdx.x; j < count; j += blockDim.x) sums[t0 + 1 + j] = out[j];
  }
}

// Leaves of both signs' trees (log_prefix[i + 1], or the empty range's -inf / +inf past the
// bars), node 0 zero, and level 0 of both sparse tables.
__global__ void __launch_bounds__(kThreads)
    leaves_kernel(const double* prefix, long long n, long long leaves, int levels, double* trees,
                  double* sparse) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < leaves;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    for (int sign = 0; sign < 2; ++sign) {
      const double* log_prefix = prefix + (4 + sign) * (n + 1);
      double* tree = trees + sign * 3 * 2 * leaves;
      double* node = tree + 3 * (leaves + i);
      const bool real = i < n;
      node[0] = real ? log_prefix[i + 1] : -HUGE_VAL;
      node[1] = real ? log_prefix[i + 1] : HUGE_VAL;
      node[2] = 0.0;
      if (i == 0) tree[0] = tree[1] = tree[2] = 0.0;
      if (real) {
        double* level0 = sparse + static_cast<long long>(sign) * levels * 2 * n;
        level0[i] = level0[n + i] = log_prefix[i + 1];
      }
    }
  }
}

// Tree nodes [lo, 2 lo) of both signs from their children (one level, built bottom-up).
__global__ void __launch_bounds__(kThreads)
    tree_level_kernel(double* trees, long long leaves, long long lo) {
  using detail::hd_max, detail::hd_min;
  for (long long i = lo + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < 2 * lo;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    for (int sign = 0; sign < 2; ++sign) {
      double* tree = trees + sign * 3 * 2 * leaves;
      const double *l = tree + 3 * (2 * i), *r = tree + 3 * (2 * i + 1);
      double* node = tree + 3 * i;
      node[0] = hd_max(l[0], r[0]);
      node[1] = hd_min(l[1], r[1]);
      node[2] = hd_max(hd_max(l[2], r[2]), l[0] - r[1]);  // std::max({...})'s comparisons
    }
  }
}

// Sparse level `level` of both signs from level - 1: max / min over [i, i + 2^level), zero
// where that range passes the last bar.
__global__ void __launch_bounds__(kThreads)
    sparse_level_kernel(double* sparse, long long n, int levels, int level) {
  using detail::hd_max, detail::hd_min;
  const long long half = 1ll << (level - 1);
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    for (int sign = 0; sign < 2; ++sign) {
      const double* below = sparse + (static_cast<long long>(sign) * levels + level - 1) * 2 * n;
      double* here = sparse + (static_cast<long long>(sign) * levels + level) * 2 * n;
      const bool inside = i + 2 * half <= n;
      here[i] = inside ? hd_max(below[i], below[i + half]) : 0.0;
      here[n + i] = inside ? hd_min(below[n + i], below[n + i + half]) : 0.0;
    }
  }
}

// The StretchRecord of each index i in [0, n]: gathered from the prefixes, returns and change
// rows built above.
__global__ void __launch_bounds__(kThreads)
    records_kernel(const double* prefix, const double* change, const double* gap,
                   const double* body, long long n, double* records) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i <= n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    double* rec = records + i * StretchRecord::kDoubles;
    for (int a = 0; a < static_cast<int>(detail::kRecordPrefixes); ++a)
      rec[a] = prefix[a * (n + 1) + i];
    const bool bar = i < n;
    rec[StretchRecord::kGap] = bar ? gap[i] : 0.0;
    rec[StretchRecord::kBody] = bar ? body[i] : 0.0;
    for (int row : {1, 2, 3, 5, 6, 7})
      rec[StretchRecord::change(row)] = bar ? change[row * n + i] : 0.0;
  }
}

}  // namespace

void build_prefix_tables(const double* close, const double* open, Fill fill, size_t bars,
                         double cost, DevicePrefixTables& out) {
  const long long n = static_cast<long long>(bars);
  out.bars = bars;
  out.shape = detail::prefix_shape(bars);
  const long long leaves = out.shape.tree_leaves;
  const int levels = out.shape.sparse_levels;
  // The sizes the size query of sweeps counts (sweep_device_memory.hpp).
  const PrefixTableSizes size = prefix_table_sizes(bars);
  out.gap.ensure(size.gap);
  out.body.ensure(size.body);
  out.terms.ensure(size.terms);
  out.prefix.ensure(size.prefix);
  out.trees.ensure(size.trees);
  out.sparse.ensure(size.sparse);
  double* change = out.prefix.data() + detail::kPrefixArrays * (bars + 1);
  bar_terms_kernel<<<blocks_for(bars), kThreads>>>(close, open, fill == Fill::close, n, cost,
                                                   out.gap.data(), out.body.data(),
                                                   out.terms.data(), change);
  WFOD_CUDA_CHECK_LAUNCH();
  compensated_prefix_kernel<<<detail::kPrefixArrays, kThreads>>>(out.terms.data(), n,
                                                                 out.prefix.data());
  WFOD_CUDA_CHECK_LAUNCH();
  leaves_kernel<<<blocks_for(static_cast<size_t>(leaves)), kThreads>>>(
      out.prefix.data(), n, leaves, levels, out.trees.data(), out.sparse.data());
  WFOD_CUDA_CHECK_LAUNCH();
  for (long long lo = leaves / 2; lo >= 1; lo /= 2) {
    tree_level_kernel<<<blocks_for(static_cast<size_t>(lo)), kThreads>>>(out.trees.data(), leaves,
                                                                         lo);
    WFOD_CUDA_CHECK_LAUNCH();
  }
  for (int level = 1; level < levels; ++level) {
    sparse_level_kernel<<<blocks_for(bars), kThreads>>>(out.sparse.data(), n, levels, level);
    WFOD_CUDA_CHECK_LAUNCH();
  }
  static_assert(static_cast<size_t>(StretchRecord::kDoubles) == kStretchRecordDoubles);
  out.records.ensure(size.records);
  records_kernel<<<blocks_for(bars + 1), kThreads>>>(out.prefix.data(), change, out.gap.data(),
                                                     out.body.data(), n, out.records.data());
  WFOD_CUDA_CHECK_LAUNCH();
}

PrefixData DevicePrefixTables::view() const {
  const size_t tree_size = 3 * 2 * static_cast<size_t>(shape.tree_leaves);
  return PrefixData{trees.data(),
                    trees.data() + tree_size,
                    shape.tree_leaves,
                    sparse.data(),
                    shape.sparse_levels,
                    records.data(),
                    prefix.data() + detail::kAbsPrefix * (bars + 1)};
}

detail::PrefixTables prefix_tables_on_device(const HistoryView& h, Fill fill, size_t bars,
                                             double cost) {
  DeviceBuffer<double> close, open;
  close.upload(h.close.data(), bars);
  open.upload(h.open.data(), bars);
  DevicePrefixTables d;
  build_prefix_tables(close.data(), open.data(), fill, bars, cost, d);
  WFOD_CUDA_CHECK(cudaDeviceSynchronize());
  detail::PrefixTables out;
  out.shape = d.shape;
  out.gap = d.gap.download(bars);
  out.body = d.body.download(bars);
  out.prefix = d.prefix.download(d.prefix.size());
  out.trees = d.trees.download(d.trees.size());
  out.sparse = d.sparse.download(d.sparse.size());
  return out;
}

}  // namespace wfod::cuda
