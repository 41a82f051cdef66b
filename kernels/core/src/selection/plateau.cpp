// Plateau-centred selection (docs/spec-10-selection.md §10.2): a box stencil over the grid's
// mixed-radix ids. Each centre visits its clipped box with an odometer; the one value buffer
// is sized once for the largest box.
#include "wfod/selection/plateau.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "wfod/ranking.hpp"

namespace wfod::selection {
namespace {

// SPEC §5a's categorical parameters (`ma`, `side`, `entry`, `style`, `source`): neighbouring
// enum values are not nearby parameters (bollinger's reversion and breakout trade opposite
// ways). `k`, `lo` and `hi` are numeric axes like the periods.
bool categorical(const std::string& axis) {
  return axis == "ma" || axis == "side" || axis == "entry" || axis == "style" || axis == "source";
}

// Type-7 (linear interpolation) quantile of v[0..m); reorders v.
double quantile(double* v, size_t m, double q) {
  const double h = static_cast<double>(m - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  std::nth_element(v, v + lo, v + m);
  const double a = v[lo];
  if (lo + 1 >= m || h == static_cast<double>(lo)) return a;
  const double b = *std::min_element(v + lo + 1, v + m);
  return b == a ? a : a + (h - static_cast<double>(lo)) * (b - a);
}

}  // namespace

std::vector<int> plateau_radii(const Grid& grid, const SelectionSpec& spec) {
  const std::vector<AxisInfo> axes = grid.axes();
  std::vector<int> r(axes.size());
  // A rules strategy's params are numbers, whatever their names (SPEC §5a).
  const bool named_choices = grid.family != Family::rules;
  for (size_t a = 0; a < axes.size(); ++a)
    r[a] = named_choices && categorical(axes[a].name) ? 0 : spec.plateau_radius;
  for (const auto& [name, radius] : spec.plateau_radius_axes) {
    auto it =
        std::find_if(axes.begin(), axes.end(), [&](const AxisInfo& x) { return x.name == name; });
    if (it == axes.end())
      throw std::invalid_argument("plateau_radius: the grid has no axis '" + name + "'");
    r[static_cast<size_t>(it - axes.begin())] = radius;
  }
  return r;
}

std::optional<PlateauWinner> plateau_select(std::span<const size_t> sizes,
                                            std::span<const int> radii,
                                            std::span<const double> objective,
                                            std::span<const ComboState> state, PlateauStat stat,
                                            std::vector<double>* scores) {
  const size_t axes = sizes.size();
  if (radii.size() != axes) throw std::invalid_argument("plateau: one radius per axis");
  uint64_t total = 1;
  size_t box_max = 1;
  std::vector<uint64_t> stride(axes);
  for (size_t a = 0; a < axes; ++a) {
    stride[a] = total;
    total *= sizes[a];
    box_max *= std::min<size_t>(sizes[a], 2 * static_cast<size_t>(std::max(radii[a], 0)) + 1);
  }
  if (objective.size() != total || state.size() != total)
    throw std::invalid_argument("plateau: one objective and state per combo");
  if (scores) scores->assign(total, std::numeric_limits<double>::quiet_NaN());

  // The worst ranked objective stands in for valid neighbours that are not ranked.
  double worst = std::numeric_limits<double>::infinity();
  bool any = false;
  for (uint64_t i = 0; i < total; ++i)
    if (state[i] == ComboState::ranked && !std::isnan(objective[i])) {
      worst = std::min(worst, objective[i]);
      any = true;
    }
  if (!any) return std::nullopt;

  // Allocated once: the value buffer and the odometers.
  std::vector<double> values(box_max);
  std::vector<size_t> centre(axes, 0), lo(axes), hi(axes), k(axes);
  std::optional<PlateauWinner> best;
  for (uint64_t id = 0; id < total; ++id) {
    if (id > 0) {  // advance the centre's coordinates (first axis fastest)
      for (size_t a = 0; a < axes && ++centre[a] == sizes[a]; ++a) centre[a] = 0;
    }
    if (state[id] != ComboState::ranked || std::isnan(objective[id])) continue;
    uint64_t nb = 0;
    for (size_t a = 0; a < axes; ++a) {
      const size_t r = static_cast<size_t>(std::max(radii[a], 0));
      lo[a] = centre[a] >= r ? centre[a] - r : 0;
      hi[a] = std::min(sizes[a] - 1, centre[a] + r);
      k[a] = lo[a];
      nb += lo[a] * stride[a];
    }
    size_t m = 0;
    uint64_t worst_counted = 0;
    for (;;) {
      switch (state[nb]) {
        case ComboState::ranked:
          values[m++] = std::isnan(objective[nb]) ? worst : objective[nb];
          worst_counted += std::isnan(objective[nb]) ? 1 : 0;
          break;
        case ComboState::unranked:
          values[m++] = worst;
          ++worst_counted;
          break;
        case ComboState::invalid:
          break;  // structurally absent, like a neighbour beyond the grid's edge
      }
      size_t a = 0;
      for (; a < axes; ++a) {
        if (k[a] < hi[a]) {
          ++k[a];
          nb += stride[a];
          break;
        }
        nb -= (k[a] - lo[a]) * stride[a];
        k[a] = lo[a];
      }
      if (a == axes) break;
    }
    double score;
    if (stat.mean) {
      double sum = 0;
      for (size_t i = 0; i < m; ++i) sum += values[i];
      score = sum / static_cast<double>(m);
    } else {
      score = quantile(values.data(), m, stat.q);
    }
    if (scores) (*scores)[id] = score;
    if (!best || ranks_before(score, id, best->score, best->id))
      best = PlateauWinner{id, score, m, worst_counted};
  }
  return best;
}

}  // namespace wfod::selection

namespace wfod::selection {

std::string to_string(PlateauStat s) {
  if (s.mean) return "mean";
  if (s.q == 0) return "min";
  if (s.q == 0.5) return "median";
  // Appended rather than "q" + ...: GCC 12 warns (-Wrestrict) on that form, falsely.
  std::string out(1, 'q');
  out += std::to_string(static_cast<int>(std::lround(s.q * 100)));
  return out;
}

PlateauStat parse_plateau_stat(std::string_view text) {
  if (text == "mean") return {true, 0};
  if (text == "min") return {false, 0};
  if (text == "median") return {false, 0.5};
  if (text.size() == 3 && text[0] == 'q' && text[1] >= '0' && text[1] <= '9' && text[2] >= '0' &&
      text[2] <= '9') {
    return {false, ((text[1] - '0') * 10 + (text[2] - '0')) / 100.0};
  }
  throw std::invalid_argument("unknown plateau statistic '" + std::string(text) +
                              "' (expected mean|median|min|qNN, e.g. q25)");
}

}  // namespace wfod::selection
