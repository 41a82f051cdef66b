// The HTTP status endpoint ([publish] http: /metrics and /healthz, PROTOCOL v1.1): its
// acceptor, its connections within [daemon] max_http_connections (who gives way at the cap:
// core/connection_cap.hpp), each request read (bounded in size and time), answered from the
// daemon's health (publish/http_status.hpp) and closed. Loop thread only.
#pragma once

// <utility> first: Boost.Asio's awaitable.hpp uses std::exchange without including it.
// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>

#include "wfod/config/config.hpp"
#include "wfod/daemon/publish/snapshot.hpp"
#include "wfod/feeds/bar_validator.hpp"

namespace wfod::daemon::loop {

namespace asio = boost::asio;

// One HTTP status request: read the head (bounded in size and time), answer, close.
struct HttpSession {
  explicit HttpSession(asio::ip::tcp::socket s) : sock(std::move(s)), timer(sock.get_executor()) {}
  asio::ip::tcp::socket sock;
  asio::steady_timer timer;
  std::string request;
  std::string reply;
  bool answering = false;  // its request is read: no longer a candidate to close at the cap
  void close() {
    boost::system::error_code ignored;
    sock.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    sock.close(ignored);
    timer.cancel();
  }
};

class HttpEndpoint {
 public:
  using Health = std::function<HealthInput()>;

  // `cfg` is read at each use ([publish] http at open, max_http_connections per connection).
  HttpEndpoint(asio::io_context& io, const config::Config& cfg, Health health);

  // Binds [publish] http (nothing to do when it is empty). At start a failure is critical and
  // sets `exit_code` (a monitoring endpoint that cannot be served stops the daemon, like the
  // other sockets); on SIGHUP it is logged and the daemon serves without HTTP status.
  bool open(bool at_start, int& exit_code);
  void accept();
  bool listening() const { return acceptor_.has_value(); }
  // A reload that changes [publish] http: the acceptor closed (its pending accept ends).
  void close();
  // The stop: the acceptor closed and nothing accepted from now on.
  void stop();
  HealthInput::Connections connections() const;
  // Lines about connections closed or refused at the cap left out by the rate limit.
  uint64_t cap_lines_not_logged() const { return cap_log_.pending_suppressed(); }

 private:
  // A new connection, within [daemon] max_http_connections: at the cap the oldest one still
  // sending its request is closed first, or, when every one is being answered, this one gets
  // 503 "too many connections".
  void admit(asio::ip::tcp::socket sock);
  void serve(std::shared_ptr<HttpSession> s);
  size_t open_count() const;

  asio::io_context& io_;
  const config::Config& cfg_;
  Health health_;
  std::optional<asio::ip::tcp::acceptor> acceptor_;
  std::list<std::weak_ptr<HttpSession>> sessions_;  // open ones, oldest first
  uint64_t refused_ = 0;
  asio::steady_timer retry_;  // an accept that failed for want of descriptors
  feeds::RejectLogLimiter cap_log_{20, std::chrono::seconds(10)};  // closed or refused at the cap
  bool stopping_ = false;
};

}  // namespace wfod::daemon::loop
