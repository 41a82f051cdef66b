// Robust-selection settings of one strategy (docs/spec-10-selection.md): hysteresis margins,
// plateau mode, the DSR gate and the PBO block count. Defaults reproduce the raw arg-max.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wfod::selection {

// Statistic of a plateau neighbourhood's objectives: the mean, or the lower quantile q
// (0 < q < 1; "min" is q = 0, "median" q = 0.5).
struct PlateauStat {
  bool mean = true;
  double q = 0.25;  // used when !mean
};
std::string to_string(PlateauStat);
// "mean", "min", "median" or "qNN" (NN in 0..99, e.g. "q25"); throws std::invalid_argument.
PlateauStat parse_plateau_stat(std::string_view);

struct SelectionSpec {
  // Hysteresis (§10.1): a new winner replaces the current parameters only if its objective
  // beats theirs on the same window by more than max(hysteresis_abs, hysteresis_rel *
  // |current objective|). A zero margin falls back to SPEC §7's order, so both 0 (the
  // defaults) publish exactly the arg-max.
  double hysteresis_abs = 0;
  double hysteresis_rel = 0;
  // Plateau-centred selection (§10.2).
  bool plateau = false;
  // Radius in index steps per axis: `plateau_radius` for every numeric axis (fast, slow,
  // n, vol_short, vol_long, vol_threshold), 0 for categorical ones (ma, side, entry,
  // source); `plateau_radius_axes` overrides it by axis name.
  int plateau_radius = 1;
  std::vector<std::pair<std::string, int>> plateau_radius_axes;
  PlateauStat plateau_stat;
  // Deflated Sharpe gate (§10.3): a winner whose DSR is below this is not published.
  std::optional<double> min_dsr;
  // PBO via CSCV (§10.4): S blocks (even, 2..20); 0 turns PBO off. Grids with more valid
  // combos than pbo_max_combos skip it (memory: combos x S summaries; time: C(S, S/2) x
  // combos x S combines).
  size_t pbo_blocks = 16;
  size_t pbo_max_combos = 20000;
};

}  // namespace wfod::selection
