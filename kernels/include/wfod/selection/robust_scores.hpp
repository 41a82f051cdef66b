// What selection::robust_scores computes (selection_extension.hpp) (docs/spec-10-selection.md
// §10.0, §10.2, §10.4): the per-combo window scores, and on request PBO by CSCV and the plateau
// stencil, in one call through the backend seam, so a device backend can keep the block summaries
// where they were made and return only these arrays.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "wfod/selection/blocks.hpp"
#include "wfod/selection/pbo.hpp"
#include "wfod/selection/plateau.hpp"
#include "wfod/selection/selection_spec.hpp"

namespace wfod::selection {

// The plateau stencil's inputs besides the scores (plateau_select's arguments).
struct PlateauRequest {
  std::vector<size_t> axis_sizes;  // canonical order, first axis fastest
  std::vector<int> radii;          // plateau_radii()
  PlateauStat stat;
};

struct RobustOptions {
  // With pbo: the window is scored from block_summaries() with layout.cuts and CSCV runs over
  // its S blocks (scores exactly as score_grid + cscv_pbo). Without: scores exactly as
  // score_grid_by_evaluate (evaluate() in chunks: no Summary per combo held anywhere).
  bool pbo = false;
  BlockLayout layout;
  size_t hist_bins = 20;
  std::optional<PlateauRequest> plateau;  // run plateau_select on the scores
};

// Wall time of robust_scores' parts, in seconds, where the backend measures them (the host
// pipeline (host_robust_scores) does; a device pipeline that overlaps its parts need not).
struct RobustTiming {
  double blocks_seconds = 0;   // block Summaries; without PBO the evaluate() pass that scores
  double scores_seconds = 0;   // window scores from the block Summaries (joins, replays)
  double cscv_seconds = 0;     // PBO by CSCV
  double plateau_seconds = 0;  // the plateau stencil
};

struct RobustScores {
  std::vector<double> objective;  // NaN for invalid combos
  std::vector<double> sharpe;     // per period (SPEC §6 sharpe / sqrt(A)); NaN for invalid
  std::vector<ComboState> state;
  uint64_t valid = 0, ranked = 0;
  std::optional<PboResult> pbo;  // set when options.pbo
  // Set when options.plateau: the scores of every combo (NaN where not a ranked centre) and
  // the best centre (none when nothing is ranked).
  std::vector<double> plateau_scores;
  std::optional<PlateauWinner> plateau;
  std::optional<RobustTiming> timing;  // unset where the backend does not measure its parts
};

}  // namespace wfod::selection
