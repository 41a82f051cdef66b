// Parameter-update payloads (PROTOCOL §2) and the live out-of-sample metrics they carry
// (SPEC §8 online): pure functions, so the JSON shape and the live_oos rule are unit-tested
// without sockets. The daemon's loop only fills PublicationInput and sends the bytes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/bar.hpp"
#include "wfod/net/result_json.hpp"

namespace wfod::daemon {

using Json = nlohmann::ordered_json;

// metrics_json and params_json: wfod/net/result_json.hpp (shared with wfo's --json).

struct LiveOos {
  uint64_t seq = 0;   // the previous publication's seq
  uint64_t bars = 0;  // bars since it
  Metrics metrics;    // of its winner over those bars
};

// Everything one publication says. `result.top` must not be empty (the winner is top[0],
// unless `published` names another).
struct PublicationInput {
  std::string symbol;
  std::string strategy;
  uint64_t seq = 0;
  int64_t published_ns = 0;
  size_t window_bars = 0;
  int64_t first_ts = 0;
  int64_t last_ts = 0;
  const Grid* grid = nullptr;
  const SweepResult* result = nullptr;
  bool changed = true;
  double elapsed_ms = 0;
  std::string backend;
  std::string config_version;
  std::optional<LiveOos> live_oos;  // nullopt -> null (first publication of the stream)
  // The published combo's p_T at the window's last bar T (SPEC §2), as "position": {"value",
  // "ts": last_ts}; nullopt -> null (its positions could not be computed, logged).
  std::optional<int> position;
  // Robust selection (docs/spec-10-selection.md; wfod/daemon/core/selection_step.hpp). When
  // `published` is set it is the payload's params/id/metrics instead of top[0] (hysteresis
  // may hold a combo that is not the arg-max); `selection` becomes the trailing "selection"
  // object. Both absent: the payload is exactly as before.
  const Ranked* published = nullptr;
  std::optional<Json> selection;
};

// The PROTOCOL §2 payload object, keys in the documented order.
Json publication_json(const PublicationInput& in);

// window.last_ts of a published payload; nullopt when it has none (not JSON, no window).
// A restart reads it back from the saved live state: the newest data a trading system has
// parameters for, which no later publication may go behind (docs/operations.md).
std::optional<int64_t> payload_window_last_ts(std::string_view payload);

// SPEC §8 online: metrics of the previous winner over bars [first, end) of the history,
// with its positions `winner` (p_t for t < end). At bar `first` the exit segment is held
// at the position of the winner before it (`before`; empty = flat), exactly as a
// walk-forward fold boundary. Requires 1 <= first <= end <= history size.
Metrics live_oos_metrics(const HistoryView& h, Fill fill, double cost_per_unit,
                         double bars_per_year, std::span<const int8_t> winner,
                         std::span<const int8_t> before, size_t first, size_t end);
// The same from the tail of the history only (a daemon that keeps no bars from the anchor):
// `tail` holds bars [first - 1, end), `winner` p_t for t in [first - 2, end - 1) (0 for
// t < 0), `before2` the previous winner's p_{first-2}. Equal to the call above.
Metrics live_oos_metrics_tail(const HistoryView& tail, Fill fill, double cost_per_unit,
                              double bars_per_year, std::span<const int8_t> winner, int8_t before2);

}  // namespace wfod::daemon
