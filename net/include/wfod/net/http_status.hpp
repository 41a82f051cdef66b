// A program's HTTP status endpoint (/metrics and /healthz) as a pure function from a request
// head to a whole response, for any program that has one (wfod's [publish] http, wfo-proxy's
// --http): text in, text out, no sockets, never throws on hostile input. What the metrics
// and the verdict say is the caller's (daemon/publish/http_status for wfod).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace wfod::net {

// Longest request head (request line + headers) read before answering 431.
inline constexpr size_t kMaxHttpRequestBytes = 8192;

// /healthz's verdict: 200 "ok", or 503 "degraded" followed by `detail` (e.g. ": why").
struct HealthVerdict {
  bool ok = true;
  std::string detail;
};

// A whole HTTP/1.1 response (Connection: close) to a request head: GET or HEAD of /metrics
// (200, `metrics()` as Prometheus text) or /healthz (the verdict of `health()`), each called
// only for its path; 404 for other paths, 405 for other methods, 400 for anything
// unparsable.
std::string status_http_response(std::string_view request_head,
                                 const std::function<std::string()>& metrics,
                                 const std::function<HealthVerdict()>& health);

// The answer to a connection refused at a connection cap, whatever it asked: 503 "too many
// connections".
std::string http_busy_response();

}  // namespace wfod::net
