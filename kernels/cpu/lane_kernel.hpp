// The CPU evaluation kernel: up to kLanes combos of one strategy kind side by side over a
// range of bars, each lane producing the Summary (SPEC §6) of that range. Positions are
// state machines (SPEC §2, §5) whose state at any bar is found by scanning back to the last
// bar whose outcome does not depend on the position before it (with stops, SPEC §5b: the
// last bar where no stop can be pending): chunks start anywhere, exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>  // the lane kernel's checked / unchecked bar loops
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>  // the lane kernel's mask tests (lane_kernel_impl.hpp any_change)
#endif

#include "src/lane_kinds.hpp"
#include "src/position_rules.hpp"
#include "src/stop_rules.hpp"
#include "wfod/grid.hpp"
#include "wfod/summary.hpp"

namespace wfod::cpu {

// The engine core's lane vocabulary (lane kinds, LaneInput, the position rules, indicator
// stores) is used unqualified throughout the cpu backend.
using namespace wfod::detail;

inline constexpr int kLanes = 8;

// A lane's strategy state entering bar t: the positions p_{t-2} and p_{t-1} (SPEC §2). A lane
// whose stops act carries a StopState beside it (src/stop_rules.hpp).
struct LaneState {
  int8_t p2 = 0, p1 = 0;
};

// The bars one call covers. Without start_state, the state at `first` is found by scanning
// back (position_at; for stops, stop_state_entering; the columns must start at bar 0) and
// start is ignored. With it (one per lane, entering bar `start`, 1 <= start <= first),
// decisions run forward from `start` and only [first, last) is summarised: how a stream
// replays part of a cached chunk without stored positions. end_state, when set, receives each
// lane's state entering bar `last`. The stop states go with them for a group whose stops act
// (start_stop with start_state, end_stop with end_state; ignored otherwise).
struct LaneRange {
  size_t start = 0, first = 0, last = 0;
  const LaneState* start_state = nullptr;
  LaneState* end_state = nullptr;
  const StopState* start_stop = nullptr;
  StopState* end_stop = nullptr;
};

// Block Summaries beside a range's own (robust selection's blocks computed in a sweep's own
// pass): the range [first, last) cut at `cuts` (strictly increasing, inside (first, last)),
// block b's Summary of lane j at out[b * kLanes + j]. Each block's tallies start from the
// state the bar loop is in at its edge, so block b equals a LaneRange over it entered with the
// state the previous block ended in (cpu_blocks.cpp's chain), bit for bit; the range's own
// Summary stays as without blocks.
struct LaneBlocks {
  const size_t* cuts = nullptr;
  size_t count = 0;  // cuts: count + 1 blocks
  Summary* out = nullptr;
};

// Summaries of bars [first, last) (first >= 1) for `lanes` lanes (1..kLanes); `matrix` is
// the indicator matrix the lanes' offsets point into (read as matrix[offset + t]). `stops`:
// the lanes' stops act (a group holds combos whose stops all act or all do not, so a grid's
// combos without stops run the kernel without the stop state). Picks the widest vector code
// the CPU runs (AVX-512, AVX2, or generic); every variant gives bit-identical results.
// `kind`: lane_kinds.hpp.
// `blocks`, when given, also receives the range's block Summaries (LaneBlocks).
void run_lanes(int kind, bool stops, const BarTables& bars, const double* matrix,
               const LaneInput* in, int lanes, const LaneRange& range, Summary* out,
               const LaneBlocks* blocks = nullptr);
inline void run_lanes(int kind, bool stops, const BarTables& bars, const double* matrix,
                      const LaneInput* in, int lanes, size_t first, size_t last, Summary* out) {
  run_lanes(kind, stops, bars, matrix, in, lanes, LaneRange{first, first, last}, out);
}

// Name of the variant run_lanes uses on this CPU ("avx512", "avx2", "generic").
const char* lane_kernel_variant();
// Whether that variant takes `blocks` (LaneBlocks): only the avx512 one is built with them
// (lane_kernel_avx512.cpp says why); elsewhere the caller runs the separate block pass.
bool lane_kernel_fuses_blocks();

}  // namespace wfod::cpu
