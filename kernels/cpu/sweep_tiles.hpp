// How a CPU sweep walks a grid within a memory budget: the grid is cut into tiles (a block
// of consecutive values on every axis) whose indicator rows and lane groups fit the budget,
// and the sweep holds one tile's rows at a time. Tiles only regroup the work: every combo is
// evaluated exactly as in one pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wfod/grid.hpp"

namespace wfod::cpu {

struct TilePlan {
  std::vector<size_t> axis_size;  // per axis, canonical order (Grid::axes())
  std::vector<size_t> block;      // values per tile on each axis
  size_t tiles = 1;
  size_t rows_per_tile = 0;   // indicator rows of one tile, at most
  size_t bytes_per_tile = 0;  // its rows and lane groups, at most
};

// Bytes of one indicator row over `bars` bars.
inline size_t row_bytes(size_t bars) { return bars * sizeof(double); }

// The largest tiles whose bytes fit `budget`, halving the axis whose halving saves most
// until they do. Throws std::invalid_argument when one combo's rows alone do not fit.
TilePlan plan_tiles(const Grid& grid, size_t bars, size_t budget);

// Tile k of a plan: its own grid (the values of its blocks) and, per axis, the index of its
// block's first value in the full grid.
struct Tile {
  Grid grid;
  std::vector<size_t> first;
};
Tile tile_at(const Grid& grid, const TilePlan& plan, size_t k);

// Whether some combo of the tile can be valid (SPEC §5: fast < slow, n >= 2 and k > 0,
// n >= 2 and lo < hi, vol_short < vol_long; §5b: each stop in its range); a tile with none
// needs no indicator rows.
bool may_hold_valid(const Tile& tile);

// Calls fn(id) with the full grid's id of every combo of the tile, in increasing order.
template <typename Fn>
void for_each_id(const Grid& grid, const Tile& tile, Fn&& fn) {
  const std::vector<AxisInfo> axes = grid.axes(), sub = tile.grid.axes();
  const size_t n = axes.size();
  std::vector<uint64_t> stride(n, 1);
  for (size_t a = 1; a < n; ++a) stride[a] = stride[a - 1] * axes[a - 1].size;
  uint64_t base = 0;
  for (size_t a = 0; a < n; ++a) base += tile.first[a] * stride[a];
  std::vector<size_t> j(n, 0);  // odometer over the tile, first axis fastest
  for (uint64_t id = base;;) {
    fn(id);
    size_t a = 0;
    for (; a < n; ++a) {
      if (++j[a] < sub[a].size) {
        id += stride[a];
        break;
      }
      id -= (j[a] - 1) * stride[a];
      j[a] = 0;
    }
    if (a == n) return;
  }
}

}  // namespace wfod::cpu
