// The fast CSCV kernels compiled for the generic instruction set (flags in kernels/CMakeLists.txt).
#include <algorithm>
#include <cmath>
#include <limits>

#include "cscv_walk.hpp"

namespace wfod::selection::cscv::generic {
#include "cscv_walk_impl.hpp"

const WalkKernels& walk_kernels() {
  static const WalkKernels k = kernels(CpuIsa::generic);
  return k;
}
}  // namespace wfod::selection::cscv::generic
