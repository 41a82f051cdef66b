// The daemon's health from its parts (health_report.hpp).
#include "wfod/daemon/core/health_report.hpp"

#include <optional>
#include <string>

namespace wfod::daemon {

HealthInput health_report(const HealthParts& parts, double uptime_s, int64_t now_ns) {
  HealthInput h;
  h.backend = parts.runs.backend_name();
  h.uptime_s = uptime_s;
  // The symbols, the feed counters and the bar logs' storage state.
  parts.bars.fill_health(h, now_ns);
  h.publish_dropped = parts.publisher.dropped();
  h.backend_fallbacks = parts.runs.fallbacks();
  h.backend_error = parts.runs.backend_error();
  // The directory itself, and the files rewritten in it (StorageAlarms): after the logs'
  // own errors, which say more about the bars; the directory first, the likely cause of
  // the rest.
  std::optional<std::string> problem = parts.alarms.message("state_dir");
  if (!problem) problem = parts.alarms.problem();
  if (problem) {
    h.storage.ok = false;
    h.degraded = true;
    if (h.storage.error.empty()) h.storage.error = *problem;
  }
  h.coalesced = parts.runs.coalesced();
  h.latency = parts.latency.json();
  h.requested_backend = std::string(parts.requested_backend);
  const PublicationMap& last = parts.publisher.last();
  for (const auto& [key, stream] : parts.streams) {
    StreamHealth& s = h.streams[key];
    s.every_bars = stream.cfg.every;
    s.publications = stream.publications;
    if (const auto it = last.find(key); it != last.end() && it->second.published_ns > 0) {
      s.last_published_ns = it->second.published_ns;
    }
    const size_t bars = parts.bars.at(key.first).history.size();
    if (stream.last_seq > 0 && stream.last_end <= bars)
      s.bars_since_publication = bars - stream.last_end;
    if (const auto d = parts.runs.durations().find(key.second); d != parts.runs.durations().end()) {
      h.optimisation_durations[key.second] = d->second;
    }
  }
  return h;
}

}  // namespace wfod::daemon
