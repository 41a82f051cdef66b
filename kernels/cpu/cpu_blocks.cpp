// block_summaries on the cpu backend: valid combos grouped by kernel kind into lanes, a
// group's run of consecutive blocks one work item for run_lanes, which summarises any bar
// range exactly (positions, and the stops' state, are found by scanning back, so a run needs
// no replay from the anchor).
// Lane groups come from lane_groups.hpp and lane inputs from lane_setup.hpp, both shared
// with sweeps.
#include "cpu_blocks.hpp"

#include <algorithm>
#include <atomic>

#include "lane_groups.hpp"
#include "lane_kernel.hpp"
#include "src/huge_pages.hpp"
#include "src/indicator_cache.hpp"
#include "src/lane_setup.hpp"
#include "src/thread_count.hpp"
#include "src/worker_pool.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"

namespace wfod::cpu {
std::vector<Summary> block_summaries(const SweepRequest& req, std::span<const size_t> cuts) {
  check_window(req);
  selection::check_cuts(req, cuts);
  const Grid& grid = req.strategy.grid;
  const size_t blocks = cuts.size() + 1;
  std::vector<Summary> out;  // tens of MB: huge pages spare most first-touch faults
  resize_on_huge_pages(out, grid.size() * blocks);
  const std::vector<Group> groups = group_valid_combos(grid);
  if (groups.empty()) return out;

  const auto& h = req.history;
  const int threads = resolve_threads(req.threads);
  IndicatorCache cache(h, grid, threads);
  std::vector<double> gap, body;
  bar_returns(h, req.strategy.fill, h.size(), gap, body);
  const BarTables tables{gap.data(),
                         body.data(),
                         h.close.data(),
                         req.strategy.costs.per_unit(),
                         0,
                         req.strategy.fill == Fill::next_open ? h.open.data() : nullptr};
  auto edge = [&](size_t b) {
    return b == 0 ? req.window.first() : b == blocks ? req.window.end : cuts[b - 1];
  };

  // Work items are a group's run of consecutive blocks (its lane inputs loaded once): each
  // block's run_lanes starts from the state the previous one ended in (LaneRange), only the
  // run's first block scans back for its positions. Groups split into runs only when there
  // are too few of them to keep every thread busy. Each item writes only its lanes' slots.
  const size_t per_group = std::clamp<size_t>(
      (4 * static_cast<size_t>(threads) + groups.size() - 1) / groups.size(), 1, blocks);
  const size_t items = groups.size() * per_group;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    LaneInput in[kLanes];
    LaneState state[2][kLanes];
    StopState stops[2][kLanes];  // a stop group's stop states beside them
    Summary lane_out[kLanes];
    for (size_t item; (item = next.fetch_add(1)) < items;) {
      const size_t gi = item / per_group, part = item % per_group;
      const size_t b0 = blocks * part / per_group, b1 = blocks * (part + 1) / per_group;
      const Group& g = groups[gi];
      for (int j = 0; j < g.lanes; ++j) in[j] = lane_input(cache, grid.decode(g.ids[j]));
      for (size_t b = b0; b < b1; ++b) {
        const size_t in_state = (b - b0 + 1) % 2, out_state = (b - b0) % 2;
        const LaneState* from = b == b0 ? nullptr : state[in_state];
        const LaneRange range{edge(b),          edge(b),         edge(b + 1),     from,
                              state[out_state], stops[in_state], stops[out_state]};
        run_lanes(g.kind, g.stops, tables, cache.matrix(), in, g.lanes, range, lane_out);
        for (int j = 0; j < g.lanes; ++j) out[g.ids[j] * blocks + b] = lane_out[j];
      }
    }
  };
  wfod::detail::run_workers(threads, [&](int) { worker(); });
  return out;
}

}  // namespace wfod::cpu
