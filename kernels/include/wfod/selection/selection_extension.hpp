// Robust selection's grid pass as an optional backend extension (Backend::selection()), and
// the one function callers use to run it: the backend's extension where it has one and its
// plan fits, the host pipeline over block_summaries / evaluate otherwise.
#pragma once

#include <optional>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/selection/robust_scores.hpp"

namespace wfod::selection {

class SelectionExtension {
 public:
  virtual ~SelectionExtension() = default;
  // Every combo's window objective, per-period Sharpe and standing, and on request PBO over
  // the layout's blocks and the plateau stencil (docs/spec-10-selection.md §10.0, §10.2,
  // §10.4), computed where the block summaries are made. Results equal host_robust_scores
  // on the same backend. Throws wfod::Unsupported when the plan does not fit (e.g. device
  // memory); robust_scores() below then runs the host pipeline.
  virtual RobustScores robust_scores(const SweepRequest&, const RobustOptions&) = 0;
  // One combo's strategy returns s_t over the request's window, bit for bit as combo_returns
  // computes them, where the backend already holds them (the cuda backend keeps its sweep's
  // raw winner's in a preparation that keeps scores, PrepareSpec::keep_scores); nullopt otherwise
  // (select() then runs combo_returns). Never runs device work; not for a call beside
  // robust_scores.
  virtual std::optional<std::vector<double>> kept_returns(const SweepRequest&, const Combo&) {
    return std::nullopt;
  }
};

// The host pipeline on `backend`: score_grid + cscv_pbo (or score_grid_by_evaluate without
// PBO) + plateau_select, through its block_summaries / evaluate.
RobustScores host_robust_scores(Backend& backend, const SweepRequest& req,
                                const RobustOptions& options);

// backend.selection()->robust_scores where the backend has the extension, the host pipeline
// where it has none or the extension throws std::invalid_argument (a refusal, or an input
// error the host pipeline then reports in its own words).
RobustScores robust_scores(Backend& backend, const SweepRequest& req, const RobustOptions& options);

}  // namespace wfod::selection
