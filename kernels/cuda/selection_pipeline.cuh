// The cuda backend's block_summaries and robust_scores (selection_pipeline.cu): the device
// state a sweep prepared (indicator rows, grid tables, bar returns) in, host results out.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "sweep_kernels.cuh"
#include "wfod/backend.hpp"
#include "wfod/selection/robust_scores.hpp"

namespace wfod::cuda {

// Grow-only device buffers of the selection kernels, kept by the backend between calls.
class SelectionWorkspace;
std::shared_ptr<SelectionWorkspace> make_selection_workspace();

// What the request's preparation (cuda_preparation.cuh) holds on the device for it.
struct PreparedSweep {
  const GridTables* tables = nullptr;
  const BarData* bars = nullptr;
  const std::vector<KernelKind>* kinds = nullptr;
};

// The bars where a request's blocks begin, and the window's end: first, cuts..., end.
std::vector<long long> block_edges(const SweepRequest& req, std::span<const size_t> cuts);

// Backend::block_summaries on the device: combo-major, grid.size() x (cuts.size() + 1),
// bit-identical to the cpu backend's. Processes the grid in chunks of combos that fit the
// device, so it never refuses for memory.
std::vector<Summary> device_block_summaries(SelectionWorkspace&, const SweepRequest&,
                                            std::span<const size_t> cuts, const PreparedSweep&);

// Robust selection's window scores without PBO: every combo's canonical Summary (evaluate()'s
// time chunks and tree) scored on the device, downloaded, the host's exact replays applied
// (`self` re-evaluates combos whose equity reaches zero, spec-notes 5). A sweep on a preparation
// that keeps scores (PrepareSpec::keep_scores) ranks from them and keeps them for robust_scores.
struct WindowScores {
  selection::RobustScores scores;  // objective, sharpe, state, valid, ranked
  bool on_device = false;          // the workspace's score arrays equal them (no replay)
  bool summaries = false;          // every combo's joined Summary is in the workspace (one batch)
  double blocks_ms = 0, score_ms = 0;
};
WindowScores device_window_scores(SelectionWorkspace&, Backend& self, const SweepRequest&,
                                  const PreparedSweep&);
// The joined Summaries of `ids` that device_window_scores left in the workspace (when its
// WindowScores::summaries says so, and until the workspace's next grid pass): evaluate()'s
// canonical Summaries of those combos, without evaluating them again.
std::vector<Summary> window_summaries(SelectionWorkspace&, std::span<const uint64_t> ids);

// The selection extension's robust_scores on the device; `self` re-evaluates combos whose
// equity reaches zero (spec-notes 5) exactly as score_grid does. Throws wfod::Unsupported, naming
// the sizes, when the plan does not fit the device's free memory. `prepare_ms`: recorded in the
// timing. `kept`: without PBO, this request's window scores as the sweep left them (taken
// instead of scoring the grid again; the workspace's arrays untouched since).
selection::RobustScores device_robust_scores(SelectionWorkspace&, Backend& self,
                                             const SweepRequest&, const selection::RobustOptions&,
                                             const PreparedSweep&, double prepare_ms,
                                             WindowScores* kept = nullptr);

// Bytes robust_scores needs on the device for this many combos, blocks and options.
size_t robust_scores_bytes(uint64_t combos, size_t blocks, const selection::RobustOptions&,
                           const SweepRequest&);

}  // namespace wfod::cuda
