// One combo's decisions over tiles of up to 32 bars, without any accounting: per tile, each
// bar's change bit and the position held in its body (long and short bit masks). The set-or-hold
// families decide by the float32 screen with the float64 fallback (device_grid.cuh: next()'s
// answer, SPEC §9), their float inputs loaded several bars ahead; the level families read the
// LevelBits table or the float64 rows. Both device evaluators walk these tiles: the sweep's
// stretch evaluator (accounting at change bars only) and the per-bar range evaluator (the
// canonical summation order), so they decide identically.
#pragma once

#include <cstdint>

#include "device_grid.cuh"
#include "level_bits.cuh"
#include "signal_bits.cuh"
#include "sweep_kernels.cuh"
#include "wfod/detail/tile_positions.hpp"

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

// The signal-bit path (TileDecider::next_by_bits) on or off, and its tile of loads unrolled by
// step (1) or fully (0): benchmark knobs like the load steps.
#ifndef WFOD_TILE_BITS
#define WFOD_TILE_BITS 1
#endif
#ifndef WFOD_TILE_BITS_ROLLED
#define WFOD_TILE_BITS_ROLLED 1
#endif
// The bit path's bars of loads in flight (its own knobs: it keeps no per-bar state chain).
#ifndef WFOD_BITS_STEP
#define WFOD_BITS_STEP WFOD_LOAD_STEP
#endif
#ifndef WFOD_BITS_STEP_VOL
#define WFOD_BITS_STEP_VOL WFOD_LOAD_STEP_VOL
#endif
inline constexpr int kBitsStepPlain = WFOD_BITS_STEP, kBitsStepVol = WFOD_BITS_STEP_VOL;

inline constexpr int kTile = 32;
static_assert(kTile % kBitsStepPlain == 0 && kTile % kBitsStepVol == 0,
              "the signal-bit path loads whole steps");
static_assert(kBitsStepPlain % kFloatGroup == 0 && kBitsStepVol % kFloatGroup == 0,
              "the signal-bit path loads whole groups of bars (float_cell)");

// The end of the tile from t0 within a range ending at `last`: tiles end at multiples of
// kTile bars, so every tile but a range's first and last is whole and aligned: the
// signal-bit path loads their float inputs in 128-bit groups (it takes a partial tile only
// from the signal tables, within one word). Where the tiles fall changes no decision.
__device__ __forceinline__ long long tile_end(long long t0, long long last) {
  const long long end = (t0 | (kTile - 1)) + 1;
  return end < last ? end : last;
}

// The decisions of the bars t0 .. t0 + count - 1 of one tile.
struct TileDecisions {
  unsigned int change_mask;  // bit j: bar t0 + j changes the held position (p_{t-2} != p_{t-1})
  unsigned int held_long;    // bit j: the position held in bar t0 + j's body is +1
  unsigned int held_short;   // bit j: ... is -1 (neither: flat; bits past the tile's count: 0)

  __device__ __forceinline__ double held_at(int j) const {
    return static_cast<double>(static_cast<int>((held_long >> j) & 1u) -
                               static_cast<int>((held_short >> j) & 1u));
  }
  __device__ __forceinline__ int long_bars() const { return __popc(held_long); }
  __device__ __forceinline__ int short_bars() const { return __popc(held_short); }
};

// Walks one combo's bars tile by tile from `first`, given the state entering it: p2 = p_{first-2}
// and p1 = p_{first-1}. fast: precision "fast" (the floats decide alone).
//
// A whole aligned tile of a set-or-hold family whose bars are all defined (the common case),
// or any such tile whose signals the signal tables give, takes the signal-bit path: each bar's
// signals (signals_loaded, vol_open_loaded: the very comparisons of decide_loaded) become bits,
// cross entries and the gate are bit operations on them, and tile_positions turns them into the
// held positions and change bars, with no dependent per-bar select. Any other tile decides bar by
// bar (decide_int / the level rule).
//
// BitsStep: the signal-bit path's bars of loads in flight without a vol filter's rows (the
// split sweep's decisions kernel, with no accounting state, holds twice the others').
template <int Family, bool Cross, bool Vol, int BitsStep = kBitsStepPlain>
struct TileDecider {
  static_assert(kTile % BitsStep == 0 && BitsStep % kFloatGroup == 0,
                "the signal-bit path loads whole steps of whole groups of bars");
  const DeviceCombo& c;
  const BarData& bars;
  const int short_int;
  const bool fast;
  const float vol_factor;               // vol_screen_factor(c.threshold)
  const uint32_t* level_rec = nullptr;  // level families with a LevelBits table: the next bar's
  BarInputs prev{};                     // cross entries: the float inputs of the previous bar
  // Cross entries on the bit path: the raw signals of the bar before the next tile, when the
  // previous tile took the bit path (else they come from `prev`).
  uint32_t prev_up = 0, prev_down = 0;
  bool prev_bits = false;
  int ip2, ip1;  // p_{t-2} and p_{t-1} entering the next bar t

  __device__ __forceinline__ TileDecider(const DeviceCombo& combo, const BarData& b,
                                         long long first, long long last, double p2, double p1,
                                         bool fast_mode)
      : c(combo),
        bars(b),
        short_int(static_cast<int>(combo.short_value)),
        fast(fast_mode),
        vol_factor(Vol ? vol_screen_factor(combo.threshold) : 0.0f),
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
    if constexpr (!is_level_family(Family) && WFOD_TILE_BITS) {
      if (t0 >= c.first_defined && (!Cross || t0 - 1 >= c.signal_defined)) {
        // Whole aligned tiles; and any tile within one table word (a range's first and last,
        // tile_end) whose signals and gate all come from the tables.
        const bool tables = bars.signals.pair != nullptr && (!Vol || bars.signals.gate != nullptr);
        const bool aligned = (t0 & (kTile - 1)) == 0;
        if (count == kTile && aligned) return next_by_bits<true>(t0, kTile);
        if (tables && (t0 & (kTile - 1)) + count <= kTile) return next_by_bits<false>(t0, count);
      }
    }
    return next_by_bars(t0, count);
  }

  // The signal-bit path: a tile of `count` defined bars (for cross entries, bar t0 - 1's
  // signals defined too), whole and aligned unless the tables give every signal. The signals come
  // from the SignalBits tables where the sweep built them (exact answers, in precision "fast" too:
  // it may use float32, SPEC §9, and need not), else from the bars' float inputs.
  // Whole: a whole aligned tile (count == kTile at compile time: the masks fold away; -s24f:
  // C 47.4 -> 49.9 ms with a run-time count on every tile).
  template <bool Whole>
  __device__ __forceinline__ TileDecisions next_by_bits(long long t0, int count) {
    if constexpr (Whole) count = kTile;
    const SignalBits& sb = bars.signals;
    const bool pair_table = sb.pair != nullptr;
    const bool gate_table = Vol && sb.gate != nullptr;
    uint32_t up = 0, down = 0, open = ~0u;
    if (pair_table) {
      up = signal_word(sb.pair, sb.pair_keys, 2, 0, c.pair_index, t0);
      down = signal_word(sb.pair, sb.pair_keys, 2, 1, c.pair_index, t0);
    }
    if (gate_table) open = signal_word(sb.gate, sb.gate_keys, 1, 0, c.gate_index, t0);
    if (!pair_table && (gate_table || !Vol))
      signals_of_bars<true, false>(t0, up, down, open);
    else if (!pair_table)
      signals_of_bars<true, Vol>(t0, up, down, open);
    else if (Vol && !gate_table)
      signals_of_bars<false, true>(t0, up, down, open);
    uint32_t enter_up = up, enter_down = down;
    if constexpr (Cross) {
      // cross_entries: a signal counts where the bar before had the opposite order.
      if (!prev_bits) {
        const long long t = t0 - 1;
        const TrendSignals<bool> s = signals_loaded<Family>(c, prev.a, prev.b, bars.matrix,
                                                            bars.close, t * bars.rows, t, fast);
        prev_up = s.up ? 1u : 0u;
        prev_down = s.down ? 1u : 0u;
      }
      enter_up = up & ((down << 1) | prev_down);
      enter_down = down & ((up << 1) | prev_up);
      prev_up = (up >> (count - 1)) & 1u;
      prev_down = (down >> (count - 1)) & 1u;
      prev_bits = true;
    }
    if constexpr (Vol) {
      enter_up &= open;
      enter_down &= open;
    }
    const detail::TilePositions p =
        detail::tile_positions(enter_up, enter_down, short_int, ip2, ip1, count);
    ip2 = p.p2;
    ip1 = p.p1;
    return TileDecisions{p.change, p.held_long, p.held_short};
  }

  // The bits of a whole aligned tile of defined bars from their float inputs: the signals
  // (Signals: signals_loaded) and the gate (Gate: vol_open_loaded), the very comparisons of
  // decide_loaded, several bars' loads in flight, 4 bars of a row per 128-bit load.
  template <bool Signals, bool Gate>
  __device__ __forceinline__ void signals_of_bars(long long t0, uint32_t& up, uint32_t& down,
                                                  uint32_t& open) {
    const int rows = bars.rows;
    constexpr int kLoadStep = Signals && Gate ? kBitsStepVol : BitsStep;
    constexpr int kGroups = kLoadStep / kFloatGroup;
    const float4* row_a = float_group(bars.matrix32, t0, c.row_a, rows);
    const float4* row_b = float_group(bars.matrix32, t0, c.row_b, rows);
    const float4* row_vs = float_group(bars.matrix32, t0, c.row_vs, rows);
    const float4* row_vl = float_group(bars.matrix32, t0, c.row_vl, rows);
    if constexpr (Gate) open = 0;
#if WFOD_TILE_BITS_ROLLED
#pragma unroll 1
#else
#pragma unroll
#endif
    for (int j0 = 0; j0 < kTile; j0 += kLoadStep) {
      BarInputs step[kLoadStep];
#pragma unroll
      for (int k = 0; k < kGroups; ++k) {
        float4 a{}, b{}, vs{}, vl{};
        if constexpr (Signals) {
          a = row_a[k * rows];
          b = row_b[k * rows];
        }
        if constexpr (Gate) {
          vs = row_vs[k * rows];
          vl = row_vl[k * rows];
        }
        step[4 * k + 0] = BarInputs{a.x, b.x, vs.x, vl.x};
        step[4 * k + 1] = BarInputs{a.y, b.y, vs.y, vl.y};
        step[4 * k + 2] = BarInputs{a.z, b.z, vs.z, vl.z};
        step[4 * k + 3] = BarInputs{a.w, b.w, vs.w, vl.w};
      }
      if constexpr (Signals) {
        row_a += kGroups * rows;
        row_b += kGroups * rows;
      }
      if constexpr (Gate) {
        row_vs += kGroups * rows;
        row_vl += kGroups * rows;
      }
      // The step's bits at compile-time positions by the float screens alone, with no
      // branch per bar; the bars a screen leaves unsure are settled after the step by
      // signals_loaded / vol_open_loaded (the doubles, or the floats in precision "fast"),
      // reloading their floats, so each bar's answer is theirs.
      uint32_t step_up = 0, step_down = 0, step_open = 0, unsure = 0, gate_unsure = 0;
#pragma unroll
      for (int u = 0; u < kLoadStep; ++u) {
        if constexpr (Signals) {
          const float px32 =
              Family == kMaCross ? 0.0f : static_cast<float>(bars.close[t0 + j0 + u]);
          const ScreenedSignals s = screen_signals<Family>(step[u].a, step[u].b, px32);
          step_up |= static_cast<uint32_t>(s.up) << u;
          step_down |= static_cast<uint32_t>(s.down) << u;
          // ma_cross's bar is unsure exactly where it has neither signal: taken per step below.
          if constexpr (Family != kMaCross) unsure |= static_cast<uint32_t>(s.unsure) << u;
        }
        if constexpr (Gate) {
          const int o = screen_vol_open(step[u].vs, step[u].vl, vol_factor);
          step_open |= static_cast<uint32_t>(o == 1) << u;
          gate_unsure |= static_cast<uint32_t>(o < 0) << u;
        }
      }
      if constexpr (Signals && Family == kMaCross)
        unsure = ~(step_up | step_down) & ((1u << kLoadStep) - 1u);
      if (unsure | gate_unsure)
        settle_step<Signals, Gate>(t0 + j0, unsure, gate_unsure, step_up, step_down, step_open);
      up |= step_up << j0;
      down |= step_down << j0;
      open |= step_open << j0;
    }
  }

  // The bars of the step from t that the float screens left unsure (bits of unsure for the
  // signals, gate_unsure for the gate), settled by signals_loaded and vol_open_loaded from
  // their floats reloaded: rare, and not branched to at each bar.
  template <bool Signals, bool Gate>
  __device__ __forceinline__ void settle_step(long long t, uint32_t unsure, uint32_t gate_unsure,
                                              uint32_t& up, uint32_t& down, uint32_t& open) const {
    const int rows = bars.rows;
    while (unsure | gate_unsure) {
      const int u = __ffs(unsure | gate_unsure) - 1;
      const uint32_t bit = 1u << u;
      const long long at = (t + u) * rows;
      const BarInputs in = load_inputs<Family, Gate>(c, bars.matrix32, rows, t + u);
      if (Signals && (unsure & bit)) {
        const TrendSignals<bool> s =
            signals_loaded<Family>(c, in.a, in.b, bars.matrix, bars.close, at, t + u, fast);
        up = s.up ? up | bit : up & ~bit;
        down = s.down ? down | bit : down & ~bit;
      }
      if (Gate && (gate_unsure & bit)) {
        const bool o = vol_open_loaded(c, in.vs, in.vl, vol_factor, bars.matrix, at, fast);
        open = o ? open | bit : open & ~bit;
      }
      unsure &= ~bit;
      gate_unsure &= ~bit;
    }
  }

  // Bar by bar: partial tiles, bars not yet defined, and the level families.
  __device__ __forceinline__ TileDecisions next_by_bars(long long t0, int count) {
    const double* m = bars.matrix;
    const int rows = bars.rows;
    if constexpr (Cross) {
      // After a signal-bit tile `prev` is stale: bar t0 - 1's inputs (t0 >= 32 there).
      if (prev_bits) prev = load_inputs<Family, Vol>(c, bars.matrix32, rows, t0 - 1);
    }
    unsigned int change_mask = 0, held_long = 0, held_short = 0;
    // Bar j's held position and change bit, from p_{t-2} and p_{t-1}.
    const auto record = [&](int j) {
      change_mask |= static_cast<unsigned int>(ip2 != ip1) << j;
      held_long |= static_cast<unsigned int>(ip1 > 0) << j;
      held_short |= static_cast<unsigned int>(ip1 < 0) << j;
      ip2 = ip1;
    };
    // One bar's decision from its inputs: the held code and change bit of bar j, then p_t.
    const auto decide_bar = [&](int j, const BarInputs& in) {
      record(j);
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
          record(j);
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
      const auto load = [&](int j) {
        return load_inputs<Family, Vol>(c, bars.matrix32, rows, t0 + j);
      };
      int j = 0;
      for (; j + kLoadStep <= count; j += kLoadStep) {
        BarInputs step[kLoadStep];
#pragma unroll
        for (int u = 0; u < kLoadStep; ++u) step[u] = load(j + u);
#pragma unroll
        for (int u = 0; u < kLoadStep; ++u) decide_bar(j + u, step[u]);
      }
      for (; j < count; ++j) decide_bar(j, load(j));
      if constexpr (Cross) prev_bits = false;
    }
    return TileDecisions{change_mask, held_long, held_short};
  }
};

}  // namespace wfod::cuda
