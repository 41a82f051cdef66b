// The set-or-hold families' signals, decided once per key and bar where many combos share
// them. ma_cross's up/down signals at bar t depend only on its pair of rows (ma type, fast,
// slow) and channel_breakout's on (source, n); the vol filter's gate only on (short, long,
// threshold). A grid like the paper's (15 fast x 181 slow x 15 x 31 x 10 filters = 12.6M
// combos) repeats each pair's comparison for 4,650 filters and each filter's for 2,715 pairs.
// Here a kernel evaluates each once, with decide_at's float64 comparisons, and stores the
// answers as bits, 32 bars to a word; a combo's tile of 32 bars then costs a few word loads
// (TileDecider::next_by_bits) instead of 32 bars of float loads and screens. The same answers,
// not an approximation: positions are identical by construction (SPEC §9).
#pragma once

#include <cstdint>

#include "device_buffer.cuh"
#include "device_grid.cuh"

namespace wfod::cuda {

// Word w of a key covers bars [32w, 32w + 32), bit j = bar 32w + j; `words` per key cover the
// prepared bars (a tile of the signal-bit path lies within one word). Layout [w][key], so
// the lanes of a warp (consecutive fast values) read consecutive words.
//   pair: 2 words per (w, key): up (fast > slow; close > upper), then down;
//   gate: 1 word per (w, key): the filter is open (vs / vl > threshold, vl != 0).
// Bits of bars before a key's rows are defined are 0 (never read: tiles with such bars decide
// bar by bar). Null: no table (sharing too small, another family, too large).
struct SignalBits {
  const uint32_t* pair = nullptr;
  const uint32_t* gate = nullptr;
  long long pair_keys = 0, gate_keys = 0;
};

struct DeviceSignalBits {
  DeviceBuffer<uint32_t> pair, gate;
  SignalBits view;
};

// The bits from bar t0 to the end of its 32-bar word (bit 0 = bar t0; the tiles of the
// signal-bit path lie within one word, tile_end) of key `key` of a table with `keys` keys and
// `stride` words per (w, key) (bits at word offset `part`).
__device__ __forceinline__ uint32_t signal_word(const uint32_t* table, long long keys, int stride,
                                                int part, long long key, long long t0) {
  return __ldg(table + ((t0 >> 5) * keys + key) * stride + part) >>
         static_cast<unsigned int>(t0 & 31);
}

// Builds the tables a grid's sweep can use over bars [0, bars) of the transposed float64
// indicator matrix and the close (both precisions read them: exact answers are what precision
// "fast" may approximate, SPEC §9). A table is built when at least min_sharing of the
// grid's combos share each of its keys on average (CudaTuning::min_signal_sharing by default,
// tuning.cuh: fewer, and building it costs about what it saves) and it fits
// (decision_table_cap, device_memory.cuh); otherwise its view stays null.
void build_signal_bits(const GridTables& g, unsigned long long min_sharing, const double* matrix,
                       int rows, const double* close, long long bars, DeviceSignalBits& out);

}  // namespace wfod::cuda
