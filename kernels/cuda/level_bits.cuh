// The level families' band comparisons, decided once per (n, bar) for every grid value.
// bollinger's four signals at bar t depend on n (SMA and STD rows) and k; rsi_reversion's on
// n (the RSI row), lo and hi. A sweep of N n-values x K others x styles x sides repeats each
// comparison for every combo of the other axes; here a kernel evaluates it once, with the very
// float64 operations of level_next_at (device_grid.cuh), and stores the answers as bits, so a
// combo's decision per bar is three 32-bit loads its warp shares (the lanes of a warp share n)
// and a few bit operations, not three float64 loads and four dead-band comparisons. The same
// bits, not an approximation: positions are identical by construction (SPEC §9).
#pragma once

#include <cstdint>

#include "device_buffer.cuh"
#include "device_grid.cuh"

namespace wfod::cuda {

// Record of (n index i, bar t) at bits + (i * bars + t) * words, `words` 32-bit words:
//   word 0: bit 0 = x > middle, bit 1 = middle > x (SPEC §4 dead band);
//   words 1 .. up_words: bit j = x > upper_j (bollinger: U of k_j; rsi_reversion: hi_j);
//   the rest: bit j = lower_j > x (bollinger: L of k_j; rsi_reversion: lo_j).
// x is the close (bollinger) or RSI(n) (rsi_reversion). bits == nullptr: no table (another
// family, or too large: the kernels then compare the float64 rows themselves).
struct LevelBits {
  const uint32_t* bits = nullptr;
  long long bars = 0;  // bars [0, bars) are covered (the prepared history)
  int words = 0;
  int up_words = 0;
};

// The table behind a LevelBits view, rebuilt for each preparation.
struct DeviceLevelBits {
  DeviceBuffer<uint32_t> bits;
  LevelBits view;
};

// Builds the table of a bollinger or rsi_reversion grid `g` over bars [0, bars) of the
// transposed indicator matrix `matrix` (rows rows) and `close`; any other family, or a table
// over decision_table_cap (device_memory.cuh), leaves out.view.bits null (and gives the buffer
// back).
void build_level_bits(const GridTables& g, const double* matrix, int rows, const double* close,
                      long long bars, DeviceLevelBits& out);

// Whether the volatility filter lets bar t's level rule act (level_next_at: held otherwise).
template <bool Vol>
__device__ __forceinline__ bool level_filter_open(const DeviceCombo& c,
                                                  const double* __restrict__ m, int rows,
                                                  long long t) {
  if constexpr (Vol) {
    const double* at = m + t * rows;
    const double lv = at[c.row_vl];
    return lv != 0.0 && dev_db_greater(at[c.row_vs] / lv, c.threshold);
  } else {
    return true;
  }
}

// level_rule on the signals of one record (a defined bar, the filter open); V = double, or
// int in the change-driven evaluator's decision loop (short_value -1 or 0).
template <typename V>
__device__ __forceinline__ V level_rule_of(const DeviceCombo& c, const uint32_t* rec, int up_words,
                                           V held, V short_value) {
  const uint32_t mid = __ldg(rec);
  const uint32_t up = __ldg(rec + 1 + (c.up_index >> 5)) >> (c.up_index & 31);
  const uint32_t down = __ldg(rec + 1 + up_words + (c.down_index >> 5)) >> (c.down_index & 31);
  const LevelSignals<bool> s{(up & 1u) != 0, (down & 1u) != 0, (mid & 1u) != 0, (mid & 2u) != 0};
  return level_rule<V, bool>(c.fade, s, held, short_value, V(1), V(0));
}

// The record of bar t for the combo's n.
__device__ __forceinline__ const uint32_t* level_record(const DeviceCombo& c, const LevelBits& lb,
                                                        long long t) {
  return lb.bits + (static_cast<long long>(c.n_index) * lb.bars + t) * lb.words;
}

// p_t from p_{t-1} = held for a level family, as level_next_at decides it, from the table.
template <int Family, bool Vol, typename V>
__device__ __forceinline__ V level_next_bits(const DeviceCombo& c, const LevelBits& lb,
                                             const double* __restrict__ m, int rows, long long t,
                                             V held, V short_value) {
  if (t < c.first_defined) return V(0);
  if (!level_filter_open<Vol>(c, m, rows, t)) return held;
  return level_rule_of(c, level_record(c, lb, t), lb.up_words, held, short_value);
}

}  // namespace wfod::cuda
