// wfod's HTTP status responses (/metrics, /healthz) from its HealthInput, through the shared
// framing of wfod/net/http_status.hpp. The metrics themselves are metrics_text.cpp's.

#include "wfod/daemon/publish/http_status.hpp"

#include "wfod/config/endpoint.hpp"

namespace wfod::daemon {

std::optional<std::pair<std::string, uint16_t>> parse_http_address(std::string_view text) {
  // One rule for the loader's check and the listener: a config that loads, binds.
  return config::parse_host_port(text);
}

std::string http_response(std::string_view head, const HealthInput& h) {
  return net::status_http_response(
      head, [&h] { return prometheus_metrics(h); },
      [&h] {
        return net::HealthVerdict{!h.degraded, ""};
      });
}

}  // namespace wfod::daemon
