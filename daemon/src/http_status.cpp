// HTTP status responses (/metrics, /healthz): text in, text out, no sockets, never throws
// on hostile input.

#include "wfod/daemon/http_status.hpp"

#include <cmath>
#include <sstream>

#include "wfod/config/endpoint.hpp"

namespace wfod::daemon {

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

std::optional<std::pair<std::string, uint16_t>> parse_http_address(std::string_view text) {
  // One rule for the loader's check and the listener: a config that loads, binds.
  return config::parse_host_port(text);
}

std::string prometheus_metrics(const HealthInput& h) {
  std::ostringstream o;
  o.precision(17);
  o << "# HELP wfod_up 1 while the daemon serves.\n# TYPE wfod_up gauge\nwfod_up 1\n";
  o << "# HELP wfod_degraded 1 while health is degraded: a bar log holds bars it could not "
       "write, a symbol is stale, or a corrupt bar log was quarantined at start.\n"
       "# TYPE wfod_degraded gauge\nwfod_degraded "
    << (h.degraded ? 1 : 0) << "\n";
  o << "# HELP wfod_uptime_seconds Seconds since start.\n# TYPE wfod_uptime_seconds gauge\n"
       "wfod_uptime_seconds "
    << (std::isfinite(h.uptime_s) ? h.uptime_s : 0.0) << "\n";
  // Symbols are [A-Za-z0-9._:/-] (SPEC §1): nothing to escape in a label value.
  o << "# HELP wfod_bars Bars in the symbol's history.\n# TYPE wfod_bars gauge\n";
  for (const auto& [name, s] : h.symbols)
    o << "wfod_bars{symbol=\"" << name << "\"} " << s.bars << "\n";
  o << "# HELP wfod_last_bar_timestamp_seconds Close time of the symbol's last bar.\n"
       "# TYPE wfod_last_bar_timestamp_seconds gauge\n";
  for (const auto& [name, s] : h.symbols) {
    if (s.last_ts) {
      o << "wfod_last_bar_timestamp_seconds{symbol=\"" << name << "\"} "
        << static_cast<double>(*s.last_ts) / 1e9 << "\n";
    }
  }
  o << "# HELP wfod_last_bar_age_seconds Age of the symbol's last bar on the daemon's clock.\n"
       "# TYPE wfod_last_bar_age_seconds gauge\n";
  for (const auto& [name, s] : h.symbols) {
    if (s.last_bar_age_s && std::isfinite(*s.last_bar_age_s)) {
      o << "wfod_last_bar_age_seconds{symbol=\"" << name << "\"} " << *s.last_bar_age_s << "\n";
    }
  }
  o << "# HELP wfod_symbol_stale 1 while the symbol's last bar is older than its stale_after_s.\n"
       "# TYPE wfod_symbol_stale gauge\n";
  for (const auto& [name, s] : h.symbols)
    o << "wfod_symbol_stale{symbol=\"" << name << "\"} " << (s.stale ? 1 : 0) << "\n";
  o << "# HELP wfod_quarantined_bars Bars of a corrupt bar log moved aside at start "
       "([daemon] on_corrupt_log = \"quarantine\"); 0 after a restart with the log repaired.\n"
       "# TYPE wfod_quarantined_bars gauge\n";
  for (const auto& [name, s] : h.symbols)
    o << "wfod_quarantined_bars{symbol=\"" << name << "\"} " << s.quarantined_bars << "\n";
  o << "# HELP wfod_feed_rejects_total Feed input rejected, by reason (PROTOCOL §1).\n"
       "# TYPE wfod_feed_rejects_total counter\n";
  for (const auto& [reason, n] : h.rejects) {
    o << "wfod_feed_rejects_total{reason=\"" << reason << "\"} " << n << "\n";
  }
  o << "# HELP wfod_feed_missing_bars_total Bars missing by the publishers' seq numbers (the "
       "sum of forward jumps minus 1; health gaps).\n"
       "# TYPE wfod_feed_missing_bars_total counter\nwfod_feed_missing_bars_total "
    << h.gaps << "\n";
  o << "# HELP wfod_feed_gaps_total Publisher seq jumps, forward or backwards.\n"
       "# TYPE wfod_feed_gaps_total counter\nwfod_feed_gaps_total "
    << h.gap_events << "\n";
  o << "# HELP wfod_coalesced_total Optimisations coalesced into a running one.\n"
       "# TYPE wfod_coalesced_total counter\nwfod_coalesced_total "
    << h.coalesced << "\n";
  o << "# HELP wfod_storage_ok 1 while every accepted bar is in its log, 0 while some are only "
       "in memory (disk full, I/O error).\n# TYPE wfod_storage_ok gauge\nwfod_storage_ok "
    << (h.storage.ok ? 1 : 0) << "\n";
  o << "# HELP wfod_storage_pending_bars Accepted bars kept in memory, not yet written.\n"
       "# TYPE wfod_storage_pending_bars gauge\nwfod_storage_pending_bars "
    << h.storage.pending_bars << "\n";
  o << "# HELP wfod_storage_write_errors_total Bar log write or sync errors.\n"
       "# TYPE wfod_storage_write_errors_total counter\nwfod_storage_write_errors_total "
    << h.storage.write_errors << "\n";
  o << "# HELP wfod_dropped_total Messages a socket refused instead of blocking the loop.\n"
       "# TYPE wfod_dropped_total counter\n"
       "wfod_dropped_total{socket=\"publish\"} "
    << h.publish_dropped << "\nwfod_dropped_total{socket=\"snapshot\"} " << h.snapshot_dropped
    << "\n";
  o << "# HELP wfod_backend The backend now optimising (1 for its name).\n"
       "# TYPE wfod_backend gauge\nwfod_backend{name=\""
    << h.backend << "\"} 1\n";
  o << "# HELP wfod_backend_fallbacks_total Backend errors that switched the daemon to cpu.\n"
       "# TYPE wfod_backend_fallbacks_total counter\nwfod_backend_fallbacks_total "
    << h.backend_fallbacks << "\n";
  o << "# HELP wfod_curve_denied_total CURVE clients refused (key not in [curve] clients_file).\n"
       "# TYPE wfod_curve_denied_total counter\nwfod_curve_denied_total "
    << h.curve_denied << "\n";
  return o.str();
}

std::string http_response(std::string_view head, const HealthInput& h) {
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
    r = response(200, "OK", "text/plain; version=0.0.4; charset=utf-8", prometheus_metrics(h));
  } else if (path == "/healthz") {
    r = h.degraded ? text(503, "Service Unavailable", "degraded\n") : text(200, "OK", "ok\n");
  } else {
    r = text(404, "Not Found", "try /metrics or /healthz\n");
  }
  if (method == "HEAD") r.erase(r.find("\r\n\r\n") + 4);
  return r;
}

}  // namespace wfod::daemon
