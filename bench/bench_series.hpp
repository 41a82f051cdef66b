// The seeded synthetic series (and grid axes) the GPU and stream benchmarks run on: a geometric
// random walk, bit for bit the same on every machine, so results in RESULTS.md compare across runs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "wfod/bar.hpp"

namespace wfod::bench {

struct WalkShape {
  double drift, vol;    // of the log close-to-close step
  double high, low;     // high = max(open, close) * high, low = min(open, close) * low
  int64_t step_ns;      // bar spacing
  int64_t first_index;  // ts of bar t = (t + first_index) * step_ns
};
// gpu_bench and selection_bench: daily bars from ts 0.
inline constexpr WalkShape kDailyWalk{0.0003, 0.012, 1.002, 0.998, 86'400'000'000'000LL, 0};
// stream_bench: minute bars from ts one minute.
inline constexpr WalkShape kMinuteWalk{0.0002, 0.01, 1.001, 0.999, 60'000'000'000LL, 1};

// a, a + step, ..., up to b: a grid axis.
inline std::vector<int> range(int a, int b, int step = 1) {
  std::vector<int> v;
  for (int x = a; x <= b; x += step) v.push_back(x);
  return v;
}

inline Series random_walk(size_t bars, uint64_t seed, const WalkShape& w) {
  Series s;
  s.reserve(bars);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> step(w.drift, w.vol);
  double close = 100;
  for (size_t t = 0; t < bars; ++t) {
    const double open = close * std::exp(step(rng) * 0.2);
    const double next = close * std::exp(step(rng));
    s.push_back(Bar{(static_cast<int64_t>(t) + w.first_index) * w.step_ns, open,
                    std::max(open, next) * w.high, std::min(open, next) * w.low, next, 1000, 0});
    close = next;
  }
  return s;
}

}  // namespace wfod::bench
