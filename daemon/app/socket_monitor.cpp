// SocketMonitor: zmq_socket_monitor's inproc PAIR, decoded (libzmq 4.x format: frame 1 is a
// 16-bit event and a 32-bit value in host byte order, frame 2 the endpoint) on the loop.
#include "socket_monitor.hpp"

#include <zmq.h>

#include <atomic>
#include <cstring>
#include <iterator>
#include <vector>
#include <zmq_addon.hpp>

namespace wfod::daemon {
namespace {
std::atomic<uint64_t> next_monitor{0};
}  // namespace

SocketMonitor::SocketMonitor(boost::asio::io_context& io, zmq::context_t& ctx,
                             zmq::socket_t& target, int events, Handler on_event)
    : pair_(ctx, zmq::socket_type::pair), fd_(io), on_event_(std::move(on_event)) {
  const std::string endpoint = "inproc://wfod-monitor-" + std::to_string(next_monitor++);
  if (zmq_socket_monitor(target.handle(), endpoint.c_str(), events) != 0) throw zmq::error_t();
  pair_.set(zmq::sockopt::linger, 0);
  pair_.connect(endpoint);
  fd_.assign(pair_.get(zmq::sockopt::fd));
}

SocketMonitor::~SocketMonitor() {
  // The descriptor is ZeroMQ's: released, never closed.
  if (fd_.is_open()) fd_.release();
}

void SocketMonitor::arm() {
  if (stopped_) return;
  // ZMQ_FD signals changes only: events queued before the first wait (or while the PAIR's
  // pipe still counted as readable) would never wake it. Read them first.
  drain();
  fd_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                 [this](const boost::system::error_code& ec) {
                   if (ec || stopped_) return;
                   arm();
                 });
}

void SocketMonitor::drain() {
  std::vector<zmq::message_t> parts;
  try {
    // ZMQ_FD is edge-triggered: read until ZMQ_EVENTS says nothing is left.
    while ((pair_.get(zmq::sockopt::events) & ZMQ_POLLIN) != 0) {
      parts.clear();
      if (!zmq::recv_multipart(pair_, std::back_inserter(parts), zmq::recv_flags::dontwait)) break;
      if (parts.size() != 2 || parts[0].size() != 6) continue;
      SocketEvent e;
      std::memcpy(&e.event, parts[0].data(), sizeof e.event);
      std::memcpy(&e.value, static_cast<const char*>(parts[0].data()) + 2, sizeof e.value);
      e.endpoint = parts[1].to_string();
      on_event_(e);
    }
  } catch (const zmq::error_t&) {
    // The context is terminating: no more events.
  }
}

void SocketMonitor::cancel() {
  stopped_ = true;
  boost::system::error_code ignored;
  fd_.cancel(ignored);
}

}  // namespace wfod::daemon
