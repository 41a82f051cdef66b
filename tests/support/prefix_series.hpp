// Histories for the prefix-table tests (tests/unit/kernels/core/prefix_tables_test.cpp and
// tests/parity/prefix_tables_device_test.cpp): every real data file, and hostile series whose
// returns reach what double prefix sums and log1p find hard.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/series.hpp"

namespace wfod::test {

struct NamedSeries {
  std::string name;
  Series series;
};

// Scaled random walks, constant stretches between huge jumps, returns near -1, and 150k bars.
inline std::vector<NamedSeries> hostile_prefix_series() {
  std::vector<NamedSeries> out;
  auto scaled = [](Series s, double k) {
    for (auto* col : {&s.open, &s.high, &s.low, &s.close})
      for (double& v : *col) v *= k;
    return s;
  };
  out.push_back({"huge_prices", scaled(random_walk(5'000, 21, 100, 0.02, 0.01), 1e290)});
  out.push_back({"tiny_prices", scaled(random_walk(5'000, 22, 100, 0.02, 0.01), 1e-290)});
  out.push_back({"walk_150k", random_walk(150'601, 2, 100, 0.01, 0.003)});
  {
    // Constant stretches of 1 to 400 bars joined by jumps of up to x1e6 and down to -99.9999%.
    Series s = constant_series(40'000, 1.0);
    std::mt19937_64 rng(23);
    std::uniform_int_distribution<int> stretch(1, 400);
    const double jumps[] = {1e6, 1e-6, 1.5, 0.5, 1 + 1e-15, 1 - 1e-15, 2.0, 1e-3};
    double price = 1.0;
    for (size_t t = 0, next = 0, j = 0; t < s.size(); ++t) {
      if (t == next) {
        price *= jumps[j++ % std::size(jumps)];
        if (price > 1e200 || price < 1e-200) price = 1.0;
        next = t + static_cast<size_t>(stretch(rng));
      }
      s.open[t] = s.high[t] = s.low[t] = s.close[t] = price;
    }
    out.push_back({"constant_stretches_and_jumps", std::move(s)});
  }
  {
    // Every bar a return in (-1, 0.41422) or above, hitting each branch of log1p.
    Series s = random_walk(20'000, 24, 100, 0.5, 0.2);
    out.push_back({"wild_walk", std::move(s)});
  }
  return out;
}

}  // namespace wfod::test
