// FeedLink: a feed's connection state from its socket's monitor events, and when a session
// that libzmq gave up on must be connected again.
#include "wfod/daemon/core/feed_link.hpp"

#include <algorithm>

namespace wfod::daemon {

void FeedLink::connected() {
  connected_ = true;
  check_at_.reset();
}

void FeedLink::connecting() {
  // libzmq's own reconnect timer runs (reconnect_ivl): nothing for the daemon to do.
  check_at_.reset();
}

void FeedLink::disconnected(Clock::time_point now) {
  connected_ = false;
  ++disconnects_;
  // An ordinary drop is followed at once by CONNECT_RETRIED, which clears this.
  check_at_ = now + backoff_;
}

void FeedLink::message(Clock::time_point now) {
  last_message_ = now;
  backoff_ = kFirstBackoff;  // the publisher is heard: a later failure starts over
}

bool FeedLink::reconnect_due(Clock::time_point now) {
  if (!check_at_ || now < *check_at_) return false;
  ++reconnects_;
  backoff_ = std::min<Clock::duration>(backoff_ * 2, kMaxBackoff);
  // Checked again should the re-connect itself not report (a connect that never starts).
  check_at_ = now + backoff_;
  return true;
}

std::optional<double> FeedLink::last_message_age_s(Clock::time_point now) const {
  if (!last_message_) return std::nullopt;
  return std::chrono::duration<double>(now - *last_message_).count();
}

}  // namespace wfod::daemon
