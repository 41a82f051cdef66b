// wfo-proxy's /metrics and /healthz (proxy_status.hpp), written with the daemon's
// PrometheusText so the format rules are the daemon's.
#include "proxy_status.hpp"

#include "wfod/daemon/prometheus_text.hpp"

namespace wfod::proxy {

namespace {

std::string response(int code, std::string_view reason, std::string_view type,
                     std::string_view body) {
  std::string r = "HTTP/1.1 " + std::to_string(code) + " " + std::string(reason) + "\r\n";
  r += "Content-Type: " + std::string(type) + "\r\n";
  r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  r += "Connection: close\r\n\r\n";
  r += body;
  return r;
}

std::string text(int code, std::string_view reason, std::string_view body) {
  return response(code, reason, "text/plain; charset=utf-8", body);
}

}  // namespace

std::string metrics_text(const ProxyStatus& s, std::string_view version) {
  wfod::daemon::PrometheusText m;
  m.family("wfo_proxy_build_info", "gauge", "wfo-proxy's version (the label), always 1.");
  m.sample({{"version", version}}, uint64_t{1});
  m.family("wfo_proxy_up", "gauge",
           "1 while the forwarder answers its control socket, 0 when it did not.");
  m.sample({}, uint64_t{s.stats_ok ? 1u : 0u});
  m.family("wfo_proxy_uptime_seconds", "gauge", "Seconds since wfo-proxy started.");
  m.sample("", {}, s.uptime_s);
  m.family("wfo_proxy_messages_total", "counter",
           "Messages forwarded: downstream = publications and signals from the shards to the "
           "consumers, upstream = subscriptions from the consumers to the shards.");
  m.sample({{"direction", "downstream"}}, s.stats.frontend_msgs_in);
  m.sample({{"direction", "upstream"}}, s.stats.backend_msgs_in);
  m.family("wfo_proxy_bytes_total", "counter", "Bytes forwarded (all frames), by direction.");
  m.sample({{"direction", "downstream"}}, s.stats.frontend_bytes_in);
  m.sample({{"direction", "upstream"}}, s.stats.backend_bytes_in);
  m.family("wfo_proxy_upstream_connected", "gauge",
           "1 while the TCP connection to the shard's [publish] endpoint is up.");
  for (const auto& [endpoint, up] : s.upstreams) {
    m.sample({{"endpoint", endpoint}}, uint64_t{up ? 1u : 0u});
  }
  m.family("wfo_proxy_upstream_disconnects_total", "counter",
           "Connections to shards lost (a shard stopped, crashed or became unreachable).");
  m.sample({}, s.upstream_disconnects);
  m.family("wfo_proxy_consumers", "gauge", "Consumer connections on the XPUB endpoint now.");
  m.sample({}, static_cast<uint64_t>(s.consumers < 0 ? 0 : s.consumers));
  return m.text();
}

std::string http_response(std::string_view head, const ProxyStatus& s, std::string_view version) {
  const size_t eol = head.find("\r\n");
  const std::string_view line = head.substr(0, eol);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos ||
      line.substr(sp2 + 1).substr(0, 5) != "HTTP/") {
    return text(400, "Bad Request", "bad request\n");
  }
  const std::string_view method = line.substr(0, sp1);
  std::string_view path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (const size_t q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
  if (method != "GET" && method != "HEAD") return text(405, "Method Not Allowed", "GET only\n");
  std::string r;
  if (path == "/metrics") {
    r = response(200, "OK", "text/plain; version=0.0.4; charset=utf-8", metrics_text(s, version));
  } else if (path == "/healthz") {
    std::string down;
    for (const auto& [endpoint, up] : s.upstreams) {
      if (!up) down += " " + endpoint;
    }
    if (!s.stats_ok) {
      r = text(503, "Service Unavailable", "degraded: the forwarder does not answer\n");
    } else if (!down.empty()) {
      r = text(503, "Service Unavailable", "degraded: upstream not connected:" + down + "\n");
    } else {
      r = text(200, "OK", "ok\n");
    }
  } else {
    r = text(404, "Not Found", "try /metrics or /healthz\n");
  }
  if (method == "HEAD") r.erase(r.find("\r\n\r\n") + 4);
  return r;
}

}  // namespace wfod::proxy
