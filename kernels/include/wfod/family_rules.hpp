// The position rules of every family (SPEC §5), written once for every fast backend: host
// scalar code, the CPU lane kernel's GCC vectors (V = a vector of doubles, B = its lane mask)
// and CUDA device code all instantiate the same templates (cpu_ref, the oracle, keeps its own
// plain transcription of SPEC).
// - Set-or-hold families (ma_cross, channel_breakout): each bar's signals either set the
//   position or hold it (trend_rule).
// - Level families (bollinger, rsi_reversion): a value x is compared with an upper, a lower
//   and a middle level through the dead band of SPEC §4: bollinger reads the close against
//   SMA ± k·STD and SMA; rsi_reversion reads RSI(n) against hi, lo and 50 (the same rule as
//   bollinger's reversion style); p_t depends on p_{t-1} (level_rule).
// The volatility filter (SPEC §5) gates both kinds: it closes the entries (gate_trend) or
// holds the position (level families).
#pragma once

#include "wfod/grid.hpp"

#if defined(__CUDACC__)
#define WFOD_HOST_DEVICE __host__ __device__
#else
#define WFOD_HOST_DEVICE
#endif

namespace wfod {

// --- Set-or-hold families -------------------------------------------------------------------

// A bar's signals: `up` sets p_t = +1, else `down` sets p_t = short_value, else p_t = p_{t-1}.
template <typename B>
struct TrendSignals {
  B up, down;
};

// ma_cross (SPEC §5): fast ≻ slow is up, slow ≻ fast is down (`greater` is the dead-band
// comparison of SPEC §4, lane-wise for vectors).
template <typename V, typename Greater>
WFOD_HOST_DEVICE inline auto ma_cross_signals(V fast, V slow, Greater greater)
    -> TrendSignals<decltype(greater(fast, slow))> {
  return {greater(fast, slow), greater(slow, fast)};
}

// Cross entries (SPEC §5 entry = "cross"): a signal counts only where the previous bar had
// the opposite order, both MAs defined there (`before_ok`).
template <typename B>
WFOD_HOST_DEVICE inline TrendSignals<B> cross_entries(const TrendSignals<B>& now,
                                                      const TrendSignals<B>& before, B before_ok) {
  return {static_cast<B>(now.up & before_ok & before.down),
          static_cast<B>(now.down & before_ok & before.up)};
}

// channel_breakout (SPEC §5): a close above the highest high / below the lowest low of the
// previous n bars. Plain comparisons: the channel levels are prices of the series itself.
template <typename V>
WFOD_HOST_DEVICE inline auto channel_signals(V close, V highest, V lowest)
    -> TrendSignals<decltype(close > highest)> {
  return {close > highest, close < lowest};
}

// The volatility filter: a closed filter (open = false) takes away both signals.
template <typename B>
WFOD_HOST_DEVICE inline TrendSignals<B> gate_trend(const TrendSignals<B>& s, B open) {
  return {static_cast<B>(s.up & open), static_cast<B>(s.down & open)};
}

// p_t from the signals and p_{t-1} = held; short_value is -1 (long_short) or 0 (long_only).
template <typename V, typename B>
WFOD_HOST_DEVICE inline V trend_rule(const TrendSignals<B>& s, V held, V short_value, V one) {
  return s.up ? one : (s.down ? short_value : held);
}

// --- Level families -------------------------------------------------------------------------

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
