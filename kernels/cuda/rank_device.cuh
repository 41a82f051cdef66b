// Ranking on the device (SPEC §7), shared by the sweep and stream kernels: objective and
// constraints of a finalized Summary, the candidate order, a block's top-k by bitonic sort,
// and the block's counters.
#pragma once

#include "cuda/device_grid.cuh"
#include "cuda/sweep_kernels.cuh"
#include "wfod/detail/summary_math.hpp"
#include "wfod/ranking.hpp"

namespace wfod::cuda {

// Whether a combo belongs to this kernel instantiation (one launch per kind in the grid).
template <int Family, bool Cross>
inline __device__ bool is_kind(const DeviceCombo& c) {
  return Family == 1 || c.cross == Cross;
}

inline __device__ double objective_of(const Metrics& m, int objective) {
  switch (static_cast<Objective>(objective)) {
    case Objective::sharpe:
      return m.sharpe;
    case Objective::sortino:
      return m.sortino;
    case Objective::calmar:
      return m.calmar;
    case Objective::total_return:
      return m.total_return;
    case Objective::cagr:
      return m.cagr;
    case Objective::profit_factor:
      return m.profit_factor;
  }
  return 0;
}

inline __device__ bool passes(const Metrics& m, const RankParams& rp) {
  if (m.trades < rp.min_trades) return false;
  if (!(m.max_drawdown <= rp.max_drawdown)) return false;
  if (rp.has_min_exposure && !(m.exposure >= rp.min_exposure)) return false;
  return true;
}

// SPEC §7 order: higher objective first, NaN last, ties by lower id; empty slots after all.
inline __device__ bool before(const Candidate& a, const Candidate& b) {
  if (a.id == kEmptyId) return false;
  if (b.id == kEmptyId) return true;
  const bool nan_a = isnan(a.objective), nan_b = isnan(b.objective);
  if (nan_a != nan_b) return nan_b;
  if (!nan_a && a.objective != b.objective) return a.objective > b.objective;
  return a.id < b.id;
}

// Bitonic sort of the block's 256 candidates (best first); threads < k write theirs.
inline __device__ void block_topk(Candidate mine, int k, Candidate* out) {
  __shared__ Candidate sh[kBlock];
  const int tid = threadIdx.x;
  sh[tid] = mine;
  __syncthreads();
  for (int size = 2; size <= kBlock; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      const int partner = tid ^ stride;
      if (partner > tid) {
        const bool ascending = (tid & size) == 0;
        const Candidate a = sh[tid], b = sh[partner];
        if (ascending ? before(b, a) : before(a, b)) {
          sh[tid] = b;
          sh[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  if (tid < k) out[tid] = sh[tid];
}

// Turns a combo's Summary into its ranking candidate, counting as it goes.
inline __device__ Candidate rank_one(const Summary& s, unsigned long long id, const RankParams& rp,
                                     unsigned long long* fallback, unsigned int fallback_cap,
                                     Counters* counters, bool* ranked) {
  *ranked = false;
  if (s.nonpositive) {
    // Equity reached zero: the positive-equity drawdown combine does not hold; the host
    // re-evaluates these combos sequentially (exact).
    const unsigned long long slot = atomicAdd(&counters->fallback, 1ull);
    if (slot < fallback_cap) fallback[slot] = id;
    return {0.0, kEmptyId};
  }
  const Metrics m = detail::finalize_hd(s, rp.bars_per_year);
  if (!passes(m, rp)) return {0.0, kEmptyId};
  *ranked = true;
  return {objective_of(m, rp.objective), id};
}

inline __device__ void count_block(bool evaluated, bool skipped, bool ranked, Counters* counters) {
  const int e = __syncthreads_count(evaluated), s = __syncthreads_count(skipped),
            r = __syncthreads_count(ranked);
  if (threadIdx.x == 0) {
    if (e) atomicAdd(&counters->evaluated, static_cast<unsigned long long>(e));
    if (s) atomicAdd(&counters->skipped, static_cast<unsigned long long>(s));
    if (r) atomicAdd(&counters->ranked, static_cast<unsigned long long>(r));
  }
}

}  // namespace wfod::cuda
