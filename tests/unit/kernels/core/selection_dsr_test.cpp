// Deflated Sharpe ratio (docs/spec-10-selection.md §10.3): a worked example from the
// paper's formulas, the normal quantile against the CDF, moments against a plain version,
// and the edge cases (N = 1, zero variance of Sharpes, T < 2, sigma = 0).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "wfod/selection/dsr.hpp"

namespace wfod::selection {
namespace {

// Worked example, per-period Sharpe ratios (daily bars: 0.1 per bar is 1.59 a year):
//   N = 100 trials, V[SR] = 0.0025 (sd 0.05), winner SR = 0.1, T = 252, skew -0.5, kurt 5.
//   Z(1 - 1/N)       = Z(0.99)                  = 2.326347874
//   Z(1 - 1/(N e))   = Z(1 - 0.0036787944)      = 2.680210445
//   SR0 = 0.05 * ((1 - 0.5772156649) * 2.326347874 + 0.5772156649 * 2.680210445)
//       = 0.05 * (0.983555... + 1.547059...)    = 0.126530145
//   radicand = 1 - (-0.5)(0.1) + (5 - 1)/4 * 0.01 = 1 + 0.05 + 0.01 = 1.06
//   z = (0.1 - 0.126530145) * sqrt(251) / sqrt(1.06) = -0.026530145 * 15.84297 / 1.029563
//     = -0.408247512
//   DSR = Phi(-0.408247512) = 0.341545985
TEST(Dsr, WorkedExample) {
  DsrInputs in;
  in.trials = 100;
  in.sharpe_var = 0.0025;
  in.winner = {252, 0.1, -0.5, 5.0};
  const DsrResult r = deflated_sharpe(in);
  EXPECT_NEAR(r.expected_max_sharpe, 0.12653014466008425, 1e-12);
  EXPECT_NEAR(r.dsr, 0.34154598506415373, 1e-10);
}

TEST(Dsr, NormalQuantileInvertsCdf) {
  for (double p :
       {1e-300, 1e-12, 1e-6, 0.001, 0.02425, 0.1, 0.3, 0.5, 0.77, 0.97575, 0.999, 1 - 1e-9}) {
    const double x = normal_quantile(p);
    EXPECT_NEAR(normal_cdf(x), p, 1e-14 * std::max(1.0, p * 10) + 4e-16 * p) << p;
  }
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_EQ(normal_quantile(0.5), 0.0);
  EXPECT_TRUE(std::isinf(normal_quantile(1.0)));
}

TEST(Dsr, MomentsMatchPlainFormulas) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE(trial);
    std::gamma_distribution<double> skewed(2.0, 0.01);
    std::vector<double> r(50 + trial * 37);
    for (double& x : r) x = skewed(rng) - 0.018;
    // Plain: population moments about the mean, long double.
    long double s = 0;
    for (double x : r) s += x;
    const long double n = r.size(), mu = s / n;
    long double m2 = 0, m3 = 0, m4 = 0;
    for (double x : r) {
      const long double d = x - mu;
      m2 += d * d;
      m3 += d * d * d;
      m4 += d * d * d * d;
    }
    m2 /= n;
    m3 /= n;
    m4 /= n;
    const ReturnMoments m = return_moments(r);
    EXPECT_EQ(m.bars, static_cast<int64_t>(r.size()));
    EXPECT_NEAR(m.sharpe, static_cast<double>(mu / std::sqrt(m2)), 1e-9);
    EXPECT_NEAR(m.skew, static_cast<double>(m3 / std::pow(m2, 1.5L)), 1e-9);
    EXPECT_NEAR(m.kurt, static_cast<double>(m4 / (m2 * m2)), 1e-9);
  }
}

TEST(Dsr, EdgeCases) {
  // sigma = 0 (always flat): Sharpe 0, normal shape.
  const std::vector<double> flat(30, 0.0);
  const ReturnMoments f = return_moments(flat);
  EXPECT_EQ(f.sharpe, 0.0);
  EXPECT_EQ(f.skew, 0.0);
  EXPECT_EQ(f.kurt, 3.0);
  // N = 1 and zero variance: no deflation, DSR = PSR against 0.
  EXPECT_EQ(expected_max_sharpe(1, 0.01), 0.0);
  EXPECT_EQ(expected_max_sharpe(50, 0.0), 0.0);
  DsrInputs in{1, 0.01, {100, 0.0, 0.0, 3.0}};
  EXPECT_DOUBLE_EQ(deflated_sharpe(in).dsr, 0.5);
  in.winner = {100, 0.1, 0.0, 3.0};  // PSR = Phi(0.1 sqrt(99) / sqrt(1 + 0.005))
  EXPECT_NEAR(deflated_sharpe(in).dsr, normal_cdf(0.1 * std::sqrt(99.0) / std::sqrt(1.005)), 1e-15);
  // T < 2: undefined.
  in.winner.bars = 1;
  EXPECT_TRUE(std::isnan(deflated_sharpe(in).dsr));
  // More trials raise the bar: DSR falls with N.
  DsrInputs a{10, 0.001, {500, 0.08, 0.0, 3.0}}, b = a;
  b.trials = 10000;
  EXPECT_GT(deflated_sharpe(a).dsr, deflated_sharpe(b).dsr);
  EXPECT_EQ(sample_variance(std::vector<double>{1.0}), 0.0);
  EXPECT_DOUBLE_EQ(sample_variance(std::vector<double>{1.0, 2.0, 3.0, 4.0}), 5.0 / 3.0);
}

}  // namespace
}  // namespace wfod::selection
