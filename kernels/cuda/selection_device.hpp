// Timings of the cuda backend's last robust_scores() on this thread (selection_pipeline.cu),
// for benchmarks. Host-only: no CUDA types, so plain C++ benches can include it.
#pragma once

#include <string>

namespace wfod::cuda {

// Wall-clock phases of the host thread; the CSCV kernels run while the host copies the scores
// back and runs the plateau step, so score_ms and plateau_ms overlap cscv's device time.
struct SelectionTiming {
  double prepare_ms = 0;  // history upload, indicator rows, grid tables (the sweep's prepare)
  double blocks_ms = 0;   // block summaries kernel (without PBO: the canonical Summaries, scored)
  double score_ms = 0;    // score arrays to the host (during CSCV), host replays
  double cscv_ms = 0;     // CSCV setup and queueing, then the wait for its kernels, aggregation
  double walk_ms = 0;     // of which pass A: the split walks (device time, CUDA events)
  double count_ms = 0;    // of which pass B: the OOS rank counts (device time)
  double resolve_ms = 0;  // of which the exact winners and their targets (device time)
  double setup_ms = 0;    // of which the participants, pack and parts, before the walks (host)
  double plateau_ms = 0;  // stencil kernel, download, best centre
  double total_ms = 0;    // the whole call
  std::string path;       // "device", or why the host pipeline ran instead
};
SelectionTiming last_selection_timing();
void record_selection_timing(const SelectionTiming&);

}  // namespace wfod::cuda
