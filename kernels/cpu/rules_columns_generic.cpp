// The rules comparison (rules_columns.hpp) built for the generic instruction set.
#include <cstdint>
#include <cstring>
#include <limits>

#include "rules_columns.hpp"
#include "wfod/indicators.hpp"

namespace wfod::cpu::generic {
#include "rules_columns_impl.hpp"
void above_columns(const double* xv, const double* xm, const double* yv, const double* ym,
                   size_t shift, size_t n, bool exact, uint8_t* out) {
  above_any(xv, xm, yv, ym, shift, n, exact, out);
}
}  // namespace wfod::cpu::generic
