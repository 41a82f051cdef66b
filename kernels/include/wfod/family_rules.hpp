// The position rules of the level families (SPEC §5 bollinger and rsi_reversion), written
// once for every backend: host scalar code, the CPU lane kernel's GCC vectors (V = a vector
// of doubles, B = its lane mask) and CUDA device code all instantiate the same template.
// A value x is compared with an upper, a lower and a middle level through the dead band of
// SPEC §4: bollinger reads the close against SMA ± k·STD and SMA; rsi_reversion reads
// RSI(n) against hi, lo and 50 (the same rule as bollinger's reversion style).
#pragma once

#include "wfod/grid.hpp"

#if defined(__CUDACC__)
#define WFOD_HOST_DEVICE __host__ __device__
#else
#define WFOD_HOST_DEVICE
#endif

namespace wfod {

// Where x stands against the three levels, each a dead-band comparison (SPEC §4):
// above_upper = x ≻ U, below_lower = x ≺ L, above_middle = x ≻ M, below_middle = x ≺ M.
template <typename B>
struct LevelSignals {
  B above_upper, below_lower, above_middle, below_middle;
};

// p_t from the position held (p_{t-1}) and the signals at t, for a family whose indicators
// are defined and whose filter (if any) is open. `fade` = reversion (a close beyond a band
// is faded and the position is held until the middle is reached), else breakout (a close
// beyond a band is followed and held while on its side of the middle). short_value is -1
// (long_short) or 0 (long_only). Scalar code uses V = double, B = bool; vector code works
// lane-wise (GCC vector ?:).
template <typename V, typename B>
WFOD_HOST_DEVICE inline V level_rule(bool fade, const LevelSignals<B>& s, V held, V short_value,
                                     V one, V zero) {
  const B long_entry = fade ? s.below_lower : s.above_upper;
  const B short_entry = fade ? s.above_upper : s.below_lower;
  const B keep_long = fade ? s.below_middle : s.above_middle;
  const B keep_short = fade ? s.above_middle : s.below_middle;
  // SPEC §5 order: the short entry is tested first for reversion, the long entry first for
  // breakout; the two cannot both hold (U >= L), so one expression serves both.
  return short_entry ? short_value
                     : (long_entry ? one
                                   : (((held == one) & keep_long)
                                          ? one
                                          : (((held == -one) & keep_short) ? -one : zero)));
}

// RSI's middle level (SPEC §5: exits at 50).
inline constexpr double kRsiMiddle = 50.0;

}  // namespace wfod
