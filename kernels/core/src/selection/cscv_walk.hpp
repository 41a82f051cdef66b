// The vector kernels of the fast CSCV (cscv_fast.cpp): the walk that folds a chunk of
// participants over a subtree of half-sets and writes every half's screen (and, where the
// constraints can bind, whether it passes them), and the scans over one half's screens that
// rank and count. Compiled once per instruction set (cscv_walk_<isa>.cpp include
// cscv_walk_impl.hpp); every variant writes the same values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cscv_screen.hpp"
#include "src/cpu_isa.hpp"

namespace wfod::selection::cscv {

// The participants' CSCV blocks, one array per field, block-major: field[b * slots + s] is
// block b (0..S-1) of the participant in slot s. Only the fields the ranking needs are set.
struct WalkBlocks {
  int S = 0;
  size_t slots = 0;
  const double* m0 = nullptr;      // sum (sharpe, sortino)
  const double* m1 = nullptr;      // sum_sq (sharpe) or down_sq (sortino)
  const double* growth = nullptr;  // total_return; drawdown
  const double* peak = nullptr;    // drawdown
  const double* trough = nullptr;  // drawdown
  const double* drawdown = nullptr;
  const int32_t* runs = nullptr;  // trades of the block alone (closed + open head and tail)
  const int32_t* head = nullptr;  // head_pos
  const int32_t* tail = nullptr;  // tail_pos
  const int32_t* held = nullptr;  // long_bars + short_bars
};

// What the walk needs of the ranking (SPEC §7 on a half-set of `bars` bars).
struct WalkRanking {
  Screen screen = Screen::sharpe;
  bool drawdown = false;  // the drawdown constraint can bind: fold and check it
  double bars = 0;        // S/2 * block_bars: every half-set's bar count
  double annual = 0;      // sqrt(bars_per_year), as finalize computes it
  int32_t min_trades = 0;
  int32_t min_held = 0;  // exposure >= min_exposure <=> long + short bars >= min_held
  double max_drawdown = 1;
  bool screens = true;  // screens_apply(annual): else every screen is an exact value
};

// A subtree of the half-set tree: blocks 0..depth-1 already assigned, bit b of a_mask set
// when block b is in half A (block 0 always is: half B is the complement, so every leaf
// gives two splits, A in sample and B in sample).
struct WalkUnit {
  uint32_t a_mask = 1;
  int depth = 1;
};

// Where the walk writes the unit's leaves, in walk order: leaf l's half-A screens at
// y[2l * stride + s], half B's at y[(2l + 1) * stride + s] (likewise pass: 1 when the
// half passes the constraints; written by checked walks only), the highest screen_key of a
// passing slot of the call's chunk at best[2l] and best[2l + 1], its half-A mask at
// a_masks[l].
struct WalkOut {
  float* y = nullptr;
  uint8_t* pass = nullptr;
  size_t stride = 0;
  uint32_t* best = nullptr;
  uint32_t* a_masks = nullptr;
};

// A run of slots the walk takes in one call: its participants either all pass the
// constraints on every half-set (unchecked) or are checked, and either all keep the screen's
// guard on every half-set (moment_guard_always_holds) or are guarded.
struct WalkChunk {
  size_t s0 = 0, len = 0;
  bool checked = false, guarded = false;
};

// Per-thread fold levels, grown on first use.
struct WalkScratch {
  std::vector<double> d;
  std::vector<int32_t> i;
};

// Counts of a scan over screens against CountThresholds (count_screens).
struct ScreenCount {
  uint64_t under = 0, nan = 0;
};

// One instruction set's kernels.
struct WalkKernels {
  CpuIsa isa;
  // Walks unit `u` for the chunk's slots: every leaf's two screens (exact objectives rounded
  // to float where a screen's guard fails), best keys and, when checked, pass flags.
  void (*walk_unit)(const WalkBlocks&, const WalkRanking&, const WalkUnit&, const WalkChunk&,
                    const WalkOut&, WalkScratch&);
  // Appends to `out` the slots whose pass flag is set and whose screen is >= floor.
  void (*candidates)(const float* y, const uint8_t* pass, size_t n, float floor,
                     std::vector<uint32_t>& out);
  // Over n screens: `under` counts the finite screens <= t.under, `nan` the NaN ones; the
  // slots that neither a threshold nor NaN decides are appended to `undecided`.
  ScreenCount (*count_screens)(const float* y, size_t n, CountThresholds t,
                               std::vector<uint32_t>& undecided);
};

// The kernels built for `isa` (the caller checks cpu_supports).
const WalkKernels& walk_kernels(CpuIsa isa);
// The kernels this process uses: preferred_cpu_isa() at the first call.
const WalkKernels& walk_kernels();

}  // namespace wfod::selection::cscv
