// Run-time choice of the fast CSCV kernels: the widest instruction set this CPU runs.
#include "cscv_walk.hpp"

namespace wfod::selection::cscv {

#if !defined(WFOD_GENERIC_KERNELS_ONLY)
namespace avx512 {
const WalkKernels& walk_kernels();
}
namespace avx2 {
const WalkKernels& walk_kernels();
}
#endif
namespace generic {
const WalkKernels& walk_kernels();
}

const WalkKernels& walk_kernels(CpuIsa isa) {
#if defined(WFOD_GENERIC_KERNELS_ONLY)  // the only variant this build carries (cpu_isa.cpp)
  (void)isa;
#else
  switch (isa) {
    case CpuIsa::avx512:
      return avx512::walk_kernels();
    case CpuIsa::avx2:
      return avx2::walk_kernels();
    case CpuIsa::generic:
      break;
  }
#endif
  return generic::walk_kernels();
}

const WalkKernels& walk_kernels() {
  static const WalkKernels& chosen = walk_kernels(preferred_cpu_isa());
  return chosen;
}

}  // namespace wfod::selection::cscv
