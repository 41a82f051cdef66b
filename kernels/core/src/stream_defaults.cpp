// The defaults for what only some streams and backends do (bar and window queries from the
// stream's own state, trackers, checkpoints, restoring one): wfod::Unsupported saying so,
// which callers answer by going through the backend and the history instead (or by
// replaying, for a checkpoint); the capability query's default, which refuses nothing; the
// size queries' defaults (stream_memory, sweep_memory); and the refusal of stops by the
// backends that do not run them yet (cuda).
#include <algorithm>
#include <string>

#include "src/rolling_indicators.hpp"
#include "wfod/backend.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod {
namespace {

[[noreturn]] void unsupported(const char* what) {
  throw Unsupported(std::string(what) + " is not supported by this stream");
}

}  // namespace

std::vector<int8_t> Stream::positions(const Combo&, size_t, size_t) const {
  unsupported("positions()");
}
std::vector<double> Stream::returns(const Combo&, size_t, size_t) const {
  unsupported("returns()");
}
PositionTracker Stream::tracker(const Combo&, size_t) const { unsupported("tracker()"); }
std::vector<Metrics> Stream::evaluate(std::span<const uint64_t>) const {
  unsupported("evaluate()");
}
std::vector<Summary> Stream::block_summaries(std::span<const size_t>) const {
  unsupported("block_summaries()");
}
std::vector<uint8_t> Stream::checkpoint() const { unsupported("checkpoint()"); }

std::unique_ptr<Stream> Backend::restore_stream(const StreamSpec&, std::span<const uint8_t>) {
  throw Unsupported("the " + std::string(name()) + " backend restores no streams");
}

Support Backend::supports(Work, const StrategySpec&) const { return Support::yes(); }

Support stops_support(std::string_view backend, const StrategySpec& strategy) {
  if (!strategy.grid.has_stops()) return Support::yes();
  return Support::no("the " + std::string(backend) +
                     " backend does not run stops yet (SPEC §5b); use backend cpu (or auto, "
                     "which runs them on cpu)");
}

namespace detail {
double series_rows(const Grid& grid) {
  if (grid.family != Family::rules || !grid.program)
    return static_cast<double>(detail::RollingIndicators(grid).row_count());
  auto values = [&grid](const rules::Arg& a) {
    return a.is_param && a.param < grid.rule_axes.size()
               ? static_cast<double>(grid.rule_axes[a.param].size())
               : 1.0;
  };
  double rows = static_cast<double>(grid.vol_short.size() + grid.vol_long.size());
  for (const rules::Indicator& i : grid.program->indicators)
    if (i.used) rows += values(i.period) * (i.width ? values(*i.width) : 1.0);
  return rows;
}
}  // namespace detail

// open_sweep_stream's own memory: one window's bars and indicator values per distinct series
// while a sweep runs, and its ranking (top-K); the bars from the anchor it keeps are the
// caller's to count (they grow with uptime: the daemon keeps such a stream's history anyway).
StreamMemory Backend::stream_memory(const StreamSpec& spec) const {
  const double bars = static_cast<double>(spec.window) + static_cast<double>(spec.warmup) + 1;
  const double rows = detail::series_rows(spec.strategy.grid);
  StreamMemory m;
  m.host_bytes = static_cast<uint64_t>(bars * (7 + rows) * sizeof(double) +
                                       static_cast<double>(spec.rank.top) * 512);
  return m;
}

// A sweep's own memory where the backend says nothing finer (cpu_ref): the indicator series
// it caches between combos, over the bars up to the window's end, within the request's budget
// (least recently used dropped first, between combos); beside them one combo's own series
// (built before the cache is trimmed back: at most 3, and 2 for the vol filter) twice over
// with its positions and segments, and the ranking (top-K).
SweepMemory Backend::sweep_memory(const SweepRequest& req) const {
  const Grid& grid = req.strategy.grid;
  const double row = static_cast<double>(req.window.end) * sizeof(double);
  const double budget =
      static_cast<double>(req.memory_budget ? req.memory_budget : kDefaultMemoryBudget);
  const double own = 2 * (3 + (grid.has_vol_filter() ? 2 : 0)) + 2;
  SweepMemory m;
  m.host_bytes = static_cast<uint64_t>(std::min(budget, detail::series_rows(grid) * row) +
                                       own * row + static_cast<double>(req.rank.top) * 512);
  return m;
}

}  // namespace wfod
