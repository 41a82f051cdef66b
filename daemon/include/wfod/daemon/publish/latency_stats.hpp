// Where a bar's time goes inside the daemon, from the loop waking with it to the publication
// leaving (the end-to-end budget of docs/operations.md): the last N samples of each stage, reported
// as percentiles by `["health"]` (`latency_ms`) so an operator sees a slow stage, not just a slow
// total.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

namespace wfod::daemon {

// Milliseconds from a to b, as every latency figure is given.
inline double ms_between(std::chrono::steady_clock::time_point a,
                         std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The stages of one publication, in order; their sum is bar_to_send.
enum class LatencyStage : size_t {
  ingest,   // the loop woke with the bar -> the job was queued (decode, log append)
  handoff,  // queued -> the worker started it
  job,      // the worker's run (stream advance, selection, live_oos)
  result,   // the worker finished -> the loop took the result
  publish,  // the loop took the result -> the publication was sent (JSON, sync wait, send)
  bar_to_send,
  count
};

// A fixed ring of the latest samples per stage; percentiles by sorting a copy on request.
class LatencyStats {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LatencyStats(size_t window = 4096);

  // The timestamps of one publication, in stage order.
  struct Marks {
    Clock::time_point received, queued, started, finished, taken, sent;
  };
  void record(const Marks& m);
  size_t samples() const { return filled_; }
  // Rank percentile (nearest rank) of a stage over the window, in ms; 0 when empty.
  double percentile_ms(LatencyStage, double q) const;
  double max_ms(LatencyStage) const;
  // {"samples": n, "bar_to_send": {"p50":, "p99":, "max":}, "ingest": {...}, ...}
  nlohmann::ordered_json json() const;

 private:
  static constexpr size_t kStages = static_cast<size_t>(LatencyStage::count);
  size_t window_, next_ = 0, filled_ = 0;
  std::array<std::vector<double>, kStages> ms_;
};

const char* to_string(LatencyStage);

}  // namespace wfod::daemon
