// One combo's decisions over tiles of up to 32 bars, without any accounting: per tile, each
// bar's change bit and the position held in its body as a 2-bit code. The set-or-hold families
// decide by the float32 screen with the float64 fallback (device_grid.cuh: next()'s answer,
// SPEC §9), their float inputs loaded several bars ahead; the level families read the
// LevelBits table or the float64 rows. Both device evaluators walk these tiles: the sweep's
// stretch evaluator (accounting at change bars only) and the per-bar range evaluator (the
// canonical summation order), so they decide identically.
#pragma once

#include <cstdint>

#include "device_grid.cuh"
#include "level_bits.cuh"
#include "sweep_kernels.cuh"

namespace wfod::cuda {

// How many bars' float inputs a lane loads before deciding any of them (compile-time, so a
// benchmark can build variants with -D...): 8, and 4 with a vol filter's two extra rows
// (bench/results/h200-2026-12-03-s15a: A 9.5 -> 6.0 ms, C 435 -> 365 ms against one bar at a
// time; -s15b: 16 and 8 slower).
#ifndef WFOD_LOAD_STEP
#define WFOD_LOAD_STEP 8
#endif
#ifndef WFOD_LOAD_STEP_VOL
#define WFOD_LOAD_STEP_VOL 4
#endif
inline constexpr int kLoadStepPlain = WFOD_LOAD_STEP, kLoadStepVol = WFOD_LOAD_STEP_VOL;

inline constexpr int kTile = 32;

// The decisions of the bars t0 .. t0 + count - 1 of one tile.
struct TileDecisions {
  unsigned int change_mask;  // bit j: bar t0 + j changes the held position (p_{t-2} != p_{t-1})
  unsigned long long held;   // bits 2j, 2j + 1: the position held in bar t0 + j's body, plus 1

  __device__ __forceinline__ double held_at(int j) const {
    return static_cast<double>((held >> (2 * j)) & 3u) - 1.0;
  }
  // Bars of the tile held long (code 2: the high bit) and flat (code 1: the low bit); the
  // codes of bars past the tile's count are 0.
  __device__ __forceinline__ int long_bars() const {
    return __popcll(held & 0xAAAAAAAAAAAAAAAAull);
  }
  __device__ __forceinline__ int flat_bars() const {
    return __popcll(held & 0x5555555555555555ull);
  }
};

// Walks one combo's bars tile by tile from `first`, given the state entering it: p2 = p_{first-2}
// and p1 = p_{first-1}. fast: precision "fast" (the floats decide alone).
template <int Family, bool Cross, bool Vol>
struct TileDecider {
  const DeviceCombo& c;
  const BarData& bars;
  const int short_int;
  const bool fast;
  const uint32_t* level_rec = nullptr;  // level families with a LevelBits table: the next bar's
  BarInputs prev{};                     // cross entries: the float inputs of the previous bar
  int ip2, ip1;                         // p_{t-2} and p_{t-1} entering the next bar t

  __device__ __forceinline__ TileDecider(const DeviceCombo& combo, const BarData& b,
                                         long long first, long long last, double p2, double p1,
                                         bool fast_mode)
      : c(combo),
        bars(b),
        short_int(static_cast<int>(combo.short_value)),
        fast(fast_mode),
        ip2(static_cast<int>(p2)),
        ip1(static_cast<int>(p1)) {
    if constexpr (is_level_family(Family)) {
      if (bars.level.bits != nullptr && first < last)
        level_rec = level_record(c, bars.level, first);
    }
    if constexpr (Cross) {
      if (first >= 1) prev = load_inputs<Family, Vol>(c, bars.matrix32, bars.rows, first - 1);
    }
  }

  // The tile of `count` (1..kTile) bars from t0, the bar after the previous tile's last.
  __device__ __forceinline__ TileDecisions next(long long t0, int count) {
    const double* m = bars.matrix;
    const int rows = bars.rows;
    unsigned int change_mask = 0;
    unsigned long long held = 0;
    // One bar's decision from its inputs: the held code and change bit of bar j, then p_t.
    const auto decide_bar = [&](int j, const BarInputs& in) {
      change_mask |= static_cast<unsigned int>(ip2 != ip1) << j;
      held |= static_cast<unsigned long long>(ip1 + 1) << (2 * j);
      ip2 = ip1;
      // t >= first_defined in 64 bits per bar: the same test turned into a 32-bit bar count per
      // tile measured slower (C 399 vs 365 ms, bench/results/h200-2026-12-03-s15b).
      const bool defined = t0 + j >= c.first_defined;
      ip1 = decide_int<Family, Cross, Vol>(c, short_int, in, prev, m, rows, bars.close, t0 + j,
                                           defined, fast, ip1);
      prev = in;
    };
    if constexpr (is_level_family(Family)) {
      // The level families decide from the LevelBits table or the float64 rows: no float loads.
      for (int j = 0; j < count; ++j) {
        if (level_rec != nullptr) {
          // level_next_bits with the record pointer stepped per bar, written out here: calling
          // a shared helper instead measured ~1.5% slower on gpu_bench D (7.32 vs 7.21-7.24
          // ms, bench/results/h200-2026-12-02-s12f).
          change_mask |= static_cast<unsigned int>(ip2 != ip1) << j;
          held |= static_cast<unsigned long long>(ip1 + 1) << (2 * j);
          ip2 = ip1;
          const long long t = t0 + j;
          if (t < c.first_defined)
            ip1 = 0;
          else if (level_filter_open<Vol>(c, m, rows, t))
            ip1 = level_rule_of(c, level_rec, bars.level.up_words, ip1, short_int);
          level_rec += bars.level.words;
        } else {
          decide_bar(j, BarInputs{});
        }
      }
    } else {
      // kLoadStep bars' float inputs are loaded before any of them is decided: that many loads
      // in flight per lane instead of one bar's (the loop waited on each bar's L2 loads).
      constexpr int kLoadStep = Vol ? kLoadStepVol : kLoadStepPlain;
      const float* row_a = bars.matrix32 + t0 * rows + c.row_a;
      const float* row_b = bars.matrix32 + t0 * rows + c.row_b;
      const float* row_vs = bars.matrix32 + t0 * rows + c.row_vs;
      const float* row_vl = bars.matrix32 + t0 * rows + c.row_vl;
      const auto load = [&](int u) {
        BarInputs in;
        in.a = row_a[u * rows];
        in.b = row_b[u * rows];
        if constexpr (Vol) {
          in.vs = row_vs[u * rows];
          in.vl = row_vl[u * rows];
        } else {
          in.vs = in.vl = 0.0f;
        }
        return in;
      };
      const auto advance = [&](int n) {
        row_a += n * rows;
        row_b += n * rows;
        if constexpr (Vol) {
          row_vs += n * rows;
          row_vl += n * rows;
        }
      };
      int j = 0;
      for (; j + kLoadStep <= count; j += kLoadStep) {
        BarInputs step[kLoadStep];
#pragma unroll
        for (int u = 0; u < kLoadStep; ++u) step[u] = load(u);
        advance(kLoadStep);
#pragma unroll
        for (int u = 0; u < kLoadStep; ++u) decide_bar(j + u, step[u]);
      }
      for (; j < count; ++j) {
        decide_bar(j, load(0));
        advance(1);
      }
    }
    return TileDecisions{change_mask, held};
  }
};

}  // namespace wfod::cuda
