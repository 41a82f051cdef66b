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

// What CudaBackend::prepare(req) left on the device for this request.
struct PreparedSweep {
  const GridTables* tables = nullptr;
  const BarData* bars = nullptr;
  const std::vector<KernelKind>* kinds = nullptr;
};

// Backend::block_summaries on the device: combo-major, grid.size() x (cuts.size() + 1),
// bit-identical to the cpu backend's. Processes the grid in chunks of combos that fit the
// device, so it never refuses for memory.
std::vector<Summary> device_block_summaries(SelectionWorkspace&, const SweepRequest&,
                                            std::span<const size_t> cuts, const PreparedSweep&);

// The selection extension's robust_scores on the device; `self` re-evaluates combos whose
// equity reaches zero (spec-notes 5) exactly as score_grid does. Throws wfod::Unsupported, naming
// the sizes, when the plan does not fit the device's free memory. `prepare_ms`: recorded in the
// timing.
selection::RobustScores device_robust_scores(SelectionWorkspace&, Backend& self,
                                             const SweepRequest&, const selection::RobustOptions&,
                                             const PreparedSweep&, double prepare_ms);

// Bytes robust_scores needs on the device for this many combos, blocks and options.
size_t robust_scores_bytes(uint64_t combos, size_t blocks, const selection::RobustOptions&,
                           const SweepRequest&);

}  // namespace wfod::cuda
