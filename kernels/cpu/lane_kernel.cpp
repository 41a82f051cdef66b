// Run-time choice of the CPU kernel variant: the widest instruction set this CPU supports.
#include "lane_kernel.hpp"

#include "src/cpu_isa.hpp"

namespace wfod::cpu {

#define WFOD_DECLARE_VARIANT(isa)                                                   \
  namespace isa {                                                                   \
  void run_lanes(int, bool, const BarTables&, const double*, const LaneInput*, int, \
                 const LaneRange&, Summary*, const LaneBlocks*);                    \
  }
WFOD_FOR_EACH_CPU_VARIANT(WFOD_DECLARE_VARIANT)
#undef WFOD_DECLARE_VARIANT

namespace {
using RunLanes = void (*)(int, bool, const BarTables&, const double*, const LaneInput*, int,
                          const LaneRange&, Summary*, const LaneBlocks*);

struct Variant {
  RunLanes run;
  const char* name;
  bool fuses_blocks = false;  // built with the LaneBlocks tallies (WFOD_LANE_BLOCKS)
};

Variant pick() {
#if !defined(WFOD_GENERIC_KERNELS_ONLY)
  switch (preferred_cpu_isa()) {  // WFOD_CPU_KERNEL forces one (tests run parity on each)
    case CpuIsa::avx512:
      return {avx512::run_lanes, "avx512", true};
    case CpuIsa::avx2:
      return {avx2::run_lanes, "avx2"};
    case CpuIsa::generic:
      break;
  }
#endif
  return {generic::run_lanes, "generic"};
}

const Variant& chosen() {
  static const Variant v = pick();
  return v;
}
}  // namespace

void run_lanes(int kind, bool stops, const BarTables& bars, const double* matrix,
               const LaneInput* in, int lanes, const LaneRange& range, Summary* out,
               const LaneBlocks* blocks) {
  chosen().run(kind, stops, bars, matrix, in, lanes, range, out, blocks);
}

const char* lane_kernel_variant() { return chosen().name; }

bool lane_kernel_fuses_blocks() { return chosen().fuses_blocks; }

}  // namespace wfod::cpu
