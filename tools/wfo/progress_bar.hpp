// A progress bar on stderr for long sweeps and walks: drawn only when stderr is a terminal
// and the work has run for about a second; redraws throttled; the line cleared at the end.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

namespace wfod::cli {

class ProgressBar {
 public:
  // Enabled iff stderr is a TTY (stdout, e.g. piped JSON, is never touched).
  explicit ProgressBar(std::string label);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  bool enabled() const { return enabled_; }
  // Fraction done in [0, 1]; safe to call from several threads.
  void update(double fraction);
  // Clears the line if anything was drawn. Idempotent.
  void finish();
  // A callback for SweepRequest::progress / walk_forward, or empty when disabled.
  std::function<void(double)> callback();

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  bool enabled_ = false;
  std::mutex mu_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
  bool finished_ = false;
};

}  // namespace wfod::cli
