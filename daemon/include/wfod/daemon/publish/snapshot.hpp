// The snapshot endpoint's request handling (PROTOCOL §3; a ROUTER answering REQ clients as a
// REP would) as a pure function from the request frames to the reply bytes: every input,
// however malformed, gets exactly one JSON reply, so a REQ client never waits forever.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wfod/daemon/publish/duration_histogram.hpp"
#include "wfod/feeds/bar_validator.hpp"

namespace wfod::daemon {

// Longest frame and most frames a request may have; anything larger is an error reply.
inline constexpr size_t kMaxSnapshotFrameBytes = 256;
// ZMQ_MAXMSGSIZE of the snapshot socket: frames up to this size are received and answered
// with a "frame too large" error. libzmq closes the connection of a peer that sends a larger
// frame, before the daemon sees any of it, so no reply can go back (docs/protocol.md §3).
inline constexpr int64_t kMaxSnapshotReceiveBytes = int64_t{16} << 20;
inline constexpr size_t kMaxSnapshotFrames = 3;

struct LastPublication {
  uint64_t seq = 0;
  std::string payload;       // the exact bytes sent on the PUB socket
  int64_t published_ns = 0;  // the payload's published_ns (0: unknown)
};
using PublicationKey = std::pair<std::string, std::string>;  // (symbol, strategy)
using PublicationMap = std::map<PublicationKey, LastPublication, std::less<>>;

struct SymbolHealth {
  uint64_t bars = 0;
  std::optional<int64_t> last_ts;        // ns; null before the first bar
  std::optional<double> last_bar_age_s;  // now - last_ts on the daemon's clock; null: no bar
  uint64_t quarantined_bars = 0;         // of a corrupt bar log moved aside at start
  bool stale = false;                    // no bar for longer than [[symbol]] stale_after_s
  // For /metrics only (not in the health reply):
  uint64_t accepted_bars = 0;            // feed bars taken into the history since start
  uint64_t refused_bars = 0;             // validated, but the bar log's queue was full: lost
  std::optional<double> bar_interval_s;  // median gap of the newest bars (bar_interval.hpp)
  double stale_after_s = 0;              // [[symbol]] stale_after_s (0: off)
  // PROTOCOL §3: each makes the daemon degraded (until a restart, for the quarantine).
  bool degraded() const { return stale || quarantined_bars > 0; }
};

// A symbol's health at `now_ns` (system clock, ns since the epoch). Stale when
// stale_after_s > 0 and the last bar is older than that; a symbol that never had a bar is
// stale once the daemon has run that long without one.
SymbolHealth symbol_health(uint64_t bars, std::optional<int64_t> last_ts, uint64_t quarantined_bars,
                           double stale_after_s, int64_t now_ns, double uptime_s);

// One stream's publication schedule and record, for /metrics (wfod_stream_*).
struct StreamHealth {
  uint64_t every_bars = 1;    // [[strategy]] every
  uint64_t publications = 0;  // sent since this stream was started (a counter)
  // published_ns of its newest publication, also one from before a restart; null: none yet.
  std::optional<int64_t> last_published_ns;
  // Bars the symbol took since the newest publication's window ended; null: none yet.
  std::optional<uint64_t> bars_since_publication;
};

// What `["health"]` reports.
struct HealthInput {
  bool degraded = false;  // storage failing, or a symbol degraded (SymbolHealth::degraded)
  std::string backend;
  double uptime_s = 0;
  std::map<std::string, SymbolHealth> symbols;
  std::map<std::string, uint64_t> rejects;  // by PROTOCOL reason name
  // Bars missing by the publishers' seq numbers: the sum of (jump - 1) over forward jumps
  // (health `gaps`, wfod_feed_missing_bars_total). A backwards seq (a publisher restarted
  // its counter) misses nothing it can tell and counts 0 here.
  uint64_t gaps = 0;
  uint64_t gap_events = 0;  // seq jumps, forward or backwards (wfod_feed_gaps_total)
  uint64_t coalesced = 0;
  // Additive (docs/protocol.md "health"): the state directory, dropped sends, backend changes.
  struct Storage {
    bool ok = true;             // every accepted bar is in its log
    uint64_t pending_bars = 0;  // accepted, kept in memory, not yet written
    uint64_t write_errors = 0;  // write or sync errors since start
    std::string error;          // the latest error while not ok; "" when ok
  } storage;
  uint64_t publish_dropped = 0;    // publications the PUB refused (would block)
  uint64_t snapshot_dropped = 0;   // snapshot replies the socket refused (client not reading)
  uint64_t backend_fallbacks = 0;  // backend errors that switched the daemon to cpu
  std::string backend_error;       // the last one; "" when none
  uint64_t curve_denied = 0;       // CURVE handshakes the ZAP handler refused
  // Additive: connections held by the snapshot socket and the HTTP endpoint, their caps
  // ([daemon] max_snapshot_connections, max_http_connections) and those refused since start.
  struct Connections {
    uint64_t open = 0;
    uint64_t max = 0;
    uint64_t refused = 0;
  };
  Connections snapshot_connections, http_connections;
  // Additive: each [[feed]], in config order: its session to the publisher, from the
  // socket's monitor (docs/protocol.md "Feed sessions").
  struct Feed {
    std::string endpoint;
    bool connected = false;
    std::optional<double> last_message_age_s;  // null: no message since start
    uint64_t disconnects = 0;                  // sessions that ended
    uint64_t reconnects = 0;                   // ended ones libzmq gave up on: re-connected
  };
  std::vector<Feed> feeds;
  // The last SIGHUP reload (additive, docs/protocol.md "health"): refused or applied, when,
  // and why it was refused; absent until the first SIGHUP. A refused reload keeps the
  // running configuration, so it does not make the daemon degraded.
  struct Reload {
    bool ok = true;
    int64_t time_ns = 0;  // system clock
    std::string message;  // the refusal's errors; "" when ok
  };
  std::optional<Reload> last_reload;
  uint64_t reload_failures = 0;  // refused reloads since start (wfod_reload_failures_total)
  // Per-stage timings of the latest publications (LatencyStats::json); null: not reported.
  nlohmann::ordered_json latency;
  // For /metrics only (not in the health reply): the build, the backend asked for, the
  // streams and the optimisation durations by strategy (metrics_text.hpp says why not by
  // stream).
  std::string version;            // as `wfod --version` prints it
  std::string build_backend;      // "cuda" for a build with the CUDA backend, else "cpu"
  std::string requested_backend;  // [daemon] backend: auto | cpu | cuda
  std::map<PublicationKey, StreamHealth> streams;
  std::map<std::string, DurationHistogram> optimisation_durations;
};

nlohmann::ordered_json health_json(const HealthInput& in);

// The feed counters of `in` from the validator's: rejects by reason name (every reason, 0
// included), gaps (missing bars) and gap_events.
void set_feed_counters(HealthInput& in, const feeds::FeedStats& stats);
// Whether (symbol, strategy) is a stream of the running configuration; an empty filter
// counts every stream as configured.
using StreamFilter = std::function<bool(const PublicationKey& key)>;

// Reply to one request: ["get", SYMBOL, STRATEGY], ["list"], ["health"]; anything else is
// {"error": "..."}. A get of a stream `configured` does not know is {"error": "unknown
// stream SYMBOL.STRATEGY"}; of a configured one not yet published, {"error": "no
// publication yet"}. `health` is only built when asked for.
std::string snapshot_reply(std::span<const std::string> frames, const PublicationMap& last,
                           const StreamFilter& configured,
                           const std::function<HealthInput()>& health);

}  // namespace wfod::daemon
