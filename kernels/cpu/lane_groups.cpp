// Lane groups of combos (LaneGrouper, and the grid's and an id list's groups through it),
// and the time chunks of an evaluation.
#include "lane_groups.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace wfod::cpu {

void LaneGrouper::emit(int key) {
  Group& g = open_[key];
  out_.groups.push_back(g);
  if (track_slots_) {
    std::vector<size_t>& slots = open_slots_[key];
    out_.slot_of.insert(out_.slot_of.end(), slots.begin(), slots.end());
    slots.clear();
  }
  g.lanes = 0;
}

LaneGroups LaneGrouper::finish() {
  for (int k = 0; k < 2 * kKindCount; ++k)
    if (open_[k].lanes) emit(k);
  if (track_slots_) {
    out_.group_base.assign(out_.groups.size() + 1, 0);
    for (size_t g = 0; g < out_.groups.size(); ++g)
      out_.group_base[g + 1] = out_.group_base[g] + static_cast<size_t>(out_.groups[g].lanes);
  }
  return std::exchange(out_, LaneGroups{});
}

std::vector<Group> group_valid_combos(const Grid& grid) {
  LaneGrouper grouper;
  for (uint64_t id = 0; id < grid.size(); ++id) {
    const Combo c = grid.decode(id);
    if (c.valid()) grouper.add(id, c);
  }
  return grouper.finish().groups;
}

LaneGroups group_ids(const Grid& grid, std::span<const uint64_t> ids) {
  LaneGrouper grouper(/*track_slots=*/true);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= grid.size())
      throw std::invalid_argument("combo id " + std::to_string(ids[i]) + " is outside the grid");
    const Combo c = grid.decode(ids[i]);
    if (!c.valid())
      throw std::invalid_argument("combo id " + std::to_string(ids[i]) + " is invalid");
    grouper.add(ids[i], c, i);
  }
  return grouper.finish();
}

size_t time_chunks(size_t groups, int threads, size_t bars) {
  constexpr size_t kMinChunkBars = 2048;
  const size_t workers = static_cast<size_t>(threads);
  if (groups == 0 || groups >= workers * 4 || bars < 2 * kMinChunkBars) return 1;
  const size_t want = (workers * 4 + groups - 1) / groups;
  return std::clamp<size_t>(want, 1, bars / kMinChunkBars);
}

}  // namespace wfod::cpu
