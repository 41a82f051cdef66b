// The CPU hot loop compiled for the generic instruction set (flags set in kernels/CMakeLists.txt).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "lane_kernel.hpp"

// No fused block tallies here (lane_kernel_avx512.cpp says why): lane_kernel_fuses_blocks().
#define WFOD_LANE_BLOCKS 0
namespace wfod::cpu::generic {
#include "lane_kernel_impl.hpp"

void run_lanes(int kind, bool stops, const BarTables& bars, const double* m, const LaneInput* in,
               int lanes, const LaneRange& range, Summary* out, const LaneBlocks* blocks) {
  run_lanes_any(kind, stops, bars, m, in, lanes, range, out, blocks);
}
}  // namespace wfod::cpu::generic
