// cpu_ref stops (SPEC §5b): the positions p_t a strategy holds once stop_loss, take_profit and
// trailing_stop act on its own target r_t (a built-in family's or a rules strategy's), exactly
// as §5b writes them, in float64.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/grid.hpp"

namespace wfod::ref {

// The three stops of one combo, fractions; 0 = that stop off.
struct Stops {
  double stop_loss = 0, take_profit = 0, trailing_stop = 0;
  static Stops of(const Combo& c) { return {c.stop_loss, c.take_profit, c.trailing_stop}; }
  bool any() const { return stop_loss != 0 || take_profit != 0 || trailing_stop != 0; }
};

// p_t for every bar of r (r.size() == history.size(), r_t in {-1, 0, +1}). Fill decides the
// trade's entry price: c_{t0} (close) or o_{t0+1} (next_open). Causal: p_t reads bars <= t.
// With no stop on, p == r. Throws std::invalid_argument on a size mismatch or a stop out of
// its range (SPEC §5b: such combos are invalid and never run).
std::vector<int8_t> apply_stops(std::span<const int8_t> r, const HistoryView& history, Fill fill,
                                const Stops& stops);

}  // namespace wfod::ref
