// Helpers of the parity tests that hold one backend's results to another's bit for bit: a
// backend by name or the reason it cannot run here (the test then skips visibly), a strategy
// of a grid, bit equality of doubles, and two sweeps' results compared to the bit.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "support/compare.hpp"
#include "wfod/backend.hpp"

namespace wfod::test {

// A backend made by name, or why not (e.g. cuda without a device): GTEST_SKIP() << skip.
struct MadeBackend {
  std::unique_ptr<Backend> backend;
  std::string skip;
};

inline MadeBackend make_or_skip(const std::string& name) {
  MadeBackend m;
  try {
    m.backend = make_backend(name);
  } catch (const std::exception& e) {
    m.skip = name + " backend not available here: " + e.what();
  }
  return m;
}

// A strategy of `g` with this fill and commission, daily bars (252 a year).
inline StrategySpec spec_of(Grid g, Fill fill, double commission_bps) {
  StrategySpec s;
  s.grid = std::move(g);
  s.fill = fill;
  s.costs.commission_bps = commission_bps;
  s.bars_per_year = 252;
  return s;
}

// Equal to the last bit (the sign of a zero and a NaN's payload too).
inline bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

// Counters, ids in rank order, every metric and objective of two sweeps, to the bit.
inline void expect_same_sweep_bits(const SweepResult& got, const SweepResult& want) {
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(ids_of(got.top), ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i) {
    const Metrics &g = got.top[i].metrics, &w = want.top[i].metrics;
    for (const IntField& f : kIntFields)
      EXPECT_EQ(g.*f.member, w.*f.member) << "rank " << i << " " << f.name;
    for (const RealField& f : kRealFields)
      EXPECT_TRUE(same_bits(g.*f.member, w.*f.member))
          << "rank " << i << " " << f.name << ": " << g.*f.member << " vs " << w.*f.member;
    EXPECT_TRUE(same_bits(got.top[i].objective, want.top[i].objective)) << "rank " << i;
  }
}

}  // namespace wfod::test
