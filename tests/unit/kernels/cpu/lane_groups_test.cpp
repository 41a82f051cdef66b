// Lane groups (kernels/cpu/lane_groups.hpp), the one packing every cpu path uses: a combo
// joins its kind's open group (apart from its kind's combos whose stops act), full groups
// leave at once, partly filled ones at the end in kind order, and each lane's slot follows
// its combo.
#include "cpu/lane_groups.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

#include "wfod/grid.hpp"

namespace wfod::cpu {
namespace {

std::vector<uint64_t> lane_ids(const Group& g) { return {g.ids, g.ids + g.lanes}; }

TEST(LaneGroups, FullGroupsLeaveAtOnceAndPartlyFilledOnesInKindOrder) {
  // Kind 3 first, then kind 1: kind 1 fills a group (in the middle of kind 3's), kind 3
  // never does. Ids are 100 + slot so every lane can be traced back to its slot.
  LaneGrouper grouper(/*track_slots=*/true);
  std::vector<int> kinds = {3, 3, 1};
  for (int i = 0; i < kLanes; ++i) kinds.push_back(1);
  kinds.push_back(3);
  for (size_t i = 0; i < kinds.size(); ++i) grouper.add(100 + i, kinds[i], /*stops=*/false, i);
  const LaneGroups out = grouper.finish();

  ASSERT_EQ(out.groups.size(), 3u);
  EXPECT_EQ(out.groups[0].kind, 1);  // full: left when its kLanes-th combo came
  EXPECT_EQ(out.groups[0].lanes, kLanes);
  EXPECT_EQ(out.groups[1].kind, 1);  // the one kind-1 combo after it
  EXPECT_EQ(lane_ids(out.groups[1]), std::vector<uint64_t>{100 + kinds.size() - 2});
  EXPECT_EQ(out.groups[2].kind, 3);
  EXPECT_EQ(lane_ids(out.groups[2]), (std::vector<uint64_t>{100, 101, 100 + kinds.size() - 1}));
  ASSERT_EQ(out.group_base.size(), 4u);
  EXPECT_EQ(out.group_base.back(), kinds.size());
  ASSERT_EQ(out.slot_of.size(), kinds.size());
  for (size_t g = 0; g < out.groups.size(); ++g)
    for (int j = 0; j < out.groups[g].lanes; ++j)
      EXPECT_EQ(out.groups[g].ids[j], 100 + out.slot_of[out.group_base[g] + size_t(j)]);

  // finish() leaves the grouper empty.
  EXPECT_TRUE(grouper.finish().groups.empty());
}

TEST(LaneGroups, WithoutSlotsOnlyTheGroups) {
  LaneGrouper grouper;
  for (uint64_t id = 0; id < 2 * kLanes + 1; ++id) grouper.add(id, 0, /*stops=*/false);
  const LaneGroups out = grouper.finish();
  ASSERT_EQ(out.groups.size(), 3u);
  EXPECT_EQ(out.groups[2].lanes, 1);
  EXPECT_TRUE(out.slot_of.empty());
  EXPECT_TRUE(out.group_base.empty());
}

Grid two_kind_grid() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {2, 5, 9, 20};
  g.slow = {5, 10, 30};  // (5, 5), (9, 5), (20, 5), (20, 10) are invalid
  g.ma = {MaType::sma, MaType::ema};
  g.entry = {Entry::state, Entry::cross};  // two kinds
  return g;
}

TEST(LaneGroups, ValidCombosOfAGridOnceEachInIdOrderPerKind) {
  const Grid grid = two_kind_grid();
  const std::vector<Group> groups = group_valid_combos(grid);
  std::set<uint64_t> seen;
  std::vector<uint64_t> last_of_kind(kKindCount, 0);
  std::vector<bool> any_of_kind(kKindCount, false);
  for (const Group& g : groups) {
    ASSERT_GE(g.lanes, 1);
    ASSERT_LE(g.lanes, kLanes);
    for (int j = 0; j < g.lanes; ++j) {
      const Combo c = grid.decode(g.ids[j]);
      EXPECT_TRUE(c.valid());
      EXPECT_EQ(kind_of(c), g.kind);
      EXPECT_TRUE(seen.insert(g.ids[j]).second) << "id " << g.ids[j] << " twice";
      if (any_of_kind[size_t(g.kind)]) {
        EXPECT_GT(g.ids[j], last_of_kind[size_t(g.kind)]);
      }
      any_of_kind[size_t(g.kind)] = true;
      last_of_kind[size_t(g.kind)] = g.ids[j];
    }
  }
  EXPECT_EQ(seen.size(), count_combos(grid).valid);
}

// SPEC §5b: combos whose stops act and those whose stops are all 0 never share a group (each
// runs its own kernel instantiation); a grid without stops groups exactly as before.
TEST(LaneGroups, CombosWithStopsGroupApartFromThoseWithout) {
  Grid grid = two_kind_grid();
  const std::vector<Group> plain = group_valid_combos(grid);
  grid.stop_loss = {0, 0.02, 0.05};  // a third of the combos with every stop 0
  const std::vector<Group> groups = group_valid_combos(grid);
  size_t with = 0, without = 0;
  std::vector<Group> zero_stop_groups;
  for (const Group& g : groups) {
    for (int j = 0; j < g.lanes; ++j) {
      const Combo c = grid.decode(g.ids[j]);
      EXPECT_EQ(c.stops_on(), g.stops) << "id " << g.ids[j];
      EXPECT_EQ(kind_of(c), g.kind);
    }
    (g.stops ? with : without) += static_cast<size_t>(g.lanes);
    if (!g.stops) zero_stop_groups.push_back(g);
  }
  EXPECT_EQ(with + without, count_combos(grid).valid);
  EXPECT_EQ(without * 3, with + without);
  // The stop_loss = 0 combos of the stops grid are the plain grid's ids (stop_loss is the
  // slowest axis and its first value), grouped the same way.
  ASSERT_EQ(zero_stop_groups.size(), plain.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(lane_ids(zero_stop_groups[i]), lane_ids(plain[i]));
    EXPECT_EQ(zero_stop_groups[i].kind, plain[i].kind);
  }
}

TEST(LaneGroups, GroupIdsRefusesIdsOutsideTheGridAndInvalidCombos) {
  const Grid grid = two_kind_grid();
  uint64_t invalid = grid.size();
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (!grid.decode(id).valid()) invalid = id;
  ASSERT_LT(invalid, grid.size());
  const std::vector<uint64_t> outside = {0, grid.size()}, bad = {invalid};
  EXPECT_THROW(group_ids(grid, outside), std::invalid_argument);
  EXPECT_THROW(group_ids(grid, bad), std::invalid_argument);
}

}  // namespace
}  // namespace wfod::cpu
