// The CPU hot loop compiled for the avx512 instruction set (flags set in kernels/CMakeLists.txt).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "lane_kernel.hpp"

// The fused block tallies (LaneBlocks) are compiled into this variant only: they double the
// kernel's instantiations, and the avx2 and generic variants (512-bit vectors split by the
// compiler) already took ~4 CPU-minutes each to compile; on CPUs without AVX-512 the sweep's
// blocks come from the separate pass (bit-identical either way).
#define WFOD_LANE_BLOCKS 1
namespace wfod::cpu::avx512 {
#include "lane_kernel_impl.hpp"

void run_lanes(int kind, bool stops, const BarTables& bars, const double* m, const LaneInput* in,
               int lanes, const LaneRange& range, Summary* out, const LaneBlocks* blocks) {
  run_lanes_any(kind, stops, bars, m, in, lanes, range, out, blocks);
}
}  // namespace wfod::cpu::avx512
