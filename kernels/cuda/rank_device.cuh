// Ranking on the device (SPEC §7), shared by the sweep and stream kernels: objective and
// constraints of a finalized Summary, the candidate order, a block's top-k by bitonic sort,
// and the block's counters.
#pragma once

#include "device_grid.cuh"
#include "sweep_kernels.cuh"
#include "wfod/detail/rank_math.hpp"
#include "wfod/detail/summary_math.hpp"
#include "wfod/ranking.hpp"

namespace wfod::cuda {

// Whether a combo belongs to this kernel instantiation (one launch per kind in the grid).
template <int Family, bool Cross>
inline __device__ bool is_kind(const DeviceCombo& c) {
  return Family != kMaCross || c.cross == Cross;
}

inline __device__ double objective_of(const Metrics& m, int objective) {
  return detail::objective_of(m, static_cast<Objective>(objective));
}

inline __device__ bool passes(const Metrics& m, const RankParams& rp) {
  return detail::within_limits(m, rp.min_trades, rp.max_drawdown, rp.has_min_exposure != 0,
                               rp.min_exposure);
}

// SPEC §7 order: higher objective first, NaN last, ties by lower id; empty slots after all.
inline __device__ bool before(const Candidate& a, const Candidate& b) {
  if (a.id == kEmptyId) return false;
  if (b.id == kEmptyId) return true;
  return detail::ranks_before(a.objective, a.id, b.objective, b.id);
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
