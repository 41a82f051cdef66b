// The cpu backend's lane groups: combos of one kernel instantiation (their kind,
// src/lane_kinds.hpp) packed kLanes at a time by one LaneGrouper, and how an evaluation of
// few groups splits its window into time chunks.
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

// Lane groups and, when the grouper tracked slots, where each lane's combo came from:
// slot_of[group_base[g] + lane] is the slot the lane's combo was added with (both empty
// otherwise).
struct LaneGroups {
  std::vector<Group> groups;
  std::vector<size_t> slot_of, group_base;
};

// The one way combos are packed into lane groups: each combo joins the open group of its
// kind, a group is emitted as soon as it holds kLanes combos, and the partly filled ones at
// finish(), in kind order. The groups depend only on the order the combos are added in, so
// sweeps, evaluate() lists, block summaries and streams lay out their lanes alike.
class LaneGrouper {
 public:
  // With `track_slots`, add() records each combo's slot (say its position in the caller's
  // list of ids) and finish() fills slot_of and group_base.
  explicit LaneGrouper(bool track_slots = false) : track_slots_(track_slots) {}

  void add(uint64_t id, int kind, size_t slot = 0) {
    Group& g = open_[kind];
    g.kind = kind;
    g.ids[g.lanes++] = id;
    if (track_slots_) open_slots_[kind].push_back(slot);
    if (g.lanes == kLanes) emit(kind);
  }
  // The groups of every combo added so far; the grouper starts over empty.
  LaneGroups finish();

 private:
  void emit(int kind);  // moves the open group of `kind` (and its slots) to out_

  Group open_[kKindCount];
  std::vector<size_t> open_slots_[kKindCount];
  LaneGroups out_;
  bool track_slots_;
};

// Every valid combo of the grid, in id order.
std::vector<Group> group_valid_combos(const Grid& grid);

// Lane groups of the listed combos in the order given (Backend::evaluate's grouping: its
// time chunks depend on the number of groups); the slots are the positions in `ids`. Throws
// std::invalid_argument on an id outside the grid or of an invalid combo.
LaneGroups group_ids(const Grid& grid, std::span<const uint64_t> ids);

// Time chunks an evaluation of `groups` lane groups splits a window of `bars` into: several
// when the groups are too few to give every thread work and the window is long (their
// Summaries are joined left to right with combine()).
size_t time_chunks(size_t groups, int threads, size_t bars);

}  // namespace wfod::cpu
