// Tile plans of the CPU sweep: sizing blocks to a memory budget and cutting sub-grids.
#include "sweep_tiles.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "lane_groups.hpp"
#include "src/lane_setup.hpp"
#include "wfod/detail/grid_axes.hpp"

namespace wfod::cpu {
namespace {

// Indicator rows a tile with these blocks reads, at most (axes in canonical order).
size_t rows_of(const Grid& g, const std::vector<size_t>& b) {
  size_t rows = 0, vol = 0;  // vol: the first vol axis
  switch (g.family) {
    case Family::ma_cross:  // a row per (ma, fast) and (ma, slow)
      rows = b[2] * (b[0] + b[1]);
      vol = 5;
      break;
    case Family::channel_breakout:  // upper and lower per (n, source)
      rows = 2 * b[0] * b[1];
      vol = 3;
      break;
    case Family::bollinger:  // SMA(n) and STD(n)
      rows = 2 * b[0];
      vol = 4;
      break;
    case Family::rsi_reversion:  // RSI(n)
      rows = b[0];
      vol = 4;
      break;
    case Family::rules:  // refused by CpuBackend::supports before any plan
      throw Unsupported("the cpu backend does not run rules strategies (SPEC §5a)");
  }
  if (g.has_stops()) vol += 3;  // stop_loss, take_profit, trailing_stop: no rows
  if (g.has_vol_filter()) rows += b[vol] + b[vol + 1];
  return rows;
}

// In double: a whole grid's lane groups can exceed 2^64 bytes.
double bytes_of(const Grid& g, const std::vector<size_t>& b, size_t bars) {
  double combos = 1;
  for (size_t v : b) combos *= static_cast<double>(v);
  const double groups = combos / kLanes + kFamilyKindCount;  // + one partial group per kind
  return static_cast<double>(rows_of(g, b)) * static_cast<double>(row_bytes(bars)) +
         groups * sizeof(Group);
}

std::string mib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1 << 20));
  return buf;
}

template <typename T>
std::vector<T> slice(const std::vector<T>& v, size_t first, size_t count) {
  return std::vector<T>(v.begin() + static_cast<ptrdiff_t>(first),
                        v.begin() + static_cast<ptrdiff_t>(first + count));
}

}  // namespace

TilePlan plan_tiles(const Grid& grid, size_t bars, size_t budget) {
  TilePlan p;
  for (const AxisInfo& a : grid.axes()) p.axis_size.push_back(a.size);
  p.block = p.axis_size;
  while (bytes_of(grid, p.block, bars) > static_cast<double>(budget)) {
    // Halve the block whose halving leaves the smallest tile.
    size_t best = p.block.size();
    double best_bytes = 0;
    for (size_t a = 0; a < p.block.size(); ++a) {
      if (p.block[a] <= 1) continue;
      std::vector<size_t> b = p.block;
      b[a] = (b[a] + 1) / 2;
      const size_t bytes = bytes_of(grid, b, bars);
      if (best == p.block.size() || bytes < best_bytes) {
        best = a;
        best_bytes = bytes;
      }
    }
    if (best == p.block.size()) {
      const std::vector<size_t> one(p.block.size(), 1);
      throw std::invalid_argument("memory budget of " + mib(static_cast<double>(budget)) +
                                  " is too small: one combo reads " +
                                  std::to_string(rows_of(grid, one)) + " indicator rows of " +
                                  std::to_string(bars) + " bars (" +
                                  mib(bytes_of(grid, one, bars)) + ")");
    }
    p.block[best] = (p.block[best] + 1) / 2;
  }
  p.tiles = 1;
  for (size_t a = 0; a < p.block.size(); ++a)
    p.tiles *= (p.axis_size[a] + p.block[a] - 1) / p.block[a];
  p.rows_per_tile = rows_of(grid, p.block);
  p.bytes_per_tile = static_cast<size_t>(bytes_of(grid, p.block, bars));
  return p;
}

Tile tile_at(const Grid& grid, const TilePlan& plan, size_t k) {
  const size_t n = plan.block.size();
  Tile t;
  t.first.resize(n);
  std::vector<size_t> count(n);
  for (size_t a = 0; a < n; ++a) {  // tile coordinates, first axis fastest
    const size_t tiles_on_axis = (plan.axis_size[a] + plan.block[a] - 1) / plan.block[a];
    t.first[a] = (k % tiles_on_axis) * plan.block[a];
    k /= tiles_on_axis;
    count[a] = std::min(plan.block[a], plan.axis_size[a] - t.first[a]);
  }
  const Grid& g = grid;
  Grid& s = t.grid;
  s.family = g.family;
  size_t a = 0;
  auto take = [&](const auto& values) {
    const size_t i = a++;
    return slice(values, t.first[i], count[i]);
  };
  if (g.family == Family::rules)
    throw Unsupported("the cpu backend does not run rules strategies (SPEC §5a)");
  detail::for_each_family_axis(g.family,
                               [&](const char*, auto axis, auto) { s.*axis = take(g.*axis); });
  if (g.has_stops()) {  // an axis not given is {0} (Grid::axes): size 1, left empty here too
    auto take_stop = [&](const std::vector<double>& values) {
      if (values.empty()) {
        ++a;
        return values;
      }
      return take(values);
    };
    s.stop_loss = take_stop(g.stop_loss);
    s.take_profit = take_stop(g.take_profit);
    s.trailing_stop = take_stop(g.trailing_stop);
  }
  if (g.has_vol_filter()) {
    s.vol_short = take(g.vol_short);
    s.vol_long = take(g.vol_long);
    s.vol_threshold = take(g.vol_threshold);
  }
  return t;
}

bool may_hold_valid(const Tile& tile) {
  const Grid& g = tile.grid;
  auto below = [](const std::vector<int>& lo, const std::vector<int>& hi) {
    return *std::min_element(lo.begin(), lo.end()) < *std::max_element(hi.begin(), hi.end());
  };
  auto most = [](const auto& v) { return *std::max_element(v.begin(), v.end()); };
  if (g.family == Family::ma_cross && !below(g.fast, g.slow)) return false;
  if (g.family == Family::bollinger && (most(g.n) < 2 || !(most(g.k) > 0))) return false;
  if (g.family == Family::rsi_reversion) {
    if (most(g.n) < 2 || !(*std::min_element(g.lo.begin(), g.lo.end()) < most(g.hi))) return false;
  }
  if (g.has_vol_filter() && !below(g.vol_short, g.vol_long)) return false;
  // SPEC §5b: each stop axis needs a value in its range (an axis not given is {0}, in range).
  auto some = [](const std::vector<double>& v, bool (*in_range)(double)) {
    return v.empty() || std::any_of(v.begin(), v.end(), in_range);
  };
  if (!some(g.stop_loss, stop_loss_in_range) || !some(g.take_profit, take_profit_in_range) ||
      !some(g.trailing_stop, trailing_stop_in_range))
    return false;
  return true;
}

}  // namespace wfod::cpu
