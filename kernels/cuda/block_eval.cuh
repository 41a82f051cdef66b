// One combo's Summary of one bar range on the device, bar by bar, with the very operations
// and order of the cpu backend's lane kernel (kernels/cpu/lane_kernel_impl.hpp): so with the
// same positions every field, floats included, is bit-identical to cpu's block_summaries
// (the file that includes this is built with -fmad=false: no contraction). Decisions are the
// float64 rules of device_grid.cuh, or (Screened) the sweep's float32 screen with the float64
// fallback, which decides identically: exact either way, as SPEC §9 asks.
#pragma once

#include "device_grid.cuh"
#include "sweep_kernels.cuh"
#include "tally.cuh"
#include "wfod/summary.hpp"

namespace wfod::cuda {

// p_t at the close of bar t from p_{t-1} = held (next()'s answer). Screened: the float32
// screen of the sweep's exact mode (decide_loaded with fast = false: the doubles are read
// only when the floats cannot settle a comparison, so the answer is next()'s, SPEC §9);
// `cur` holds bar t's float inputs, `prev` bar t - 1's. Otherwise, and for the level
// families, the float64 rules directly (or their answers from the LevelBits table).
template <int Family, bool Cross, bool Vol, bool Screened>
__device__ __forceinline__ double block_next(const DeviceCombo& c, const BarData& bars,
                                             const BarInputs& cur, const BarInputs& prev,
                                             long long t, double held) {
  if constexpr (Screened && !is_level_family(Family)) {
    double v;
    return decide_loaded<Family, Cross, Vol>(c, cur, prev, bars.matrix, bars.rows, bars.close, t,
                                             false, &v)
               ? v
               : held;
  } else {
    return next_bar<Family, Cross, Vol>(c, bars, t, held);
  }
}

template <int Family, bool Cross, bool Vol, bool Screened = false>
__device__ inline Summary block_range_summary(const DeviceCombo& c, const BarData& bars,
                                              long long first, long long last) {
  const int rows = bars.rows;
  // The state entering `first`, found by scanning back (position_before).
  double p2 = position_before<Family, Cross, Vol>(c, bars, first - 2);
  double p1 = next_bar<Family, Cross, Vol>(c, bars, first - 1, p2);
  // Float inputs of bar t (cur) and t - 1 (prev), loaded one bar ahead of their use so the
  // gather's latency overlaps the previous bar's arithmetic.
  BarInputs prev{}, cur{};
  if constexpr (Screened) {
    if (Cross && first >= 1) prev = load_inputs<Family, Vol>(c, bars.matrix32, rows, first - 1);
    if (first < last) cur = load_inputs<Family, Vol>(c, bars.matrix32, rows, first);
  }
  const double head_pos = p2;
  RangeWalk<true> walk;  // predicated: a block's lanes change position at different bars
  for (long long t = first; t < last; ++t) {
    const double b = p1;
    walk.bar(p2, b, bars.gap[t], bars.body[t], bars.cost);
    p2 = b;
    BarInputs next{};
    if constexpr (Screened) {
      if (t + 1 < last) next = load_inputs<Family, Vol>(c, bars.matrix32, rows, t + 1);
    }
    p1 = block_next<Family, Cross, Vol, Screened>(c, bars, cur, prev, t, b);
    if constexpr (Screened) {
      prev = cur;
      cur = next;
    }
  }
  // p2 is p_{last-2}: the position held in the last bar's body.
  return walk.summary(first, last, head_pos, p2);
}

}  // namespace wfod::cuda
