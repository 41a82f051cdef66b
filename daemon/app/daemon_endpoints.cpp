// What the daemon answers besides publications: CURVE client authentication (ZAP), snapshot
// requests (PROTOCOL §3), and the health they and the HTTP endpoint report.

#include "daemon_impl.hpp"
#include "wfod/daemon/core/connection_cap.hpp"
#include "wfod/daemon/core/health_report.hpp"
#include "wfod/version.hpp"

namespace wfod::daemon::loop {

// --- ZAP: CURVE client authentication ([curve] clients_file) ---

void Daemon::arm_zap() {
  zap_->fd.async_wait(asio::posix::stream_descriptor::wait_read,
                      [this](const boost::system::error_code& ec) {
                        if (ec || stopping_) return;
                        drain_zap();
                      });
}

void Daemon::drain_zap() {
  try {
    std::vector<zmq::message_t> parts;
    while (zap_->readable()) {
      parts.clear();
      if (!zmq::recv_multipart(zap_->sock, std::back_inserter(parts), zmq::recv_flags::dontwait)) {
        break;
      }
      std::vector<std::string> frames;
      for (const auto& p : parts) frames.push_back(p.to_string());
      // RFC 27: [version, request_id, domain, address, routing_id, mechanism, credentials...]
      const std::string request_id = frames.size() > 1 ? frames[1] : std::string();
      std::vector<std::string> reply;
      if (frames.size() > 2 && frames[2] == kSnapshotZapDomain) {
        // The connection count as of now (the new one's ACCEPTED event precedes its
        // handshake), then the cap.
        snapshot_monitor_->drain();
        const auto max = static_cast<size_t>(cfg_.daemon.max_snapshot_connections);
        if (snapshot_connections_.size() > max) {
          ++snapshot_refused_;
          log_connection_cap(snapshot_cap_log_, "snapshot", snapshot_connections_.size() - 1,
                             static_cast<int>(max), "a new client refused at its handshake");
          reply = {"1.0", request_id, "400", "too many connections", "", ""};
        }
      }
      if (reply.empty() && curve_) {
        const CurveSecurity::Decision d = curve_->answer(frames);
        if (!d.admitted) {
          ++curve_denied_;
          if (zap_log_.on_reject().log) {
            spdlog::warn("curve denied client_key={} address={} (not in [curve] clients_file)",
                         d.client.empty() ? "-" : d.client, d.address);
          }
        } else {
          spdlog::debug("curve admitted client_key={} address={}", d.client, d.address);
        }
        reply = d.reply;
      } else if (reply.empty()) {
        reply = {"1.0", request_id, "200", "OK", "", ""};  // NULL mechanism, within the cap
      }
      for (size_t i = 0; i < reply.size(); ++i) {
        (void)zap_->sock.send(zmq::buffer(reply[i]), i + 1 < reply.size() ? zmq::send_flags::sndmore
                                                                          : zmq::send_flags::none);
      }
    }
  } catch (const zmq::error_t& e) {
    spdlog::error("zap: {}", e.what());
  }
  arm_zap();
}

// --- snapshot ---

void Daemon::arm_snapshot() {
  rep_->fd.async_wait(asio::posix::stream_descriptor::wait_read,
                      [this](const boost::system::error_code& ec) {
                        if (ec || stopping_) return;
                        drain_snapshot();
                      });
}

void Daemon::drain_snapshot() {
  try {
    std::vector<zmq::message_t> parts;
    while (rep_->readable()) {
      parts.clear();
      const auto n =
          zmq::recv_multipart(rep_->sock, std::back_inserter(parts), zmq::recv_flags::dontwait);
      if (!n) break;
      // ROUTER envelope: [identity, "" (REQ's delimiter; absent from a bare DEALER), frames].
      size_t first = 1;
      const bool delimited = parts.size() > 1 && parts[1].size() == 0;
      if (delimited) first = 2;
      std::vector<std::string> frames;
      for (size_t i = first; i < parts.size(); ++i) frames.push_back(parts[i].to_string());
      const std::string reply = snapshot_reply(
          frames, publisher_.last(),
          [this](const PublicationKey& key) { return streams_.count(key) > 0; },
          [this] { return health(); });
      try {
        bool sent = rep_->sock.send(parts[0], zmq::send_flags::sndmore | zmq::send_flags::dontwait)
                        .has_value();
        if (sent && delimited) {
          sent = rep_->sock
                     .send(zmq::message_t(), zmq::send_flags::sndmore | zmq::send_flags::dontwait)
                     .has_value();
        }
        if (sent) sent = rep_->sock.send(zmq::buffer(reply), zmq::send_flags::dontwait).has_value();
        if (!sent) ++snapshot_dropped_;
      } catch (const zmq::error_t&) {
        ++snapshot_dropped_;  // EHOSTUNREACH: the client left before its reply
      }
    }
  } catch (const zmq::error_t& e) {
    spdlog::error("snapshot: {}", e.what());
  }
  arm_snapshot();
}

HealthInput Daemon::health() const {
  const double uptime_s = std::chrono::duration<double>(Clock::now() - started_).count();
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  HealthInput h = health_report({keeper_, streams_, dispatcher_, publisher_, publication_.latency(),
                                 storage_alarms_, cfg_.daemon.backend},
                                uptime_s, now_ns);
  // The endpoints' counters, the reloads', the build's identity.
  h.curve_denied = curve_denied_;
  h.snapshot_connections = {snapshot_connections_.size(),
                            static_cast<uint64_t>(cfg_.daemon.max_snapshot_connections),
                            snapshot_refused_};
  const auto now = Clock::now();
  for (const auto& f : feeds_) {
    h.feeds.push_back({f->endpoint, f->link.is_connected(), f->link.last_message_age_s(now),
                       f->link.disconnects(), f->link.reconnects()});
  }
  h.http_connections = http_.connections();
  h.last_reload = last_reload_;
  h.reload_failures = reload_failures_;
  h.snapshot_dropped = snapshot_dropped_;
  h.version = wfod::kVersion;
  const std::vector<std::string> built = backend_names();
  h.build_backend = std::find(built.begin(), built.end(), "cuda") != built.end() ? "cuda" : "cpu";
  return h;
}

}  // namespace wfod::daemon::loop
