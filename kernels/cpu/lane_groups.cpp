// Lane groups of a list of combo ids, and the time chunks of an evaluation.
#include "lane_groups.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wfod::cpu {

IdGroups group_ids(const Grid& grid, std::span<const uint64_t> ids) {
  IdGroups out;
  Group open[kKindCount];
  std::vector<size_t> open_slots[kKindCount];
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= grid.size())
      throw std::invalid_argument("combo id " + std::to_string(ids[i]) + " is outside the grid");
    const Combo c = grid.decode(ids[i]);
    if (!c.valid())
      throw std::invalid_argument("combo id " + std::to_string(ids[i]) + " is invalid");
    Group& g = open[kind_of(c)];
    g.kind = kind_of(c);
    g.ids[g.lanes++] = ids[i];
    open_slots[g.kind].push_back(i);
    if (g.lanes == kLanes) {
      out.groups.push_back(g);
      out.slot_of.insert(out.slot_of.end(), open_slots[g.kind].begin(), open_slots[g.kind].end());
      open_slots[g.kind].clear();
      g.lanes = 0;
    }
  }
  for (int k = 0; k < kKindCount; ++k)
    if (open[k].lanes) {
      out.groups.push_back(open[k]);
      out.slot_of.insert(out.slot_of.end(), open_slots[k].begin(), open_slots[k].end());
    }
  out.group_base.assign(out.groups.size() + 1, 0);
  for (size_t g = 0; g < out.groups.size(); ++g)
    out.group_base[g + 1] = out.group_base[g] + static_cast<size_t>(out.groups[g].lanes);
  return out;
}

size_t time_chunks(size_t groups, int threads, size_t bars) {
  constexpr size_t kMinChunkBars = 2048;
  const size_t workers = static_cast<size_t>(threads);
  if (groups == 0 || groups >= workers * 4 || bars < 2 * kMinChunkBars) return 1;
  const size_t want = (workers * 4 + groups - 1) / groups;
  return std::clamp<size_t>(want, 1, bars / kMinChunkBars);
}

}  // namespace wfod::cpu
