// One feed socket's link to its publisher, kept from libzmq's monitor events on the loop:
// connected or not, when its last message came, how many sessions ended (disconnects), and
// the case libzmq does not recover from: a connecting socket whose session ends on a protocol
// error (a frame over ZMQ_MAXMSGSIZE, a malformed greeting) is not reconnected by libzmq 4.3,
// and the feed would stay deaf until a restart. A session that ends without libzmq starting a
// reconnect within the current backoff is due for a re-connect by the daemon (disconnect and
// connect the endpoint again); each such re-connect doubles the backoff (1 s up to 30 s), and
// a message received resets it. Pure: the loop feeds it events and the clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace wfod::daemon {

class FeedLink {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr Clock::duration kFirstBackoff = std::chrono::seconds(1);
  static constexpr Clock::duration kMaxBackoff = std::chrono::seconds(30);

  // ZMQ_EVENT_CONNECTED: a session to the publisher is up.
  void connected();
  // ZMQ_EVENT_CONNECT_DELAYED / CONNECT_RETRIED: libzmq is (re)connecting by itself.
  void connecting();
  // ZMQ_EVENT_DISCONNECTED: the session ended (counted).
  void disconnected(Clock::time_point now);
  // A message arrived on the socket.
  void message(Clock::time_point now);

  // When the daemon must look again (a session ended and libzmq has not said it reconnects);
  // nullopt: nothing pending.
  std::optional<Clock::time_point> check_at() const { return check_at_; }
  // True when the daemon must disconnect and connect the endpoint now (counted in
  // reconnects()); the next check, should that one not come up either, waits twice as long.
  bool reconnect_due(Clock::time_point now);

  bool is_connected() const { return connected_; }
  uint64_t disconnects() const { return disconnects_; }
  uint64_t reconnects() const { return reconnects_; }
  Clock::duration backoff() const { return backoff_; }
  // Seconds since the last message; nullopt before the first one.
  std::optional<double> last_message_age_s(Clock::time_point now) const;

 private:
  bool connected_ = false;
  uint64_t disconnects_ = 0;
  uint64_t reconnects_ = 0;
  Clock::duration backoff_ = kFirstBackoff;
  std::optional<Clock::time_point> check_at_;
  std::optional<Clock::time_point> last_message_;
};

}  // namespace wfod::daemon
