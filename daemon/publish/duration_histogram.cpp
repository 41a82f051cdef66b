// DurationHistogram: fixed-bound bucket counts, sum and count of observed durations.
#include "wfod/daemon/publish/duration_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace wfod::daemon {

void DurationHistogram::observe(double seconds) {
  if (std::isnan(seconds)) return;
  seconds = std::max(seconds, 0.0);
  // The first bound >= seconds: a value equal to a bound falls in that bound's bucket (le).
  const auto it = std::lower_bound(kBounds.begin(), kBounds.end(), seconds);
  if (it != kBounds.end()) ++in_bucket_[static_cast<size_t>(it - kBounds.begin())];
  ++count_;
  sum_ += seconds;
}

uint64_t DurationHistogram::cumulative(size_t i) const {
  uint64_t n = 0;
  for (size_t b = 0; b <= i && b < in_bucket_.size(); ++b) n += in_bucket_[b];
  return n;
}

}  // namespace wfod::daemon
