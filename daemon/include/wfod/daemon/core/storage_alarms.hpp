// The state directory's problems besides the bar logs' own (BarStore::healthy): the
// directory removed, replaced or unwritable (StateDirWatch), and failed writes of the files
// the daemon rewrites (publication sequence numbers, live state, checkpoints). Health is
// degraded while one is raised; each is logged when it is raised and when it clears, and
// repeats in between share one rate limit with the other storage lines (a publication
// withheld on every run must not write 40 lines a second). Thread-safe: the live-state
// writer and the worker report from their own threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "wfod/feeds/bar_validator.hpp"

namespace wfod::daemon {

class StorageAlarms {
 public:
  using Clock = std::chrono::steady_clock;
  // log, and when it does, how many storage lines were not logged since the last one.
  using Decision = feeds::RejectLogLimiter::Decision;

  StorageAlarms(uint32_t max_lines_per_interval, Clock::duration interval)
      : limiter_(max_lines_per_interval, interval) {}

  // `what` ("state_dir", "publications.seq", ...) fails with `message` (which names the
  // file or directory). Its first failure is always logged; repeats (the same or a new
  // message) when the rate limit allows.
  Decision raise(std::string_view what, std::string message, Clock::time_point now = Clock::now());
  // `what` works again: true when it was raised (log that it recovered).
  bool clear(std::string_view what);
  // Whether a storage line that raises nothing (a publication withheld, a bar log still
  // failing) may be logged now: the shared rate limit.
  Decision may_log(Clock::time_point now = Clock::now());

  // The message of the problem raised first among those still raised; nullopt: none.
  std::optional<std::string> problem() const;
  // The message of `what` while it is raised.
  std::optional<std::string> message(std::string_view what) const;
  bool raised(std::string_view what) const { return message(what).has_value(); }
  // Lines not logged since the last one that was (for a final count at shutdown).
  uint64_t pending_suppressed() const;

 private:
  struct Alarm {
    std::string message;
    uint64_t order = 0;  // when it was raised, among the alarms
  };
  mutable std::mutex mutex_;
  feeds::RejectLogLimiter limiter_;
  std::map<std::string, Alarm, std::less<>> alarms_;
  uint64_t raised_ = 0;
};

// The tail of a storage log line that follows a rate-limited pause: " not_logged=N" (storage
// lines left out since the last one logged), "" when none were.
std::string not_logged_note(uint64_t suppressed);

}  // namespace wfod::daemon
