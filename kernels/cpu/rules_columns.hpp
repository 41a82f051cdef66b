// The comparison at the heart of a rules strategy's evaluation on the cpu backend (SPEC §5a):
// x ≻ y over a column of bars, compiled once per instruction set like the lane kernel
// (rules_columns_<isa>.cpp) and picked at run time. Every variant performs the same IEEE
// operations element by element (no fused multiply-add), so all give the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wfod::cpu {

// out[k] = x ≻ y at column index k + shift, k < n (cpu_ref's `above`): false when x or y is
// not finite; with `exact`, x > y; otherwise x − y > δ·max(M(x), M(y)), where M(x) is xm[i]
// or, with xm null (a leaf), |x|.
void above_columns(const double* xv, const double* xm, const double* yv, const double* ym,
                   size_t shift, size_t n, bool exact, uint8_t* out);

}  // namespace wfod::cpu
