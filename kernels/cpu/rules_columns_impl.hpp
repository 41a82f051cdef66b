// Body of rules_columns.hpp's comparison, compiled once per instruction set
// (rules_columns_<isa>.cpp each include it inside their own namespace). Eight bars at a time
// as one GCC/Clang vector (one zmm, two ymm or four xmm), branch-free; the scalar tail runs
// the same operations. Expects: namespace wfod::cpu::<isa> open.

using cvd = double __attribute__((vector_size(8 * sizeof(double))));
using cvm = int64_t __attribute__((vector_size(8 * sizeof(int64_t))));

inline cvd cload(const double* p) {
  cvd v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
// |x| (+0 for -0, as the lane kernel's vabs; only compared, so the sign of a zero is moot).
inline cvd cabs(cvd x) { return x <= 0.0 ? 0.0 - x : x; }
inline double sabs(double x) { return x <= 0.0 ? 0.0 - x : x; }

template <bool Exact, bool XM, bool YM>
void above_t(const double* xv, const double* xm, const double* yv, const double* ym, size_t shift,
             size_t n, uint8_t* out) {
  constexpr double kMax = std::numeric_limits<double>::max();
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const size_t i = k + shift;
    const cvd x = cload(xv + i), y = cload(yv + i);
    cvm ok = (cabs(x) <= kMax) & (cabs(y) <= kMax);
    if constexpr (Exact) {
      ok &= x > y;
    } else {
      const cvd mx = XM ? cload(xm + i) : cabs(x), my = YM ? cload(ym + i) : cabs(y);
      ok &= x - y > kDeadBand * (mx < my ? my : mx);
    }
    for (int j = 0; j < 8; ++j) out[k + static_cast<size_t>(j)] = static_cast<uint8_t>(ok[j] & 1);
  }
  for (; k < n; ++k) {
    const size_t i = k + shift;
    const double x = xv[i], y = yv[i];
    bool ok = (sabs(x) <= kMax) & (sabs(y) <= kMax);
    if constexpr (Exact) {
      ok = ok & (x > y);
    } else {
      const double mx = XM ? xm[i] : sabs(x), my = YM ? ym[i] : sabs(y);
      ok = ok & (x - y > kDeadBand * (mx < my ? my : mx));
    }
    out[k] = static_cast<uint8_t>(ok);
  }
}

inline void above_any(const double* xv, const double* xm, const double* yv, const double* ym,
                      size_t shift, size_t n, bool exact, uint8_t* out) {
  if (exact)
    above_t<true, false, false>(xv, nullptr, yv, nullptr, shift, n, out);
  else if (xm && ym)
    above_t<false, true, true>(xv, xm, yv, ym, shift, n, out);
  else if (xm)
    above_t<false, true, false>(xv, xm, yv, ym, shift, n, out);
  else if (ym)
    above_t<false, false, true>(xv, xm, yv, ym, shift, n, out);
  else
    above_t<false, false, false>(xv, xm, yv, ym, shift, n, out);
}
