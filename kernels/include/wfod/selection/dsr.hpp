// Deflated Sharpe ratio (Bailey & López de Prado 2014; docs/spec-10-selection.md §10.3):
// the probability that the winner's true Sharpe exceeds the best Sharpe that N trials of
// zero true Sharpe would show by luck. Every Sharpe here is per period (per bar), never
// annualised.
#pragma once

#include <cstdint>
#include <span>

namespace wfod::selection {

inline constexpr double kEulerGamma = 0.57721566490153286061;

// Standard normal CDF and its inverse (Acklam's rational start, one Halley step: ~1e-15).
double normal_cdf(double x);
double normal_quantile(double p);  // p in (0, 1); -inf at 0, +inf at 1

// Per-period Sharpe and the (population) shape of a return series.
struct ReturnMoments {
  int64_t bars = 0;   // T
  double sharpe = 0;  // mu / sigma (0 when sigma = 0, as SPEC §6 / spec-notes 1)
  double skew = 0;    // m3 / m2^1.5 (0 when sigma = 0)
  double kurt = 3;    // m4 / m2^2, non-excess (3 when sigma = 0)
};
ReturnMoments return_moments(std::span<const double> returns);

struct DsrInputs {
  uint64_t trials = 0;    // N: valid combos tried
  double sharpe_var = 0;  // V: sample variance (N - 1) of the trials' per-period Sharpes
  ReturnMoments winner;   // the winner's returns over the window
};

struct DsrResult {
  DsrInputs inputs;
  double expected_max_sharpe = 0;  // SR0, per period
  double dsr = 0;                  // in [0, 1]; NaN when T < 2
};

// SR0 = sqrt(V) ((1 - g) Z(1 - 1/N) + g Z(1 - 1/(N e))), 0 when N <= 1 or V <= 0;
// DSR = Phi((SR - SR0) sqrt(T - 1) / sqrt(1 - skew SR + (kurt - 1)/4 SR^2)).
double expected_max_sharpe(uint64_t trials, double sharpe_var);
DsrResult deflated_sharpe(const DsrInputs&);

// Sample variance (divide by n - 1) of the values; 0 for fewer than two.
double sample_variance(std::span<const double> values);

}  // namespace wfod::selection
