// Combo kinds of the CPU lanes: one kernel instantiation per kind (family, ma_cross's entry,
// bollinger's style, the vol filter), numbered 0 .. kKindCount - 1 so lane groups can be
// kept in arrays. The vol filter is the low bit of every kind.
#pragma once

#include <type_traits>
#include <utility>

#include "wfod/grid.hpp"
#include "wfod/support.hpp"

namespace wfod::detail {

// ma_cross: 0..3 (bit 1 = cross entry), channel_breakout: 4..5, bollinger reversion: 6..7,
// bollinger breakout: 8..9, rsi_reversion: 10..11. 12: a rules strategy (SPEC §5a), whose
// target r_t the cpu backend evaluates beforehand into a row the lane reads as `a` (its vol
// filter already applied there, so the kind has no vol bit): the lanes then run its stops and
// its Summary as any family's (cpu/rules_lanes.hpp).
inline constexpr int kGivenKind = 12;
inline constexpr int kKindCount = 13;
// The built-in families' kinds (0 .. 11): what a built-in grid's combos can be, so its plans
// (sweep tiles, stream memory) count a partial lane group for each of these.
inline constexpr int kFamilyKindCount = 12;

inline constexpr int kind_of(const Combo& c) {
  const int vol = c.has_vol ? 1 : 0;
  switch (c.family) {
    case Family::ma_cross:
      return (c.entry == Entry::cross ? 2 : 0) + vol;
    case Family::channel_breakout:
      return 4 + vol;
    case Family::bollinger:
      return (c.style == Style::reversion ? 6 : 8) + vol;
    case Family::rsi_reversion:
      return 10 + vol;
    case Family::rules:  // r_t given as a row, its filter applied in it
      return kGivenKind;
  }
  return vol;
}

inline constexpr Family family_of_kind(int kind) {
  return kind == kGivenKind ? Family::rules
         : kind < 4         ? Family::ma_cross
         : kind < 6         ? Family::channel_breakout
         : kind < 10        ? Family::bollinger
                            : Family::rsi_reversion;
}
inline constexpr bool cross_of_kind(int kind) { return kind < 4 && (kind & 2) != 0; }
inline constexpr bool vol_of_kind(int kind) { return (kind & 1) != 0; }
// The level families (SPEC §5 bollinger, rsi_reversion): p_t depends on p_{t-1}.
inline constexpr bool level_kind(int kind) { return kind >= 6 && kind != kGivenKind; }
// Whether a level kind fades a close beyond a band (bollinger reversion, rsi_reversion) or
// follows it (bollinger breakout).
inline constexpr bool fade_of_kind(int kind) { return kind != 8 && kind != 9; }
// The kind of ma_cross / channel_breakout combos with these flags (the older interface).
inline constexpr int kind_of(Family family, bool cross, bool vol) {
  return (family == Family::ma_cross ? (cross ? 2 : 0) : 4) + (vol ? 1 : 0);
}

// Calls fn(std::integral_constant<int, K>{}) for the run-time kind K: how a run-time kind
// reaches its template instantiation.
template <typename Fn>
decltype(auto) with_kind(int kind, Fn&& fn) {
  return [&]<int... K>(std::integer_sequence<int, K...>)->decltype(auto) {
    using R = decltype(fn(std::integral_constant<int, 0>{}));
    if constexpr (std::is_void_v<R>) {
      (void)((kind == K ? (fn(std::integral_constant<int, K>{}), true) : false) || ...);
    } else {
      R out{};
      (void)((kind == K ? (out = fn(std::integral_constant<int, K>{}), true) : false) || ...);
      return out;
    }
  }
  (std::make_integer_sequence<int, kKindCount>{});
}

}  // namespace wfod::detail
