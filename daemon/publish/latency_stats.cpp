// LatencyStats: per-stage rings of the latest publications' timings and their percentiles.
#include "wfod/daemon/publish/latency_stats.hpp"

#include <algorithm>
#include <cmath>

namespace wfod::daemon {

const char* to_string(LatencyStage s) {
  switch (s) {
    case LatencyStage::ingest:
      return "ingest";
    case LatencyStage::handoff:
      return "handoff";
    case LatencyStage::job:
      return "job";
    case LatencyStage::result:
      return "result";
    case LatencyStage::publish:
      return "publish";
    case LatencyStage::bar_to_send:
      return "bar_to_send";
    case LatencyStage::count:
      break;
  }
  return "?";
}

LatencyStats::LatencyStats(size_t window) : window_(std::max<size_t>(window, 1)) {
  for (auto& ring : ms_) ring.assign(window_, 0.0);
}

void LatencyStats::record(const Marks& m) {
  const double values[kStages] = {
      ms_between(m.received, m.queued),  ms_between(m.queued, m.started),
      ms_between(m.started, m.finished), ms_between(m.finished, m.taken),
      ms_between(m.taken, m.sent),       ms_between(m.received, m.sent)};
  for (size_t s = 0; s < kStages; ++s) ms_[s][next_] = values[s];
  next_ = (next_ + 1) % window_;
  filled_ = std::min(filled_ + 1, window_);
}

double LatencyStats::percentile_ms(LatencyStage stage, double q) const {
  if (filled_ == 0) return 0;
  std::vector<double> v(ms_[static_cast<size_t>(stage)].begin(),
                        ms_[static_cast<size_t>(stage)].begin() + static_cast<ptrdiff_t>(filled_));
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(filled_)));
  const size_t i = std::min(rank == 0 ? 0 : rank - 1, filled_ - 1);
  std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(i), v.end());
  return v[i];
}

double LatencyStats::max_ms(LatencyStage stage) const {
  const auto& ring = ms_[static_cast<size_t>(stage)];
  return filled_ == 0
             ? 0
             : *std::max_element(ring.begin(), ring.begin() + static_cast<ptrdiff_t>(filled_));
}

nlohmann::ordered_json LatencyStats::json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["samples"] = filled_;
  for (size_t s = 0; s < kStages; ++s) {
    const auto stage = static_cast<LatencyStage>(s);
    j[to_string(stage)] = {{"p50", percentile_ms(stage, 0.5)},
                           {"p99", percentile_ms(stage, 0.99)},
                           {"max", max_ms(stage)}};
  }
  return j;
}

}  // namespace wfod::daemon
