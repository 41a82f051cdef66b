// The cpu backend's lane groups: combos of one kernel instantiation (their kind,
// src/lane_kinds.hpp) packed kLanes at a time, and how an evaluation of few groups splits
// its window into time chunks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lane_kernel.hpp"
#include "wfod/grid.hpp"

namespace wfod::cpu {

// Combos sharing a kernel instantiation (their kind, lane_kinds.hpp) go in the same group.
struct Group {
  uint64_t ids[kLanes];
  int lanes = 0;
  int kind = 0;
};

// Lane groups of the listed combos, by kind in the order given (Backend::evaluate's
// grouping: its time chunks depend on the number of groups). slot_of[group_base[g] + lane]
// is the position in `ids` of each group lane. Throws std::invalid_argument on an id outside
// the grid or of an invalid combo.
struct IdGroups {
  std::vector<Group> groups;
  std::vector<size_t> slot_of, group_base;
};
IdGroups group_ids(const Grid& grid, std::span<const uint64_t> ids);

// Time chunks an evaluation of `groups` lane groups splits a window of `bars` into: several
// when the groups are too few to give every thread work and the window is long (their
// Summaries are joined left to right with combine()).
size_t time_chunks(size_t groups, int threads, size_t bars);

}  // namespace wfod::cpu
