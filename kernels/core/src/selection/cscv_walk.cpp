// Run-time choice of the fast CSCV kernels: the widest instruction set this CPU runs.
#include "cscv_walk.hpp"

namespace wfod::selection::cscv {

#define WFOD_DECLARE_VARIANT(isa)    \
  namespace isa {                    \
  const WalkKernels& walk_kernels(); \
  }
WFOD_FOR_EACH_CPU_VARIANT(WFOD_DECLARE_VARIANT)
#undef WFOD_DECLARE_VARIANT

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
