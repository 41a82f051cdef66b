// StorageAlarms: the raised storage problems and the rate limit their log lines share.
#include "wfod/daemon/core/storage_alarms.hpp"

namespace wfod::daemon {

StorageAlarms::Decision StorageAlarms::raise(std::string_view what, std::string message,
                                             Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = alarms_.find(what);
  if (it == alarms_.end()) {
    // A new problem is always said, even inside a burst of another one's repeats: there are
    // only a few kinds, so this stays bounded.
    alarms_.emplace(std::string(what), Alarm{std::move(message), ++raised_});
    return {true, 0};
  }
  it->second.message = std::move(message);
  return limiter_.on_reject(now);
}

bool StorageAlarms::clear(std::string_view what) {
  std::lock_guard lock(mutex_);
  const auto it = alarms_.find(what);
  if (it == alarms_.end()) return false;
  alarms_.erase(it);
  return true;
}

StorageAlarms::Decision StorageAlarms::may_log(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  return limiter_.on_reject(now);
}

std::optional<std::string> StorageAlarms::problem() const {
  std::lock_guard lock(mutex_);
  const Alarm* oldest = nullptr;
  for (const auto& [what, a] : alarms_) {
    if (!oldest || a.order < oldest->order) oldest = &a;
  }
  if (!oldest) return std::nullopt;
  return oldest->message;
}

std::optional<std::string> StorageAlarms::message(std::string_view what) const {
  std::lock_guard lock(mutex_);
  const auto it = alarms_.find(what);
  if (it == alarms_.end()) return std::nullopt;
  return it->second.message;
}

uint64_t StorageAlarms::pending_suppressed() const {
  std::lock_guard lock(mutex_);
  return limiter_.pending_suppressed();
}

std::string not_logged_note(uint64_t suppressed) {
  return suppressed == 0 ? std::string() : " not_logged=" + std::to_string(suppressed);
}

}  // namespace wfod::daemon
