// PBO by CSCV on the device (docs/spec-10-selection.md §10.4, §10.6), from the block summaries
// and window flags already on the device (SelectionWorkspace): participants and walk parts
// chosen on the device, then the split walks, exact winners and OOS counts queued on the
// default stream. The host may work while they run (selection_pipeline.cu copies the scores
// back on the side stream meanwhile) and collects the outcome with finish_device_cscv.
#pragma once

#include <cstdint>

#include "selection_device.hpp"
#include "selection_lean.cuh"
#include "selection_workspace.cuh"
#include "wfod/backend.hpp"
#include "wfod/selection/pbo.hpp"
#include "wfod/selection/robust_scores.hpp"

namespace wfod::cuda {

// What the CSCV kernels need of the request: each half's bar count (half_bars) and ranking.
selection::lean::Ranking cscv_ranking(const SweepRequest& req, size_t half_bars);

// A queued CSCV run.
struct CscvRun {
  size_t blocks = 0;    // S
  uint32_t np = 0;      // participants
  uint32_t splits = 0;  // C(S, S/2)
  bool queued = false;  // false: fewer than two participants, nothing to wait for
};

// Queues CSCV over `total` combos: ws.blocks (combo-major, layout.total_blocks() per combo)
// and ws.state / ws.flags of the window scores kernel (complete when this is called or
// ordered before it on the default stream). Returns once the kernels are queued; records
// the setup time in `timing`.
CscvRun launch_device_cscv(SelectionWorkspace& ws, const SweepRequest& req,
                           const selection::RobustOptions& opt, uint64_t total,
                           SelectionTiming& timing);

// Waits for the run and aggregates the outcome as cscv_pbo does. `excluded`: valid combos
// left out of CSCV (a nonpositive CSCV block). Records the kernels' device times.
selection::PboResult finish_device_cscv(SelectionWorkspace& ws, const CscvRun& run,
                                        const selection::RobustOptions& opt, uint64_t excluded,
                                        SelectionTiming& timing);

}  // namespace wfod::cuda
