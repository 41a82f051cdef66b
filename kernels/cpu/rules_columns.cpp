// Run-time choice of the rules comparison's variant: the widest instruction set this CPU runs
// (WFOD_CPU_KERNEL forces one, as for the lane kernel).
#include "rules_columns.hpp"

#include "src/cpu_isa.hpp"

namespace wfod::cpu {

#define WFOD_DECLARE_VARIANT(isa)                                                                \
  namespace isa {                                                                                \
  void above_columns(const double*, const double*, const double*, const double*, size_t, size_t, \
                     bool, uint8_t*);                                                            \
  }
WFOD_FOR_EACH_CPU_VARIANT(WFOD_DECLARE_VARIANT)
#undef WFOD_DECLARE_VARIANT

namespace {
using Above = void (*)(const double*, const double*, const double*, const double*, size_t, size_t,
                       bool, uint8_t*);
Above pick() {
#if !defined(WFOD_GENERIC_KERNELS_ONLY)
  switch (preferred_cpu_isa()) {
    case CpuIsa::avx512:
      return avx512::above_columns;
    case CpuIsa::avx2:
      return avx2::above_columns;
    case CpuIsa::generic:
      break;
  }
#endif
  return generic::above_columns;
}
}  // namespace

void above_columns(const double* xv, const double* xm, const double* yv, const double* ym,
                   size_t shift, size_t n, bool exact, uint8_t* out) {
  static const Above chosen = pick();
  chosen(xv, xm, yv, ym, shift, n, exact, out);
}

}  // namespace wfod::cpu
