// The positions of a tile of up to 32 bars of a set-or-hold family (SPEC §5 trend_rule) from
// its signal bits, by bit operations instead of one dependent select per bar: bar j of the
// tile sets p = +1 where its up bit is set, else p = short_value where its down bit is set,
// else holds p_{t-1}. A forward fill (Kogge-Stone: five shift/and/or steps for 32 bars)
// carries each set position to the next event. Written for the CUDA tile decider and tested
// on the host against the per-bar rule (tests/unit/kernels/core/tile_positions_test.cpp).
#pragma once

#include <cstdint>

#include "wfod/detail/hd.hpp"

namespace wfod::detail {

// Bits j of `gen` spread upward through bars whose `pass` bit is set: result bit j is set iff
// some i <= j has gen bit i and every bar in (i, j] passes.
WFOD_HD inline uint32_t fill_forward(uint32_t gen, uint32_t pass) {
  gen |= pass & (gen << 1);
  pass &= pass << 1;
  gen |= pass & (gen << 2);
  pass &= pass << 2;
  gen |= pass & (gen << 4);
  pass &= pass << 4;
  gen |= pass & (gen << 8);
  pass &= pass << 8;
  gen |= pass & (gen << 16);
  return gen;
}

// One tile's positions as the tile decider reports them.
struct TilePositions {
  uint32_t held_long;   // bit j: p_{t-1} = +1 in bar t0 + j's body
  uint32_t held_short;  // bit j: p_{t-1} = -1
  uint32_t change;      // bit j: p_{t-2} != p_{t-1}
  int p2, p1;           // p_{t-2} and p_{t-1} entering the bar after the tile
};

// Bars t0 .. t0 + count - 1 (count 1..32) with up / down signal bits (after cross entries and
// the filter's gate; bits at or past count are ignored), short_value -1 or 0, entering the
// tile with p2 = p_{t0-2} and p1 = p_{t0-1} (each -1, 0 or +1).
WFOD_HD inline TilePositions tile_positions(uint32_t up, uint32_t down, int short_value, int p2,
                                            int p1, int count) {
  const uint32_t mask = count >= 32 ? ~0u : (1u << count) - 1u;
  up &= mask;
  down &= mask & ~up;  // trend_rule tests up first
  const uint32_t events = up | down;
  const uint32_t sets_short = short_value < 0 ? down : 0u;
  // Position after bar j: +1 from an up bar (or entering long) until the next down bar; -1
  // from a down bar of a long_short combo (or entering short) until the next other event.
  const uint32_t enter_long = p1 > 0 && (events & 1u) == 0 ? 1u : 0u;
  const uint32_t enter_short = p1 < 0 && (events & 1u) == 0 ? 1u : 0u;
  const uint32_t after_long = fill_forward(up | enter_long, ~down);
  const uint32_t after_short = fill_forward(sets_short | enter_short, ~(events & ~sets_short));
  TilePositions out;
  out.held_long = ((after_long << 1) | (p1 > 0 ? 1u : 0u)) & mask;
  out.held_short = ((after_short << 1) | (p1 < 0 ? 1u : 0u)) & mask;
  const uint32_t before_long = (out.held_long << 1) | (p2 > 0 ? 1u : 0u);
  const uint32_t before_short = (out.held_short << 1) | (p2 < 0 ? 1u : 0u);
  out.change = ((out.held_long ^ before_long) | (out.held_short ^ before_short)) & mask;
  const int last = count - 1;
  out.p2 = static_cast<int>((out.held_long >> last) & 1u) -
           static_cast<int>((out.held_short >> last) & 1u);
  out.p1 =
      static_cast<int>((after_long >> last) & 1u) - static_cast<int>((after_short >> last) & 1u);
  return out;
}

}  // namespace wfod::detail
