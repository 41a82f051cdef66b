// A ZeroMQ socket the loop watches through its ZMQ_FD (feeds, PUB, snapshot ROUTER, ZAP).
#pragma once

// <utility> first: Boost.Asio's awaitable.hpp uses std::exchange without including it.
// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on

#include <memory>
#include <string>
#include <zmq.hpp>

#include "socket_monitor.hpp"
#include "wfod/daemon/core/feed_link.hpp"
#include "wfod/feeds/bar_codec.hpp"

namespace wfod::daemon::loop {

namespace asio = boost::asio;

// A ZeroMQ socket watched by the loop through its ZMQ_FD. The descriptor belongs to
// ZeroMQ: release it (never close it) before the socket goes.
struct WatchedSocket {
  WatchedSocket(asio::io_context& io, zmq::context_t& ctx, zmq::socket_type type)
      : sock(ctx, type), fd(io) {}
  ~WatchedSocket() {
    if (fd.is_open()) fd.release();
  }
  void watch() { fd.assign(sock.get(zmq::sockopt::fd)); }
  bool readable() { return (sock.get(zmq::sockopt::events) & ZMQ_POLLIN) != 0; }

  zmq::socket_t sock;
  asio::posix::stream_descriptor fd;
  std::string endpoint;
  feeds::PayloadFormat format = feeds::PayloadFormat::json;
  // Feeds only: the session's state from the socket's monitor (after `sock`: destroyed
  // before it).
  FeedLink link;
  std::unique_ptr<SocketMonitor> monitor;
};

}  // namespace wfod::daemon::loop
