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

// Combos sharing a kernel instantiation (their kind, lane_kinds.hpp, and whether their stops
// act, SPEC §5b) go in the same group.
struct Group {
  uint64_t ids[kLanes];
  int lanes = 0;
  int kind = 0;
  bool stops = false;  // Combo::stops_on() of every lane
};

// Lane groups and, when the grouper tracked slots, where each lane's combo came from:
// slot_of[group_base[g] + lane] is the slot the lane's combo was added with (both empty
// otherwise).
struct LaneGroups {
  std::vector<Group> groups;
  std::vector<size_t> slot_of, group_base;
};

// The one way combos are packed into lane groups: each combo joins the open group of its
// kind and stops, a group is emitted as soon as it holds kLanes combos, and the partly filled
// ones at finish(), in kind order (without stops first). The groups depend only on the order
// the combos are added in, so sweeps, evaluate() lists, block summaries and streams lay out
// their lanes alike. A grid without stops groups as it did before SPEC §5b; in a grid with
// them, the combos whose stops are all 0 keep the kernel without the stop state.
class LaneGrouper {
 public:
  // With `track_slots`, add() records each combo's slot (say its position in the caller's
  // list of ids) and finish() fills slot_of and group_base.
  explicit LaneGrouper(bool track_slots = false) : track_slots_(track_slots) {}

  void add(uint64_t id, int kind, bool stops, size_t slot = 0) {
    const int key = 2 * kind + (stops ? 1 : 0);
    Group& g = open_[key];
    g.kind = kind;
    g.stops = stops;
    g.ids[g.lanes++] = id;
    if (track_slots_) open_slots_[key].push_back(slot);
    if (g.lanes == kLanes) emit(key);
  }
  // A combo by its kind and stops.
  void add(uint64_t id, const Combo& c, size_t slot = 0) {
    add(id, kind_of(c), c.stops_on(), slot);
  }
  // The groups of every combo added so far; the grouper starts over empty.
  LaneGroups finish();

 private:
  void emit(int key);  // moves the open group of `key` (and its slots) to out_

  // Open groups by key 2 * kind + stops.
  Group open_[2 * kKindCount];
  std::vector<size_t> open_slots_[2 * kKindCount];
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
