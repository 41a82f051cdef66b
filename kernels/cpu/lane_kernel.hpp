// The CPU evaluation kernel: up to kLanes combos of one strategy kind side by side over a
// range of bars, each lane producing the Summary (SPEC §6) of that range. Positions are
// set-or-hold state machines (SPEC §2, §5), so a lane's state at any bar is found by
// scanning back to the last bar that sets it: chunks start anywhere, exactly.
#pragma once

#include <cstddef>
#include <cstdint>

#include "wfod/grid.hpp"
#include "wfod/indicators.hpp"
#include "wfod/summary.hpp"

namespace wfod::cpu {

inline constexpr int kLanes = 8;

// Per-bar quantities shared by every combo: the exit gap and body return of bar t, as
// fractions of c_{t-1} (SPEC §2), and the close (for channel breakouts).
// The three columns may hold only a tail of the history: bar t is at [t - base].
struct BarTables {
  const double* gap;   // (x_t - c_{t-1}) / c_{t-1}; 0 for fill = close
  const double* body;  // (c_t - x_t) / c_{t-1}
  const double* close;
  double cost;      // per unit of position change
  size_t base = 0;  // the bar at index 0 of the columns
};

// What one lane (combo) reads. ma_cross: a = fast MA, b = slow MA. channel_breakout:
// a = HH, b = LL. vol_short/vol_long: STD rows with the zero rule applied.
struct LaneInput {
  // Offsets of the rows in the indicator matrix (for the vector kernel), and the same rows
  // as pointers (for scalar scans).
  int64_t off_a = 0, off_b = 0, off_vol_short = 0, off_vol_long = 0;
  const double* a = nullptr;
  const double* b = nullptr;
  const double* vol_short = nullptr;
  const double* vol_long = nullptr;
  double threshold = 0;
  double short_value = -1;    // -1 long_short, 0 long_only
  size_t first_defined = 0;   // p_t = 0 before this bar (any indicator undefined)
  size_t signal_defined = 0;  // first bar where a and b are both defined
};

// The decision at the close of bar t: set the position to `value`, or hold (set = false).
struct Decision {
  bool set;
  double value;
};

template <Family F, bool Cross, bool Vol>
inline Decision decide(const LaneInput& in, const double* close, size_t t) {
  if (t < in.first_defined) return {true, 0.0};
  bool up, down;
  if constexpr (F == Family::ma_cross) {
    const double f = in.a[t], s = in.b[t];
    up = db_greater(f, s);
    down = db_greater(s, f);
    if constexpr (Cross) {
      const bool prev_ok = t >= 1 && t - 1 >= in.signal_defined;
      const double fp = prev_ok ? in.a[t - 1] : 0.0, sp = prev_ok ? in.b[t - 1] : 0.0;
      up = up && prev_ok && db_greater(sp, fp);
      down = down && prev_ok && db_greater(fp, sp);
    }
  } else {
    const double c = close[t];
    up = c > in.a[t];
    down = c < in.b[t];
  }
  if constexpr (Vol) {
    const double lv = in.vol_long[t];
    const bool open = lv != 0.0 && db_greater(in.vol_short[t] / lv, in.threshold);
    up = up && open;
    down = down && open;
  }
  return {up || down, up ? 1.0 : (down ? in.short_value : 0.0)};
}

// Position p_t of one lane, by scanning back to the last bar that sets it (0 if none).
template <Family F, bool Cross, bool Vol>
inline double position_at(const LaneInput& in, const double* close, ptrdiff_t t) {
  for (; t >= 0; --t) {
    const Decision d = decide<F, Cross, Vol>(in, close, static_cast<size_t>(t));
    if (d.set) return d.value;
  }
  return 0.0;
}

// A lane's strategy state entering bar t: the positions p_{t-2} and p_{t-1} (SPEC §2).
struct LaneState {
  int8_t p2 = 0, p1 = 0;
};

// The bars one call covers. Without start_state, the state at `first` is found by scanning
// back (position_at; the columns must start at bar 0) and start is ignored. With it (one per lane,
// entering bar `start`, 1 <= start <= first), decisions run forward from `start` and only [first,
// last) is summarised: how a stream replays part of a cached chunk without stored positions.
// end_state, when set, receives each lane's state entering bar `last`.
struct LaneRange {
  size_t start = 0, first = 0, last = 0;
  const LaneState* start_state = nullptr;
  LaneState* end_state = nullptr;
};

// Summaries of bars [first, last) (first >= 1) for `lanes` lanes (1..kLanes); `matrix` is
// the indicator matrix the lanes' offsets point into (read as matrix[offset + t]). Picks
// the widest vector code the CPU runs (AVX-512, AVX2, or generic); every variant gives
// bit-identical results.
void run_lanes(Family family, bool cross, bool vol, const BarTables& bars, const double* matrix,
               const LaneInput* in, int lanes, const LaneRange& range, Summary* out);
inline void run_lanes(Family family, bool cross, bool vol, const BarTables& bars,
                      const double* matrix, const LaneInput* in, int lanes, size_t first,
                      size_t last, Summary* out) {
  run_lanes(family, cross, vol, bars, matrix, in, lanes, LaneRange{first, first, last}, out);
}

// Name of the variant run_lanes uses on this CPU ("avx512", "avx2", "generic").
const char* lane_kernel_variant();

}  // namespace wfod::cpu
