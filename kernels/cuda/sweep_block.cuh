// One block of the thread-per-combo sweeps (the fused kernel and the split sweep's accounting
// kernel): the order they visit combo ids (fused_combo_id), and each thread's combo decoded,
// evaluated, ranked and counted, with the block's top k kept (rank_sweep_block).
#pragma once

#include "device_grid.cuh"
#include "rank_device.cuh"
#include "sweep_kernels.cuh"

namespace wfod::cuda {

// The combo id a thread-per-combo sweep thread runs: its index q itself, except for the level
// families, whose first (fastest) axis is n: consecutive ids differ in n and so read different
// indicator rows (SMA(n) and STD(n), or RSI(n)), a separate float64 load per lane every bar. For
// them the ids are visited transposed, q = i_n * inner + rest -> id = i_n + radix[0] * rest, so the
// lanes of a warp share n (and read one broadcast value per row and bar) and differ in the
// other axes, whose per-combo values (k, lo, hi, style, side, filter) cost no bar loads. A
// bijection of [0, n_ids) when radix[0] divides n_ids; the results do not depend on it, since
// a group's top k is reduced by (objective, id) and the counters are sums.
template <int Family>
__device__ inline unsigned long long fused_combo_id(const GridTables& g, unsigned long long q,
                                                    unsigned long long n_ids) {
  if constexpr (is_level_family(Family)) {
    const unsigned long long outer = g.radix[0];
    if (outer > 1 && n_ids % outer == 0) {
      const unsigned long long inner = n_ids / outer;
      return q / inner + outer * (q % inner);
    }
  }
  return q;
}

// Thread's part of a sweep block: its combo, visited as q (present: q names one of this
// block's combos), is decoded and, when it is of the launch's kind and valid, evaluated by
// evaluate(combo) -> Summary and ranked (rank_one); then the block's counters and its top k
// at out. Every thread of the block calls it.
template <int Family, bool Cross, typename Evaluate>
__device__ __forceinline__ void rank_sweep_block(const GridTables& g, unsigned long long q,
                                                 unsigned long long n_ids, bool present,
                                                 const RankParams& rp, int k, Candidate* out,
                                                 Counters* counters, unsigned long long* fallback,
                                                 unsigned int fallback_cap, Evaluate&& evaluate) {
  Candidate cand{0.0, kEmptyId};
  bool mine = false, valid = false, ranked = false;
  if (present) {
    const unsigned long long id = fused_combo_id<Family>(g, q, n_ids);
    const DeviceCombo c = decode_combo(g, id);
    mine = is_kind<Family, Cross>(c);
    valid = c.valid;
    if (mine && valid)
      cand = rank_one(evaluate(c), id, rp, fallback, fallback_cap, counters, &ranked);
  }
  count_block(mine && valid, mine && !valid, ranked, counters);
  block_topk(cand, k, out);
}

}  // namespace wfod::cuda
