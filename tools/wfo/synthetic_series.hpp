// A reproducible synthetic price series for benchmarks: a geometric random walk drawn from
// a fixed seed with a generator whose output the C++ standard fixes (mt19937_64).
#pragma once

#include <cstddef>
#include <cstdint>

#include "wfod/bar.hpp"

namespace wfod::cli {

// `bars` daily bars from 2000-01-01, close starting at 100, ~1% daily volatility.
Series geometric_random_walk(size_t bars, uint64_t seed);

}  // namespace wfod::cli
