// The status endpoint's HTTP framing (wfod/net/http_status.hpp): request line parsed by hand,
// responses written whole.
#include "wfod/net/http_status.hpp"

namespace wfod::net {

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

std::string status_http_response(std::string_view head, const std::function<std::string()>& metrics,
                                 const std::function<HealthVerdict()>& health) {
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
    r = response(200, "OK", "text/plain; version=0.0.4; charset=utf-8", metrics());
  } else if (path == "/healthz") {
    const HealthVerdict v = health();
    r = v.ok ? text(200, "OK", "ok\n")
             : text(503, "Service Unavailable", "degraded" + v.detail + "\n");
  } else {
    r = text(404, "Not Found", "try /metrics or /healthz\n");
  }
  if (method == "HEAD") r.erase(r.find("\r\n\r\n") + 4);
  return r;
}

std::string http_busy_response() {
  return text(503, "Service Unavailable", "too many connections\n");
}

}  // namespace wfod::net
