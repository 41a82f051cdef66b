// SPEC §5b's stops as the fast host paths run them (the cpu backend's lane kernel lane-wise,
// its streams, position trackers and the scalar replays): the step itself and the walk around
// it are written once for host and device (wfod/detail/stop_step.hpp, stop_walk.hpp); here
// they are bound to the lane rules of one kind (a lane input's levels, one combo's step, the
// state entering any bar found without a stored one). cpu_ref keeps its own transcription of
// §5b (cpu_ref/ref_stops.cpp), the oracle.
#pragma once

#include <cstddef>
#include <cstdint>

#include "src/lane_kinds.hpp"
#include "src/position_rules.hpp"
#include "wfod/detail/stop_step.hpp"
#include "wfod/detail/stop_walk.hpp"

namespace wfod::detail {

// A lane input's stops as level factors (wfod/detail/stop_step.hpp).
inline StopLevels<double, bool> stop_levels(const LaneInput& in) {
  return stop_levels_of(in.stop_loss, in.take_profit, in.trailing_stop);
}

// p_t of one combo of kind Kind (lane_kinds.hpp) from its state entering bar t, which it
// leaves entering t + 1 (walk_step over the lane rules: the family's r_t from r_{t-1}, or from
// p_{t-1} itself when `stops` is false, as without §5b; with `stops` (in.stops_on()), the
// step above). in's rows, close and entry_open (BarTables::entry_open: fill next_open, else
// nullptr) are bar-indexed.
template <int Kind>
inline int8_t step_combo(const LaneInput& in, bool stops, const double* close,
                         const double* entry_open, size_t t, ComboState& s) {
  auto next = [&](long long u, double held) {
    return next_position<Kind>(in, close, static_cast<size_t>(u), held);
  };
  return walk_step(next, stops, stop_levels(in), close, entry_open, static_cast<long long>(t), s,
                   db_greater);
}

// The state entering bar f (f >= 1) of a combo whose stops act, from rows and bars that are
// bar-indexed from the anchor (the sweeps' columns): what a time chunk starts from without a
// stored state (walk_state_entering over the lane rules, r_{b-1} from position_at; the cuda
// backend runs the same function over the device rules).
template <int Kind>
inline ComboState stop_state_entering(const LaneInput& in, const double* close,
                                      const double* entry_open, size_t f) {
  auto next = [&](long long u, double held) {
    return next_position<Kind>(in, close, static_cast<size_t>(u), held);
  };
  auto r_at = [&](long long u) {
    return u < 0 ? 0.0 : position_at<Kind>(in, close, static_cast<ptrdiff_t>(u));
  };
  return walk_state_entering(next, r_at, true, stop_levels(in), close, entry_open,
                             static_cast<long long>(f), db_greater);
}

}  // namespace wfod::detail
