// What the daemon answers besides publications: CURVE client authentication (ZAP), snapshot
// requests (PROTOCOL §3) with the health they report, and the HTTP status endpoint.

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

void Daemon::log_connection_cap(feeds::RejectLogLimiter& limit, std::string_view socket,
                                size_t open, int max, std::string_view what) {
  const auto d = limit.on_reject();
  if (!d.log) return;
  spdlog::warn("{}: {} connections open, the cap (max_{}_connections) is {}: {}{}", socket, open,
               socket, max, what, not_logged_note(d.suppressed));
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
  h.http_connections = {http_open(), static_cast<uint64_t>(cfg_.daemon.max_http_connections),
                        http_refused_};
  h.last_reload = last_reload_;
  h.reload_failures = reload_failures_;
  h.snapshot_dropped = snapshot_dropped_;
  h.version = wfod::kVersion;
  const std::vector<std::string> built = backend_names();
  h.build_backend = std::find(built.begin(), built.end(), "cuda") != built.end() ? "cuda" : "cpu";
  return h;
}

// --- HTTP status ([publish] http) ---

bool Daemon::open_http(bool at_start) {
  if (cfg_.publish.http.empty()) return true;
  // At start a monitoring endpoint that cannot be served stops the daemon, like the other
  // sockets (an operator would otherwise find out from a silent scraper); on SIGHUP the
  // running daemon keeps publishing and only HTTP stays off.
  const auto failed = [this, at_start](const std::string& why, int exit_code) {
    if (at_start) {
      spdlog::critical("{}", why);
      exit_code_ = exit_code;
    } else {
      spdlog::error("{}; serving without HTTP status", why);
    }
    http_.reset();
    return false;
  };
  const auto address = parse_http_address(cfg_.publish.http);
  if (!address) {
    return failed("[publish] http = \"" + cfg_.publish.http + "\": expected HOST:PORT",
                  kExitBadConfig);
  }
  try {
    asio::ip::tcp::resolver resolver(io_);
    const auto endpoints = resolver.resolve(address->first, std::to_string(address->second));
    const asio::ip::tcp::endpoint endpoint = endpoints.begin()->endpoint();
    http_.emplace(io_);
    http_->open(endpoint.protocol());
    http_->set_option(asio::socket_base::reuse_address(true));
    http_->bind(endpoint);
    http_->listen();
    spdlog::info("HTTP /metrics and /healthz on {}:{}", endpoint.address().to_string(),
                 http_->local_endpoint().port());
  } catch (const boost::system::system_error& e) {
    // code().message(): the errno text alone, without Boost's source location.
    return failed("cannot bind [http] endpoint " + cfg_.publish.http + ": " + e.code().message(),
                  kExitStartFailed);
  }
  return true;
}

void Daemon::accept_http() {
  http_->async_accept([this](const boost::system::error_code& ec, asio::ip::tcp::socket sock) {
    // Closed (a stop, or a reload that reopens it and accepts on the new one itself).
    if (stopping_ || ec == asio::error::operation_aborted) return;
    if (ec == asio::error::no_descriptors || ec.value() == ENFILE) {
      // Out of descriptors: the connection waits in the backlog; retrying at once would spin.
      log_connection_cap(http_cap_log_, "http", http_open(), cfg_.daemon.max_http_connections,
                         "accept failed (" + ec.message() + "): retrying in 100 ms");
      http_retry_.expires_after(std::chrono::milliseconds(100));
      http_retry_.async_wait([this](const boost::system::error_code& e) {
        if (!e && !stopping_ && http_) accept_http();
      });
      return;
    }
    if (!ec) admit_http(std::move(sock));
    accept_http();
  });
}

size_t Daemon::http_open() const {
  return static_cast<size_t>(std::count_if(http_sessions_.begin(), http_sessions_.end(),
                                           [](const std::weak_ptr<HttpSession>& w) {
                                             const auto s = w.lock();
                                             return s && s->sock.is_open();
                                           }));
}

void Daemon::admit_http(asio::ip::tcp::socket sock) {
  std::erase_if(http_sessions_, [](const std::weak_ptr<HttpSession>& w) {
    const auto s = w.lock();
    return !s || !s->sock.is_open();
  });
  const int max = cfg_.daemon.max_http_connections;
  std::vector<bool> answering;
  for (const std::weak_ptr<HttpSession>& w : http_sessions_)
    answering.push_back(w.lock()->answering);
  const CapDecision d = admit_at_cap(answering, static_cast<size_t>(max));
  if (d.at_cap()) ++http_refused_;
  if (d.action == CapDecision::Action::close_oldest_idle) {
    log_connection_cap(http_cap_log_, "http", http_sessions_.size(), max,
                       "closed the oldest one still sending its request");
    const auto idle = std::next(http_sessions_.begin(), static_cast<std::ptrdiff_t>(d.close));
    idle->lock()->close();
    http_sessions_.erase(idle);
  } else if (d.action == CapDecision::Action::refuse) {
    log_connection_cap(http_cap_log_, "http", http_sessions_.size(), max,
                       "every one is being answered: a new one refused with 503");
    auto s = std::make_shared<HttpSession>(std::move(sock));
    s->reply = net::http_busy_response();
    asio::async_write(s->sock, asio::buffer(s->reply),
                      [s](const boost::system::error_code&, size_t) { s->close(); });
    return;
  }
  auto s = std::make_shared<HttpSession>(std::move(sock));
  http_sessions_.push_back(s);
  serve_http(std::move(s));
}

void Daemon::serve_http(std::shared_ptr<HttpSession> s) {
  // A client that never finishes its request is dropped after 5 s.
  s->timer.expires_after(std::chrono::seconds(5));
  s->timer.async_wait([s](const boost::system::error_code& ec) {
    if (ec) return;
    boost::system::error_code ignored;
    s->sock.close(ignored);
  });
  asio::async_read_until(
      s->sock, asio::dynamic_buffer(s->request, net::kMaxHttpRequestBytes), "\r\n\r\n",
      [this, s](const boost::system::error_code& ec, size_t) {
        if (ec) {  // closed, timed out, or a head larger than kMaxHttpRequestBytes
          s->close();
          return;
        }
        s->answering = true;
        s->reply = http_response(s->request, health());
        asio::async_write(s->sock, asio::buffer(s->reply),
                          [s](const boost::system::error_code&, size_t) { s->close(); });
      });
}

}  // namespace wfod::daemon::loop
