// The fast CSCV kernels compiled for the avx2 instruction set (flags in kernels/CMakeLists.txt).
#include <algorithm>
#include <cmath>
#include <limits>

#include "cscv_walk.hpp"

namespace wfod::selection::cscv::avx2 {
#include "cscv_walk_impl.hpp"

const WalkKernels& walk_kernels() {
  static const WalkKernels k = kernels(CpuIsa::avx2);
  return k;
}
}  // namespace wfod::selection::cscv::avx2
