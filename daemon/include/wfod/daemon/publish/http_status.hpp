// The optional HTTP status endpoint ([publish] http, PROTOCOL §4): /metrics in Prometheus
// text format and /healthz, built from the same HealthInput as the snapshot "health" reply.
// Pure functions from request bytes to response bytes; the daemon owns the sockets.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "wfod/daemon/publish/metrics_text.hpp"
#include "wfod/daemon/publish/snapshot.hpp"

namespace wfod::daemon {

// Longest request head (request line + headers) read before answering 431.
inline constexpr size_t kMaxHttpRequestBytes = 8192;

// "host:port" -> (host, port); nullopt when malformed or port is 0 / > 65535.
std::optional<std::pair<std::string, uint16_t>> parse_http_address(std::string_view text);

// A whole HTTP/1.0-style response (Connection: close) to a request head: GET /metrics,
// GET /healthz (200 "ok" or 503 "degraded"); 404 for other paths, 405 for other methods,
// 400 for anything unparsable.
std::string http_response(std::string_view request_head, const HealthInput& h);

// The answer to a connection refused at [daemon] max_http_connections, whatever it asked:
// 503 "too many connections".
std::string http_busy_response();

// /healthz's verdict: 200 "ok", or 503 "degraded" followed by `detail` (e.g. ": why").
struct HealthVerdict {
  bool ok = true;
  std::string detail;
};

// The same status endpoint for any program (wfod, wfo-proxy): `metrics` makes the /metrics
// body (Prometheus text) and `health` the /healthz verdict, each called only for its path.
std::string status_http_response(std::string_view request_head,
                                 const std::function<std::string()>& metrics,
                                 const std::function<HealthVerdict()>& health);

}  // namespace wfod::daemon
