// wfo-proxy's /metrics and /healthz (proxy_status.hpp), written with wfod/net's PrometheusText
// and served by its status_http_response, the same code as the daemon's.
#include "proxy_status.hpp"

#include "wfod/net/http_status.hpp"
#include "wfod/net/prometheus_text.hpp"

namespace wfod::proxy {

std::string metrics_text(const ProxyStatus& s, std::string_view version) {
  wfod::net::PrometheusText m;
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
  return wfod::net::status_http_response(
      head, [&] { return metrics_text(s, version); },
      [&] {
        std::string down;
        for (const auto& [endpoint, up] : s.upstreams) {
          if (!up) down += " " + endpoint;
        }
        if (!s.stats_ok) return wfod::net::HealthVerdict{false, ": the forwarder does not answer"};
        if (!down.empty())
          return wfod::net::HealthVerdict{false, ": upstream not connected:" + down};
        return wfod::net::HealthVerdict{};
      });
}

}  // namespace wfod::proxy
