// libzmq's socket monitor read on the event loop: zmq_socket_monitor() publishes a socket's
// connection events (accepted, connected, disconnected, ...) on an inproc PAIR endpoint; a
// PAIR socket connected to it is watched through its ZMQ_FD like the daemon's other sockets,
// and each event is handed to a callback. The snapshot socket's connections are counted this
// way (the cap), and each feed's session is followed (FeedLink).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <zmq.hpp>

namespace wfod::daemon {

struct SocketEvent {
  uint16_t event = 0;  // one ZMQ_EVENT_* bit
  uint32_t value = 0;  // the connection's fd, an errno or an interval, per event
  std::string endpoint;
};

class SocketMonitor {
 public:
  using Handler = std::function<void(const SocketEvent&)>;
  // Starts monitoring `target` for `events` (a ZMQ_EVENT_* mask). Call it before `target`
  // binds or connects, or the first events are missed. Throws zmq::error_t.
  SocketMonitor(boost::asio::io_context& io, zmq::context_t& ctx, zmq::socket_t& target, int events,
                Handler on_event);
  ~SocketMonitor();
  SocketMonitor(const SocketMonitor&) = delete;
  SocketMonitor& operator=(const SocketMonitor&) = delete;

  // Waits for events on the loop, handing each to the handler, until cancel().
  void arm();
  // Hands every event queued now to the handler, without waiting (a ZAP decision reads the
  // connection count first).
  void drain();
  void cancel();

 private:
  zmq::socket_t pair_;
  boost::asio::posix::stream_descriptor fd_;
  Handler on_event_;
  bool stopped_ = false;
};

}  // namespace wfod::daemon
