// A symbol's observed bar interval: the median gap between its newest bars. /metrics exports
// it (wfod_bar_interval_seconds) so that alert rules can turn a stream's schedule in bars
// (`every`) into seconds without knowing each feed's bar size.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "wfod/daemon/store/symbol_history.hpp"

namespace wfod::daemon {

// How many of the newest intervals the median looks at: enough that a weekend or a missed
// bar does not move it, few enough to follow a feed that changes its bar size.
inline constexpr size_t kBarIntervalSamples = 64;

// The median of the positive gaps between consecutive timestamps (ns), in seconds; nullopt
// with fewer than two timestamps. Even counts take the lower middle value: an interval that
// occurred, not the mean of two.
std::optional<double> median_interval_s(std::span<const int64_t> ts_ns);

// median_interval_s over the newest kBarIntervalSamples + 1 bars in memory.
std::optional<double> recent_bar_interval_s(const SymbolHistory& history);

}  // namespace wfod::daemon
