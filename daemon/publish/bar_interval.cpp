// The median interval of a symbol's newest bars (bar_interval.hpp says why it exists).
#include "wfod/daemon/publish/bar_interval.hpp"

#include <algorithm>
#include <vector>

namespace wfod::daemon {

std::optional<double> median_interval_s(std::span<const int64_t> ts_ns) {
  std::vector<int64_t> gaps;
  gaps.reserve(ts_ns.size());
  for (size_t i = 1; i < ts_ns.size(); ++i) {
    // Persisted bars are strictly increasing (SPEC §1); a non-positive gap is not an interval.
    if (ts_ns[i] > ts_ns[i - 1]) gaps.push_back(ts_ns[i] - ts_ns[i - 1]);
  }
  if (gaps.empty()) return std::nullopt;
  const auto mid = gaps.begin() + static_cast<std::ptrdiff_t>((gaps.size() - 1) / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return static_cast<double>(*mid) / 1e9;
}

std::optional<double> recent_bar_interval_s(const SymbolHistory& history) {
  const size_t end = history.size();
  const size_t from = std::max(
      history.base(), end > kBarIntervalSamples + 1 ? end - kBarIntervalSamples - 1 : size_t{0});
  std::vector<int64_t> ts;
  ts.reserve(end - from);
  for (size_t t = from; t < end; ++t) ts.push_back(history.bar(t).ts_ns);
  return median_interval_s(ts);
}

}  // namespace wfod::daemon
