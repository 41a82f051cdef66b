// What wfo-proxy reports over HTTP: the forwarding counters of zmq_proxy_steerable's
// STATISTICS, which upstreams (shards) are connected and how many consumers are, as
// Prometheus text (/metrics) and a health verdict (/healthz). Text in, text out: no sockets.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace wfod::proxy {

// zmq_proxy_steerable's STATISTICS reply, in its order: the XSUB (frontend) then the XPUB
// (backend), each messages in, bytes in, messages out, bytes out. A multipart message counts
// once. Downstream (shards -> consumers) is frontend in; upstream (subscriptions) backend in.
struct ProxyStats {
  uint64_t frontend_msgs_in = 0, frontend_bytes_in = 0, frontend_msgs_out = 0,
           frontend_bytes_out = 0;
  uint64_t backend_msgs_in = 0, backend_bytes_in = 0, backend_msgs_out = 0, backend_bytes_out = 0;
};

struct ProxyStatus {
  ProxyStats stats;
  bool stats_ok = false;                  // the proxy answered STATISTICS
  std::map<std::string, bool> upstreams;  // endpoint -> its TCP connection is up
  uint64_t upstream_disconnects = 0;      // connections to shards lost since start
  int64_t consumers = 0;                  // connections accepted on the XPUB, now
  double uptime_s = 0;
};

// The Prometheus text (format 0.0.4) of `status`.
std::string metrics_text(const ProxyStatus& status, std::string_view version);

// The HTTP response to the request `head` (the request line and headers): GET|HEAD /metrics,
// /healthz (200 "ok" when the proxy runs and every upstream is connected; 503 "degraded"
// naming the others), 404 otherwise, 405 for other methods, 400 for what is not HTTP.
std::string http_response(std::string_view head, const ProxyStatus& status,
                          std::string_view version);

}  // namespace wfod::proxy
