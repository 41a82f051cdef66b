// A Prometheus-style histogram of durations in seconds with fixed bucket bounds: what
// /metrics reports as wfod_optimisation_duration_seconds. Plain counts, no locking: the
// daemon's loop thread observes and reads it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace wfod::daemon {

class DurationHistogram {
 public:
  // Upper bounds (le) in seconds, 1-2.5-5 steps from 1 ms to 500 s: an incremental stream's
  // advance takes milliseconds, a full sweep of a large grid minutes. +Inf is implied.
  static constexpr std::array<double, 18> kBounds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                  0.1,   0.25,   0.5,   1,    2.5,   5,
                                                  10,    25,     50,    100,  250,   500};

  // A duration; negative ones count as 0, NaN is ignored.
  void observe(double seconds);

  // Observations <= kBounds[i] (cumulative, as `_bucket{le=...}` reports them).
  uint64_t cumulative(size_t i) const;
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::array<uint64_t, kBounds.size()> in_bucket_{};  // per bucket, not cumulative
  uint64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace wfod::daemon
