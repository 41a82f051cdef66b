// wfod's metric families (metrics_text.hpp): names, types, help and labels, in the order
// docs/operations.md lists them.
#include "wfod/daemon/publish/metrics_text.hpp"

#include <cmath>

#include "wfod/net/prometheus_text.hpp"

namespace wfod::daemon {
namespace {

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

void process_families(net::PrometheusText& m, const HealthInput& h) {
  m.family("wfod_build_info", "gauge",
           "Always 1: the wfod version and the backends built in (cuda: a CUDA build, which "
           "also has cpu; cpu: a CPU-only build).");
  m.sample({{"version", h.version}, {"backend", h.build_backend}}, 1);
  m.family("wfod_up", "gauge", "1 while the daemon serves.");
  m.sample({}, 1);
  m.family("wfod_uptime_seconds", "gauge", "Seconds since start.");
  m.sample("", {}, finite_or_zero(h.uptime_s));
  m.family("wfod_degraded", "gauge",
           "1 while health is degraded: storage is not ok (wfod_storage_ok), a symbol is "
           "stale, or a corrupt bar log was quarantined at start.");
  m.sample({}, h.degraded ? 1 : 0);
  m.family("wfod_backend_info", "gauge",
           "Always 1: the backend now optimising and the one [daemon] backend asked for (auto, "
           "cpu or cuda). cpu while cuda or auto was asked for on a CUDA build is a fallback.");
  m.sample({{"backend", h.backend}, {"requested", h.requested_backend}}, 1);
  m.family("wfod_backend_fallbacks_total", "counter",
           "Backend errors that switched the daemon to cpu.");
  m.sample({}, h.backend_fallbacks);
}

void symbol_families(net::PrometheusText& m, const HealthInput& h) {
  m.family("wfod_bars", "gauge", "Bars in the symbol's history, from its anchor.");
  for (const auto& [name, s] : h.symbols) m.sample({{"symbol", name}}, s.bars);
  m.family("wfod_bars_accepted_total", "counter",
           "Feed bars accepted into the symbol's history since start (backfill not included).");
  for (const auto& [name, s] : h.symbols) m.sample({{"symbol", name}}, s.accepted_bars);
  m.family("wfod_last_bar_timestamp_seconds", "gauge",
           "Close time of the symbol's last bar, seconds since the epoch.");
  for (const auto& [name, s] : h.symbols) {
    if (s.last_ts) m.sample("", {{"symbol", name}}, static_cast<double>(*s.last_ts) / 1e9);
  }
  m.family("wfod_last_bar_age_seconds", "gauge",
           "Age of the symbol's last bar on the daemon's clock.");
  for (const auto& [name, s] : h.symbols) {
    if (s.last_bar_age_s && std::isfinite(*s.last_bar_age_s)) {
      m.sample("", {{"symbol", name}}, *s.last_bar_age_s);
    }
  }
  m.family("wfod_bar_interval_seconds", "gauge",
           "The symbol's observed bar interval: the median gap between its newest 65 bars.");
  for (const auto& [name, s] : h.symbols) {
    if (s.bar_interval_s) m.sample("", {{"symbol", name}}, *s.bar_interval_s);
  }
  m.family("wfod_symbol_stale", "gauge",
           "1 while the symbol's last bar is older than its stale_after_s.");
  for (const auto& [name, s] : h.symbols) m.sample({{"symbol", name}}, s.stale ? 1 : 0);
  m.family("wfod_symbol_stale_after_seconds", "gauge",
           "The symbol's [[symbol]] stale_after_s; 0: the daemon never calls it stale.");
  for (const auto& [name, s] : h.symbols) {
    m.sample("", {{"symbol", name}}, finite_or_zero(s.stale_after_s));
  }
  m.family("wfod_quarantined_bars", "gauge",
           "Bars of a corrupt bar log moved aside at start ([daemon] on_corrupt_log = "
           "\"quarantine\"); 0 after a restart with the log repaired.");
  for (const auto& [name, s] : h.symbols) m.sample({{"symbol", name}}, s.quarantined_bars);
}

void feed_and_storage_families(net::PrometheusText& m, const HealthInput& h) {
  m.family("wfod_feed_rejects_total", "counter", "Feed input rejected, by reason (PROTOCOL §1).");
  for (const auto& [reason, n] : h.rejects) m.sample({{"reason", reason}}, n);
  m.family("wfod_feed_missing_bars_total", "counter",
           "Bars missing by the publishers' seq numbers (the sum of forward jumps minus 1; "
           "health gaps).");
  m.sample({}, h.gaps);
  m.family("wfod_feed_gaps_total", "counter", "Publisher seq jumps, forward or backwards.");
  m.sample({}, h.gap_events);
  m.family("wfod_feed_connected", "gauge",
           "1 while the [[feed]]'s socket has a session to its publisher.");
  for (const HealthInput::Feed& f : h.feeds) m.sample({{"feed", f.endpoint}}, f.connected ? 1 : 0);
  m.family("wfod_feed_last_message_age_seconds", "gauge",
           "Seconds since the feed's last message (none before the first).");
  for (const HealthInput::Feed& f : h.feeds) {
    if (f.last_message_age_s && std::isfinite(*f.last_message_age_s))
      m.sample("", {{"feed", f.endpoint}}, *f.last_message_age_s);
  }
  m.family("wfod_feed_disconnects_total", "counter",
           "Sessions of the feed that ended (publisher gone, or a protocol error such as a "
           "frame over 16 MiB).");
  for (const HealthInput::Feed& f : h.feeds) m.sample({{"feed", f.endpoint}}, f.disconnects);
  m.family("wfod_feed_reconnects_total", "counter",
           "Ended sessions libzmq did not reconnect, connected again by the daemon.");
  for (const HealthInput::Feed& f : h.feeds) m.sample({{"feed", f.endpoint}}, f.reconnects);
  m.family("wfod_storage_ok", "gauge",
           "1 while every accepted bar is in its log and the state directory takes writes; 0 "
           "while some bars are only in memory (disk full, I/O error), a bar log was deleted or "
           "moved while open, or the state directory is gone, replaced or not writable.");
  m.sample({}, h.storage.ok ? 1 : 0);
  m.family("wfod_storage_pending_bars", "gauge", "Accepted bars kept in memory, not yet written.");
  m.sample({}, h.storage.pending_bars);
  m.family("wfod_storage_write_errors_total", "counter", "Bar log write or sync errors.");
  m.sample({}, h.storage.write_errors);
  m.family("wfod_storage_refused_bars_total", "counter",
           "Valid feed bars lost because the symbol's bar log could not be written for so long "
           "that its in-memory queue was full.");
  for (const auto& [name, s] : h.symbols) m.sample({{"symbol", name}}, s.refused_bars);
}

void stream_families(net::PrometheusText& m, const HealthInput& h) {
  m.family("wfod_stream_every_bars", "gauge",
           "The stream's schedule: it re-optimises and publishes every this many bars.");
  for (const auto& [key, s] : h.streams) {
    m.sample({{"symbol", key.first}, {"strategy", key.second}}, s.every_bars);
  }
  m.family("wfod_stream_publication_interval_seconds", "gauge",
           "The stream's expected time between publications: every_bars times the symbol's "
           "observed bar interval.");
  for (const auto& [key, s] : h.streams) {
    const auto sym = h.symbols.find(key.first);
    if (sym == h.symbols.end() || !sym->second.bar_interval_s) continue;
    m.sample("", {{"symbol", key.first}, {"strategy", key.second}},
             static_cast<double>(s.every_bars) * *sym->second.bar_interval_s);
  }
  m.family("wfod_stream_publications_total", "counter",
           "Publications sent on the stream since it was started.");
  for (const auto& [key, s] : h.streams) {
    m.sample({{"symbol", key.first}, {"strategy", key.second}}, s.publications);
  }
  m.family("wfod_stream_last_publication_timestamp_seconds", "gauge",
           "When the stream's newest publication was sent (its published_ns), seconds since "
           "the epoch; kept across restarts.");
  for (const auto& [key, s] : h.streams) {
    if (!s.last_published_ns) continue;
    m.sample("", {{"symbol", key.first}, {"strategy", key.second}},
             static_cast<double>(*s.last_published_ns) / 1e9);
  }
  m.family("wfod_stream_bars_since_publication", "gauge",
           "Bars the symbol took since the window of the stream's newest publication ended.");
  for (const auto& [key, s] : h.streams) {
    if (s.bars_since_publication) {
      m.sample({{"symbol", key.first}, {"strategy", key.second}}, *s.bars_since_publication);
    }
  }
  m.family("wfod_optimisation_duration_seconds", "histogram",
           "Seconds each optimisation run took on the worker (the publication's elapsed_ms: "
           "stream advance or sweep, selection, live_oos), by strategy.");
  for (const auto& [strategy, d] : h.optimisation_durations) {
    for (size_t i = 0; i < DurationHistogram::kBounds.size(); ++i) {
      const std::string le = net::format_sample_value(DurationHistogram::kBounds[i]);
      m.sample("_bucket", {{"strategy", strategy}, {"le", le}}, d.cumulative(i));
    }
    m.sample("_bucket", {{"strategy", strategy}, {"le", "+Inf"}}, d.count());
    m.sample("_sum", {{"strategy", strategy}}, d.sum());
    m.sample("_count", {{"strategy", strategy}}, d.count());
  }
  m.family("wfod_coalesced_total", "counter", "Optimisations coalesced into a running one.");
  m.sample({}, h.coalesced);
}

void socket_families(net::PrometheusText& m, const HealthInput& h) {
  m.family("wfod_dropped_total", "counter",
           "Messages a socket refused instead of blocking the loop.");
  m.sample({{"socket", "publish"}}, h.publish_dropped);
  m.sample({{"socket", "snapshot"}}, h.snapshot_dropped);
  m.family("wfod_curve_denied_total", "counter",
           "CURVE clients refused (key not in [curve] clients_file).");
  m.sample({}, h.curve_denied);
  m.family("wfod_connections", "gauge",
           "Connections the snapshot socket or the HTTP endpoint holds now.");
  m.sample({{"socket", "snapshot"}}, h.snapshot_connections.open);
  m.sample({{"socket", "http"}}, h.http_connections.open);
  m.family("wfod_connections_max", "gauge",
           "The cap on them: [daemon] max_snapshot_connections, max_http_connections.");
  m.sample({{"socket", "snapshot"}}, h.snapshot_connections.max);
  m.sample({{"socket", "http"}}, h.http_connections.max);
  m.family("wfod_connections_refused_total", "counter",
           "Connections refused or closed at the cap (HTTP: the oldest one still sending its "
           "request is closed first).");
  m.sample({{"socket", "snapshot"}}, h.snapshot_connections.refused);
  m.sample({{"socket", "http"}}, h.http_connections.refused);
  m.family("wfod_reload_failures_total", "counter",
           "SIGHUP reloads refused (the running configuration kept): health last_reload says why.");
  m.sample({}, h.reload_failures);
}

}  // namespace

std::string prometheus_metrics(const HealthInput& h) {
  net::PrometheusText m;
  process_families(m, h);
  symbol_families(m, h);
  feed_and_storage_families(m, h);
  stream_families(m, h);
  socket_families(m, h);
  return m.text();
}

}  // namespace wfod::daemon
