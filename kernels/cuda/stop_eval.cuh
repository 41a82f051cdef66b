// A combo of a grid with stop axes (SPEC §5b) on the device: its stop digits decoded from the
// id, and its Summary of one bar range walked bar by bar from the exact state entering the
// range. The walk is wfod/detail/stop_walk.hpp's (the source the cpu backend's replays run,
// unit-tested on the host against cpu_ref) over the device's float64 decision rules
// (next_bar, position_before), and RangeWalk accounts each bar as the block Summaries do. The
// file that includes this is built with -fmad=false: a level e * (1 - stop_loss) compared with
// a close must not be contracted into a fused multiply-add the host does not make.
#pragma once

#include <cstdint>

#include "device_grid.cuh"
#include "stop_tables.cuh"
#include "sweep_kernels.cuh"
#include "tally.cuh"
#include "wfod/detail/stop_step.hpp"
#include "wfod/detail/stop_walk.hpp"
#include "wfod/summary.hpp"

namespace wfod::cuda {

struct StopCombo {
  DeviceCombo combo;
  detail::StopLevels<double, bool> levels;
  bool stops;  // some stop acts (a combo whose stops are all 0 walks without the stop state)
  bool valid;  // the family's and filter's rules and each stop in its range
};

__device__ inline StopCombo decode_stop_combo(const GridTables& g, const StopTables& st,
                                              unsigned long long id) {
  const unsigned long long f = id % st.stride;
  unsigned long long rest = id / st.stride;
  double v[3];
  const double* axis = st.values;
  for (int i = 0; i < 3; ++i) {
    v[i] = axis[rest % st.radix[i]];
    axis += st.radix[i];
    rest /= st.radix[i];
  }
  StopCombo s;
  s.combo = decode_combo(g, f + st.stride * rest);
  s.levels = detail::stop_levels_of(v[0], v[1], v[2]);
  s.stops = v[0] != 0 || v[1] != 0 || v[2] != 0;
  // SPEC §5b's ranges (Combo::stops_valid): stop_loss and trailing_stop in [0, 1),
  // take_profit >= 0.
  const bool in_range = v[0] >= 0 && v[0] < 1 && v[1] >= 0 && v[2] >= 0 && v[2] < 1;
  s.valid = s.combo.valid && in_range;
  return s;
}

// The Summary of bars [first, last) of a valid combo: the state entering `first` found as the
// cpu backend finds a time chunk's (walk_state_entering: a scan back to a bar where no stop can
// be pending, then the step forward), then every bar accounted and stepped in order.
template <int Family, bool Cross, bool Vol>
__device__ inline Summary stop_range_summary(const StopCombo& sc, const StopTables& st,
                                             const BarData& bars, long long first, long long last) {
  const DeviceCombo& c = sc.combo;
  auto next = [&](long long t, double held) {
    return next_bar<Family, Cross, Vol>(c, bars, t, held);
  };
  auto r_at = [&](long long t) {
    return t < 0 ? 0.0 : position_before<Family, Cross, Vol>(c, bars, t);
  };
  const auto greater = [](double x, double y) { return dev_db_greater(x, y); };
  detail::ComboState s = detail::walk_state_entering(next, r_at, sc.stops, sc.levels, bars.close,
                                                     st.entry_open, first, greater);
  const double head_pos = s.p2;
  RangeWalk<true> walk;  // predicated: a warp's lanes change position at different bars
  auto visit = [&](long long t, double a, double b) {
    walk.bar(a, b, bars.gap[t], bars.body[t], bars.cost);
  };
  detail::walk_bars(next, sc.stops, sc.levels, bars.close, st.entry_open, first, last, s, greater,
                    visit);
  return walk.summary(first, last, head_pos, s.p2);
}

}  // namespace wfod::cuda
