// Snapshot request handling (PROTOCOL §3): frames in, one JSON reply out, never a throw.

#include "wfod/daemon/publish/snapshot.hpp"

#include <cmath>

#include "wfod/feeds/csv_reader.hpp"

namespace wfod::daemon {

namespace {

using Json = nlohmann::ordered_json;

std::string error_reply(std::string_view message) {
  Json j = Json::object();
  j["error"] = std::string(message);
  return j.dump();
}

// Printable ASCII only: replies echo nothing else, so hostile bytes never reach a log.
bool printable(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

SymbolHealth symbol_health(uint64_t bars, std::optional<int64_t> last_ts, uint64_t quarantined_bars,
                           double stale_after_s, int64_t now_ns, double uptime_s) {
  SymbolHealth h;
  h.bars = bars;
  h.last_ts = last_ts;
  h.quarantined_bars = quarantined_bars;
  if (last_ts) h.last_bar_age_s = static_cast<double>(now_ns - *last_ts) / 1e9;
  if (stale_after_s > 0) {
    h.stale = h.last_bar_age_s ? *h.last_bar_age_s > stale_after_s : uptime_s > stale_after_s;
  }
  return h;
}

Json health_json(const HealthInput& in) {
  Json j = Json::object();
  j["status"] = in.degraded ? "degraded" : "ok";
  j["backend"] = in.backend;
  j["uptime_s"] = std::isfinite(in.uptime_s) ? Json(in.uptime_s) : Json(nullptr);
  Json symbols = Json::object();
  for (const auto& [name, s] : in.symbols) {
    Json e = Json::object();
    e["bars"] = s.bars;
    e["last_ts"] = s.last_ts ? Json(*s.last_ts) : Json(nullptr);
    e["last_bar_age_s"] = s.last_bar_age_s && std::isfinite(*s.last_bar_age_s)
                              ? Json(*s.last_bar_age_s)
                              : Json(nullptr);
    e["quarantined_bars"] = s.quarantined_bars;
    e["stale"] = s.stale;
    symbols[name] = std::move(e);
  }
  j["symbols"] = std::move(symbols);
  Json rejects = Json::object();
  for (const auto& [reason, n] : in.rejects) rejects[reason] = n;
  j["rejects"] = std::move(rejects);
  j["gaps"] = in.gaps;
  j["coalesced"] = in.coalesced;
  j["storage"] = {{"ok", in.storage.ok},
                  {"pending_bars", in.storage.pending_bars},
                  {"write_errors", in.storage.write_errors},
                  {"error", in.storage.error.empty() ? Json(nullptr) : Json(in.storage.error)}};
  j["dropped"] = {{"publish", in.publish_dropped}, {"snapshot", in.snapshot_dropped}};
  j["backend_fallbacks"] = in.backend_fallbacks;
  j["backend_error"] = in.backend_error.empty() ? Json(nullptr) : Json(in.backend_error);
  j["curve_denied"] = in.curve_denied;
  const auto connections = [](const HealthInput::Connections& c) {
    return Json{{"open", c.open}, {"max", c.max}, {"refused", c.refused}};
  };
  j["connections"] = {{"snapshot", connections(in.snapshot_connections)},
                      {"http", connections(in.http_connections)}};
  Json feed_list = Json::array();
  for (const HealthInput::Feed& f : in.feeds) {
    feed_list.push_back(
        {{"endpoint", f.endpoint},
         {"connected", f.connected},
         {"last_message_age_s", f.last_message_age_s && std::isfinite(*f.last_message_age_s)
                                    ? Json(*f.last_message_age_s)
                                    : Json(nullptr)},
         {"disconnects", f.disconnects},
         {"reconnects", f.reconnects}});
  }
  j["feeds"] = std::move(feed_list);
  if (in.last_reload) {
    j["last_reload"] = {
        {"status", in.last_reload->ok ? "ok" : "error"},
        {"time", feeds::format_timestamp(in.last_reload->time_ns)},
        {"message",
         in.last_reload->message.empty() ? Json(nullptr) : Json(in.last_reload->message)}};
  } else {
    j["last_reload"] = nullptr;
  }
  j["reload_failures"] = in.reload_failures;
  if (!in.latency.is_null()) j["latency_ms"] = in.latency;
  return j;
}

void set_feed_counters(HealthInput& in, const feeds::FeedStats& stats) {
  for (const feeds::RejectReason reason : feeds::kAllRejectReasons) {
    in.rejects[std::string(to_string(reason))] = stats.rejected(reason);
  }
  in.gaps = stats.missing_seqs;
  in.gap_events = stats.gaps;
}

std::string snapshot_reply(std::span<const std::string> frames, const PublicationMap& last,
                           const StreamFilter& configured,
                           const std::function<HealthInput()>& health) {
  try {
    if (frames.empty()) return error_reply("empty request");
    if (frames.size() > kMaxSnapshotFrames) return error_reply("too many frames");
    for (const std::string& f : frames) {
      if (f.size() > kMaxSnapshotFrameBytes) {
        return error_reply("frame too large: " + std::to_string(f.size()) + " bytes, at most " +
                           std::to_string(kMaxSnapshotFrameBytes));
      }
      if (!printable(f)) return error_reply("frames must be printable ASCII");
    }
    const std::string& verb = frames[0];
    if (verb == "get") {
      if (frames.size() != 3) return error_reply("get takes SYMBOL and STRATEGY");
      const PublicationKey key{frames[1], frames[2]};
      // A removed or misspelt stream must not look like one that is merely waiting.
      if (configured && !configured(key)) {
        return error_reply("unknown stream " + key.first + "." + key.second);
      }
      const auto it = last.find(key);
      if (it == last.end()) return error_reply("no publication yet");
      return it->second.payload;
    }
    if (verb == "list") {
      if (frames.size() != 1) return error_reply("list takes no arguments");
      Json streams = Json::array();
      for (const auto& [key, pub] : last) {
        streams.push_back({{"symbol", key.first}, {"strategy", key.second}, {"seq", pub.seq}});
      }
      Json j = Json::object();
      j["streams"] = std::move(streams);
      return j.dump();
    }
    if (verb == "health") {
      if (frames.size() != 1) return error_reply("health takes no arguments");
      return health_json(health ? health() : HealthInput{}).dump();
    }
    return error_reply("unknown request: expected get, list or health");
  } catch (const std::exception& e) {
    // A REP socket must answer every request: an internal failure is still a reply.
    return error_reply(std::string("internal error: ") + e.what());
  }
}

}  // namespace wfod::daemon
