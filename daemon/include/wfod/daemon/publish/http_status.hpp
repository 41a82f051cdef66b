// The optional HTTP status endpoint ([publish] http, PROTOCOL §4): /metrics in Prometheus
// text format and /healthz, built from the same HealthInput as the snapshot "health" reply.
// Pure functions from request bytes to response bytes (the framing is wfod/net's, shared
// with wfo-proxy); the daemon owns the sockets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "wfod/daemon/publish/metrics_text.hpp"
#include "wfod/daemon/publish/snapshot.hpp"
#include "wfod/net/http_status.hpp"

namespace wfod::daemon {

// "host:port" -> (host, port); nullopt when malformed or port is 0 / > 65535.
std::optional<std::pair<std::string, uint16_t>> parse_http_address(std::string_view text);

// A whole HTTP/1.0-style response (Connection: close) to a request head: GET /metrics,
// GET /healthz (200 "ok" or 503 "degraded"); 404 for other paths, 405 for other methods,
// 400 for anything unparsable.
std::string http_response(std::string_view request_head, const HealthInput& h);

}  // namespace wfod::daemon
