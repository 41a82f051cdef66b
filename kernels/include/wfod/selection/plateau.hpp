// Plateau-centred selection (docs/spec-10-selection.md §10.2): score each ranked combo by a
// statistic of the objective over its grid neighbourhood and pick the best centre. A stencil
// over the mixed-radix grid: O(combos x neighbourhood), no per-combo allocation.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "wfod/grid.hpp"
#include "wfod/selection/selection_spec.hpp"

namespace wfod::selection {

// Standing of one combo on a window.
enum class ComboState : uint8_t { invalid, unranked, ranked };

// Per-axis radius (in index steps) from the spec: numeric axes get spec.plateau_radius,
// categorical ones 0, overrides by axis name. Throws std::invalid_argument for an override
// naming no axis of the grid.
std::vector<int> plateau_radii(const Grid&, const SelectionSpec&);

struct PlateauWinner {
  uint64_t id = 0;
  double score = 0;            // the neighbourhood statistic
  uint64_t neighbours = 0;     // combos that entered the statistic (the centre included)
  uint64_t worst_counted = 0;  // of which unranked neighbours counted at the worst value
};

// Scores of every combo (NaN where the centre is not ranked), `axis_sizes` in canonical
// order (first fastest). Neighbours outside the grid or invalid are left out; valid but
// unranked neighbours (failing a constraint, NaN objective) count as the worst ranked
// objective of the grid. Returns the best centre (higher score, then lower id), none when
// no combo is ranked.
std::optional<PlateauWinner> plateau_select(std::span<const size_t> axis_sizes,
                                            std::span<const int> radii,
                                            std::span<const double> objective,
                                            std::span<const ComboState> state, PlateauStat stat,
                                            std::vector<double>* scores = nullptr);

}  // namespace wfod::selection
