// A daemon's snapshot socket (PROTOCOL §3) asked without ever blocking or getting stuck; the
// C++ twin of clients/python/wfod_client/requester.py.
//
// A ZeroMQ REQ socket whose peer died never gets its reply and refuses to send again, so each
// request has a deadline: past it the socket is closed (linger 0) and a fresh one made (the
// zguide's "lazy pirate"), and the caller hears nullopt. One request is in flight at a time;
// the others wait in order.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <zmq.hpp>

namespace wfod::client {

using Clock = std::chrono::steady_clock;
// A reply (a JSON object), or nullopt: no reply in time, or not a JSON object.
using ReplyHandler = std::function<void(std::optional<nlohmann::json>)>;

class Requester {
 public:
  Requester(zmq::context_t& context, std::string endpoint, Clock::duration timeout)
      : context_(&context), endpoint_(std::move(endpoint)), timeout_(timeout) {}

  const std::string& endpoint() const { return endpoint_; }
  // Requests that got no reply in time (the socket was remade each time).
  uint64_t timeouts() const { return timeouts_; }

  // The socket to poll for a reply; nullptr while nothing is in flight.
  zmq::socket_t* socket() { return in_flight_ ? socket_.get() : nullptr; }

  // A request is in flight or queued.
  bool busy() const { return in_flight_.has_value() || !queue_.empty(); }

  // Queues a request (e.g. {"get", "BTCUSD", "trend"}); sent when its turn comes.
  void submit(std::vector<std::string> frames, ReplyHandler on_reply) {
    queue_.emplace_back(std::move(frames), std::move(on_reply));
    send_next();
  }

  // Takes the reply of the request in flight and hands it to its handler.
  void on_readable() {
    if (!socket_ || !in_flight_) return;
    std::string body;
    zmq::message_t part;
    bool more = true;
    while (more) {
      if (!socket_->recv(part, zmq::recv_flags::dontwait)) {
        if (body.empty()) return;  // not readable after all
        break;
      }
      body.append(part.data<char>(), part.size());
      more = part.more();
    }
    ReplyHandler handler = std::move(in_flight_->first);
    in_flight_.reset();
    std::optional<nlohmann::json> reply;
    nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) reply = std::move(parsed);
    send_next();
    handler(std::move(reply));
  }

  // Past the deadline: a fresh socket, the handler told nullopt, the next one sent.
  void check_deadline(Clock::time_point now) {
    if (!in_flight_ || now < in_flight_->second) return;
    ReplyHandler handler = std::move(in_flight_->first);
    in_flight_.reset();
    ++timeouts_;
    socket_.reset();
    send_next();
    handler(std::nullopt);
  }

  // Closes the socket; queued requests are dropped unanswered.
  void close() {
    queue_.clear();
    in_flight_.reset();
    socket_.reset();
  }

 private:
  void send_next() {
    if (in_flight_ || queue_.empty()) return;
    if (!socket_) {
      socket_ = std::make_unique<zmq::socket_t>(*context_, zmq::socket_type::req);
      socket_->set(zmq::sockopt::linger, 0);
      socket_->connect(endpoint_);
    }
    auto [frames, handler] = std::move(queue_.front());
    queue_.pop_front();
    Clock::time_point deadline = Clock::now() + timeout_;
    // connect() made the pipe (ZMQ_IMMEDIATE off): the request queues even before the peer
    // is up, and the deadline covers a peer that never comes.
    for (size_t i = 0; i < frames.size(); ++i) {
      const auto flags = i + 1 < frames.size()
                             ? zmq::send_flags::sndmore | zmq::send_flags::dontwait
                             : zmq::send_flags::dontwait;
      if (!socket_->send(zmq::buffer(frames[i]), flags)) {
        deadline = Clock::time_point::min();  // answered nullopt by the next check_deadline
        break;
      }
    }
    in_flight_.emplace(std::move(handler), deadline);
  }

  zmq::context_t* context_;
  std::string endpoint_;
  Clock::duration timeout_;
  std::unique_ptr<zmq::socket_t> socket_;  // closed with linger 0 when it is reset
  std::optional<std::pair<ReplyHandler, Clock::time_point>> in_flight_;
  std::deque<std::pair<std::vector<std::string>, ReplyHandler>> queue_;
  uint64_t timeouts_ = 0;
};

}  // namespace wfod::client
