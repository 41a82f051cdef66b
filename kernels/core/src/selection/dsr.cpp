// Deflated Sharpe ratio (docs/spec-10-selection.md §10.3), with the normal CDF/quantile it
// needs. Per-period Sharpe ratios throughout: T is the window's bar count.
#include "wfod/selection/dsr.hpp"

#include <cmath>
#include <limits>
#include <numbers>

namespace wfod::selection {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_quantile(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  // Acklam's rational approximation (relative error 1.15e-9) ...
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  constexpr double low = 0.02425;
  double x;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - low) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // ... refined by one Halley step on Phi(x) - p, which brings it to double precision.
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

ReturnMoments return_moments(std::span<const double> r) {
  ReturnMoments m;
  m.bars = static_cast<int64_t>(r.size());
  if (r.empty()) return m;
  const double n = static_cast<double>(r.size());
  double sum = 0;
  for (double x : r) sum += x;
  const double mu = sum / n;
  // Central moments about the mean, two-pass: the shape needs more care than SPEC §6's
  // one-pass sigma, whose value we match for the Sharpe itself.
  double m2 = 0, m3 = 0, m4 = 0, sq = 0;
  for (double x : r) {
    const double d = x - mu, d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d2;
    sq += x * x;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  const double var = std::fmax(0.0, sq / n - mu * mu);  // as finalize (SPEC §6)
  const double sd = std::sqrt(var);
  m.sharpe = sd > 0 ? mu / sd : 0.0;
  if (sd > 0 && m2 > 0) {
    m.skew = m3 / std::pow(m2, 1.5);
    m.kurt = m4 / (m2 * m2);
  }
  return m;
}

double sample_variance(std::span<const double> v) {
  if (v.size() < 2) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return ss / static_cast<double>(v.size() - 1);
}

double expected_max_sharpe(uint64_t trials, double sharpe_var) {
  // One trial is no selection; zero spread means every trial showed the same Sharpe.
  if (trials <= 1 || !(sharpe_var > 0)) return 0;
  const double n = static_cast<double>(trials);
  return std::sqrt(sharpe_var) * ((1 - kEulerGamma) * normal_quantile(1 - 1 / n) +
                                  kEulerGamma * normal_quantile(1 - 1 / (n * std::exp(1.0))));
}

DsrResult deflated_sharpe(const DsrInputs& in) {
  DsrResult r;
  r.inputs = in;
  r.expected_max_sharpe = expected_max_sharpe(in.trials, in.sharpe_var);
  const ReturnMoments& w = in.winner;
  if (w.bars < 2) {
    r.dsr = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  const double sr = w.sharpe;
  // The radicand is >= (1 - skew SR / 2)^2 >= 0 because kurt >= skew^2 + 1; it is 0 only
  // on degenerate two-point returns, where the z-score is infinite (DSR 0 or 1).
  const double radicand = 1 - w.skew * sr + (w.kurt - 1) / 4 * sr * sr;
  const double num = (sr - r.expected_max_sharpe) * std::sqrt(static_cast<double>(w.bars - 1));
  if (!(radicand > 0)) {
    r.dsr = num > 0 ? 1.0 : num < 0 ? 0.0 : 0.5;
    return r;
  }
  r.dsr = normal_cdf(num / std::sqrt(radicand));
  return r;
}

}  // namespace wfod::selection
