// log1p with the host C library's rounding, for host and device alike. The cuda backend's
// prefix tables (prefix_tables.hpp) were built on the host with std::log1p; built on the
// device they must hold the same bits, and CUDA's own log1p rounds differently in the last
// place. glibc's x86-64 log1p is fdlibm's (Sun Microsystems, 1993: freely redistributable),
// and on a CPU with FMA (every x86-64 server since 2013) glibc runs the build of it compiled
// with -mfma (__log1p_fma, chosen at load time): argument reduction 1 + x = 2^k (1 + f) with a
// correction term, then a degree-14 polynomial in s = f / (2 + f). This evaluates the same
// operations in the same order with a fused multiply-add exactly where that build has one
// (read from its machine code), every other product rounded on its own (host code is built
// with -ffp-contract=off, device code with -fmad=false), so it returns the same double.
// LibmLog1p.EqualsTheHostLibrary (tests/unit/prefix_tables_test.cpp) checks it bit for bit.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "wfod/detail/hd.hpp"

namespace wfod::detail {

// The high 32 bits of a double's representation, as a signed int (fdlibm's GET_HIGH_WORD).
WFOD_HD inline int32_t high_word(double x) {
#if defined(__CUDA_ARCH__)
  return __double2hiint(x);
#else
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  return static_cast<int32_t>(bits >> 32);
#endif
}

// x with its high 32 bits replaced by `hi` (fdlibm's SET_HIGH_WORD).
WFOD_HD inline double with_high_word(double x, int32_t hi) {
#if defined(__CUDA_ARCH__)
  return __hiloint2double(hi, __double2loint(x));
#else
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  bits = (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) | (bits & 0xffffffffu);
  double out;
  memcpy(&out, &bits, sizeof out);
  return out;
#endif
}

WFOD_HD inline double libm_log1p(double x) {
  // ln 2 split so that k * kLn2Hi is exact for |k| < 2000; the polynomial's coefficients.
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42fee00000
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3dea39ef35793c76
  constexpr double kP1 = 6.666666666666735130e-01;       // 0x3FE5555555555593
  constexpr double kP2 = 3.999999999940941908e-01;       // 0x3FD999999997FA04
  constexpr double kP3 = 2.857142874366239149e-01;       // 0x3FD2492494229359
  constexpr double kP4 = 2.222219843214978396e-01;       // 0x3FCC71C51D8E78AF
  constexpr double kP5 = 1.818357216161805012e-01;       // 0x3FC7466496CB03DE
  constexpr double kP6 = 1.531383769920937332e-01;       // 0x3FC39A09D078C69F
  constexpr double kP7 = 1.479819860511658591e-01;       // 0x3FC2F112DF3E5244
  const int32_t hx = high_word(x);
  const int32_t ax = hx & 0x7fffffff;
  int32_t k = 1, hu = 0;
  double f = 0.0, c = 0.0;
  if (hx < 0x3FDA827A) {  // x < 0.41422, negatives included
    if (ax >= 0x3ff00000) return x == -1.0 ? -HUGE_VAL : (x - x) / (x - x);   // x <= -1
    if (ax < 0x3e200000) return ax < 0x3c900000 ? x : fma(-(x * x), 0.5, x);  // |x| < 2^-29
    if (hx > 0 || hx <= static_cast<int32_t>(0xbfd2bec3)) {  // -0.2929 < x < 0.41422
      k = 0;
      f = x;
      hu = 1;
    }
  } else if (hx >= 0x7ff00000) {
    return x + x;  // +inf, NaN
  }
  if (k != 0) {
    double u;
    if (hx < 0x43400000) {  // x < 2^53: 1 + x rounds, keep what it lost as c / u
      u = 1.0 + x;
      hu = high_word(u);
      k = (hu >> 20) - 1023;
      c = k > 0 ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    } else {
      u = x;
      hu = high_word(u);
      k = (hu >> 20) - 1023;
      c = 0.0;
    }
    hu &= 0x000fffff;
    if (hu < 0x6a09e) {  // u's mantissa below sqrt(2): u in [1, sqrt 2)
      u = with_high_word(u, hu | 0x3ff00000);
    } else {  // else u / 2 in [sqrt(2) / 2, 1)
      k += 1;
      u = with_high_word(u, hu | 0x3fe00000);
      hu = (0x00100000 - hu) >> 2;
    }
    f = u - 1.0;
  }
  const double hfsq = 0.5 * f * f;
  if (hu == 0) {  // |f| < 2^-20
    if (f == 0.0) {
      if (k == 0) return 0.0;
      return fma(k, kLn2Hi, fma(k, kLn2Lo, c));
    }
    const double r = hfsq * fma(-f, 0.66666666666666666, 1.0);
    return k == 0 ? f - r : fma(k, kLn2Hi, -((r - fma(k, kLn2Lo, c)) - f));
  }
  const double s = f / (2.0 + f);
  const double z = s * s;
  // The polynomial in four independent pieces (glibc's order, not Horner's), joined by fmas.
  const double z2 = z * z;
  const double z4 = z2 * z2;
  const double z6 = z4 * z2;
  const double r2 = fma(z, kP3, kP2);
  const double r3 = fma(z, kP5, kP4);
  const double r4 = fma(z, kP7, kP6);
  const double r = fma(z6, r4, fma(z4, r3, fma(z, kP1, z2 * r2)));
  const double sr = s * (hfsq + r);
  if (k == 0) return f - (hfsq - sr);
  return fma(k, kLn2Hi, -((hfsq - (fma(k, kLn2Lo, c) + sr)) - f));
}

}  // namespace wfod::detail
