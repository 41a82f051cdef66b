// The HTTP status endpoint (http_endpoint.hpp): bind, accept within the cap, answer, close.

#include "http_endpoint.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "daemon_logs.hpp"
#include "exit_codes.hpp"
#include "wfod/daemon/core/connection_cap.hpp"
#include "wfod/daemon/publish/http_status.hpp"

namespace wfod::daemon::loop {

HttpEndpoint::HttpEndpoint(asio::io_context& io, const config::Config& cfg, Health health)
    : io_(io), cfg_(cfg), health_(std::move(health)), retry_(io) {}

bool HttpEndpoint::open(bool at_start, int& exit_code) {
  if (cfg_.publish.http.empty()) return true;
  // At start a monitoring endpoint that cannot be served stops the daemon, like the other
  // sockets (an operator would otherwise find out from a silent scraper); on SIGHUP the
  // running daemon keeps publishing and only HTTP stays off.
  const auto failed = [this, at_start, &exit_code](const std::string& why, int code) {
    if (at_start) {
      spdlog::critical("{}", why);
      exit_code = code;
    } else {
      spdlog::error("{}; serving without HTTP status", why);
    }
    acceptor_.reset();
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
    acceptor_.emplace(io_);
    acceptor_->open(endpoint.protocol());
    acceptor_->set_option(asio::socket_base::reuse_address(true));
    acceptor_->bind(endpoint);
    acceptor_->listen();
    spdlog::info("HTTP /metrics and /healthz on {}:{}", endpoint.address().to_string(),
                 acceptor_->local_endpoint().port());
  } catch (const boost::system::system_error& e) {
    // code().message(): the errno text alone, without Boost's source location.
    return failed("cannot bind [http] endpoint " + cfg_.publish.http + ": " + e.code().message(),
                  kExitStartFailed);
  }
  return true;
}

void HttpEndpoint::accept() {
  acceptor_->async_accept([this](const boost::system::error_code& ec, asio::ip::tcp::socket sock) {
    // Closed (a stop, or a reload that reopens it and accepts on the new one itself).
    if (stopping_ || ec == asio::error::operation_aborted) return;
    if (ec == asio::error::no_descriptors || ec.value() == ENFILE) {
      // Out of descriptors: the connection waits in the backlog; retrying at once would spin.
      log_connection_cap(cap_log_, "http", open_count(), cfg_.daemon.max_http_connections,
                         "accept failed (" + ec.message() + "): retrying in 100 ms");
      retry_.expires_after(std::chrono::milliseconds(100));
      retry_.async_wait([this](const boost::system::error_code& e) {
        if (!e && !stopping_ && acceptor_) accept();
      });
      return;
    }
    if (!ec) admit(std::move(sock));
    accept();
  });
}

size_t HttpEndpoint::open_count() const {
  return static_cast<size_t>(
      std::count_if(sessions_.begin(), sessions_.end(), [](const std::weak_ptr<HttpSession>& w) {
        const auto s = w.lock();
        return s && s->sock.is_open();
      }));
}

void HttpEndpoint::admit(asio::ip::tcp::socket sock) {
  std::erase_if(sessions_, [](const std::weak_ptr<HttpSession>& w) {
    const auto s = w.lock();
    return !s || !s->sock.is_open();
  });
  const int max = cfg_.daemon.max_http_connections;
  std::vector<bool> answering;
  for (const std::weak_ptr<HttpSession>& w : sessions_) answering.push_back(w.lock()->answering);
  const CapDecision d = admit_at_cap(answering, static_cast<size_t>(max));
  if (d.at_cap()) ++refused_;
  if (d.action == CapDecision::Action::close_oldest_idle) {
    log_connection_cap(cap_log_, "http", sessions_.size(), max,
                       "closed the oldest one still sending its request");
    const auto idle = std::next(sessions_.begin(), static_cast<std::ptrdiff_t>(d.close));
    idle->lock()->close();
    sessions_.erase(idle);
  } else if (d.action == CapDecision::Action::refuse) {
    log_connection_cap(cap_log_, "http", sessions_.size(), max,
                       "every one is being answered: a new one refused with 503");
    auto s = std::make_shared<HttpSession>(std::move(sock));
    s->reply = net::http_busy_response();
    asio::async_write(s->sock, asio::buffer(s->reply),
                      [s](const boost::system::error_code&, size_t) { s->close(); });
    return;
  }
  auto s = std::make_shared<HttpSession>(std::move(sock));
  sessions_.push_back(s);
  serve(std::move(s));
}

void HttpEndpoint::serve(std::shared_ptr<HttpSession> s) {
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
        s->reply = http_response(s->request, health_());
        asio::async_write(s->sock, asio::buffer(s->reply),
                          [s](const boost::system::error_code&, size_t) { s->close(); });
      });
}

void HttpEndpoint::close() {
  boost::system::error_code ignored;
  if (acceptor_) acceptor_->close(ignored);
  acceptor_.reset();
}

void HttpEndpoint::stop() {
  stopping_ = true;
  boost::system::error_code ignored;
  if (acceptor_) acceptor_->close(ignored);
  retry_.cancel();
}

HealthInput::Connections HttpEndpoint::connections() const {
  return {open_count(), static_cast<uint64_t>(cfg_.daemon.max_http_connections), refused_};
}

}  // namespace wfod::daemon::loop
