// block_summaries on the cpu backend: valid combos grouped by kernel kind into lanes, every
// (group, block) pair one work item for run_lanes, which summarises any bar range exactly
// (positions are found by scanning back, so a block needs no replay from the anchor).
// Lane setup (kinds, groups, lane inputs) comes from lane_setup.hpp, shared with sweeps.
#include "cpu/cpu_blocks.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include "cpu/indicator_cache.hpp"
#include "cpu/lane_kernel.hpp"
#include "cpu/lane_setup.hpp"
#include "cpu/thread_count.hpp"
#include "src/huge_pages.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"

namespace wfod::cpu {
namespace {

std::vector<Group> group_valid_combos(const Grid& grid) {
  std::vector<Group> groups;
  Group open[6];
  for (uint64_t id = 0; id < grid.size(); ++id) {
    const Combo c = grid.decode(id);
    if (!c.valid()) continue;
    Group& g = open[kind_of(c)];
    g.kind = kind_of(c);
    g.ids[g.lanes++] = id;
    if (g.lanes == kLanes) {
      groups.push_back(g);
      g.lanes = 0;
    }
  }
  for (auto& g : open)
    if (g.lanes) groups.push_back(g);
  return groups;
}

}  // namespace

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
  const BarTables tables{gap.data(), body.data(), h.close.data(), req.strategy.costs.per_unit()};
  auto edge = [&](size_t b) {
    return b == 0 ? req.window.first() : b == blocks ? req.window.end : cuts[b - 1];
  };

  // Work items are (group, block) pairs; each writes only its own lanes' slots of `out`.
  const size_t items = groups.size() * blocks;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    LaneInput in[kLanes];
    Summary lane_out[kLanes];
    size_t loaded = groups.size();  // group whose lane inputs are in `in`
    for (size_t item; (item = next.fetch_add(1)) < items;) {
      const size_t gi = item / blocks, b = item % blocks;
      const Group& g = groups[gi];
      if (loaded != gi) {
        for (int j = 0; j < g.lanes; ++j) in[j] = lane_input(cache, grid.decode(g.ids[j]));
        loaded = gi;
      }
      run_lanes(family_of_kind(g.kind), cross_of_kind(g.kind), vol_of_kind(g.kind), tables,
                cache.matrix(), in, g.lanes, edge(b), edge(b + 1), lane_out);
      for (int j = 0; j < g.lanes; ++j) out[g.ids[j] * blocks + b] = lane_out[j];
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace wfod::cpu
