// A reproducible synthetic price series for benchmarks: a geometric random walk drawn from
// a fixed seed with a generator whose output the C++ standard fixes (mt19937_64).

#include "synthetic_series.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "data_facts.hpp"

namespace wfod::cli {

namespace {

// Standard normal by Box-Muller from raw mt19937_64 output: std::normal_distribution's
// algorithm is up to the library, and the series must be the same everywhere.
class Normal {
 public:
  explicit Normal(uint64_t seed) : rng_(seed) {}
  double operator()() {
    double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  double uniform() {  // in (0, 1]
    return (static_cast<double>(rng_() >> 11) + 1.0) * 0x1.0p-53;
  }
  std::mt19937_64 rng_;
};

}  // namespace

Series geometric_random_walk(size_t bars, uint64_t seed) {
  constexpr int64_t kStartNs = 946'684'800'000'000'000;  // 2000-01-01T00:00:00Z
  constexpr double kDrift = 0.0002, kVol = 0.01, kGapVol = 0.002, kRangeVol = 0.004;
  Normal normal(seed);
  Series s;
  s.reserve(bars);
  double prev_close = 100.0;
  for (size_t t = 0; t < bars; ++t) {
    Bar b;
    b.ts_ns = kStartNs + static_cast<int64_t>(t) * kDayNs;
    b.open = prev_close * std::exp(kGapVol * normal());
    b.close = b.open * std::exp(kDrift + kVol * normal());
    b.high = std::max(b.open, b.close) * (1 + kRangeVol * std::abs(normal()));
    b.low = std::min(b.open, b.close) * (1 - kRangeVol * std::abs(normal()));
    b.volume = 1000;
    s.push_back(b);
    prev_close = b.close;
  }
  return s;
}

}  // namespace wfod::cli
