// A progress bar on stderr for long sweeps and walks: drawn only when stderr is a terminal
// and the work has run for about a second; redraws throttled; the line cleared at the end.

#include "progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace wfod::cli {

namespace {
constexpr auto kShowAfter = std::chrono::seconds(1);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;
}  // namespace

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), enabled_(isatty(2) == 1), start_(Clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

std::function<void(double)> ProgressBar::callback() {
  if (!enabled_) return {};
  return [this](double fraction) { update(fraction); };
}

void ProgressBar::update(double fraction) {
  if (!enabled_) return;
  // A busy redraw elsewhere means this update would be throttled anyway.
  std::unique_lock lock(mu_, std::try_to_lock);
  if (!lock.owns_lock() || finished_) return;
  auto now = Clock::now();
  if (now - start_ < kShowAfter) return;
  if (drawn_ && now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  drawn_ = true;
  double f = std::clamp(fraction, 0.0, 1.0);
  int filled = static_cast<int>(f * kBarWidth);
  double elapsed = std::chrono::duration<double>(now - start_).count();
  char eta[48] = "";
  if (f > 0.01) std::snprintf(eta, sizeof eta, ", ~%.0f s left", elapsed * (1 - f) / f);
  std::fprintf(stderr, "\r%s [%s%s] %3.0f%%  %.1f s%s\x1b[K", label_.c_str(),
               std::string(filled, '#').c_str(), std::string(kBarWidth - filled, '.').c_str(),
               f * 100, elapsed, eta);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  std::lock_guard lock(mu_);
  finished_ = true;
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace wfod::cli
