// Bit-exact Bar comparison for the codec round-trip oracles: -0.0 differs from 0.0 and a
// NaN equals the same NaN bit pattern, which `==` on doubles would both get wrong.
#pragma once

#include <bit>
#include <cstdint>

#include "wfod/bar.hpp"

namespace wfod::fuzz {

inline bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

inline bool bit_equal(const Bar& a, const Bar& b) {
  return a.ts_ns == b.ts_ns && same_bits(a.open, b.open) && same_bits(a.high, b.high) &&
         same_bits(a.low, b.low) && same_bits(a.close, b.close) && same_bits(a.volume, b.volume) &&
         a.seq == b.seq;
}

}  // namespace wfod::fuzz
