// The cuda backend's work on a grid with stop axes (SPEC §5b), host side: sweeps, evaluate()'s
// Summaries and block Summaries through the stop evaluator (stop_kernels.cuh), in batches of
// combos that fit the device. Every combo of such a grid, its stops 0 or not, is walked from
// the exact state entering its range, bar by bar, one thread per combo (and block).
#pragma once

#include <span>
#include <vector>

#include "device_buffer.cuh"
#include "stop_kernels.cuh"
#include "wfod/backend.hpp"

namespace wfod::cuda {

// What the backend's preparation left on the device for a stop grid.
struct StopPrepared {
  const GridTables* tables = nullptr;  // the grid without its stop axes
  const StopTables* stops = nullptr;
  const BarData* bars = nullptr;
  const std::vector<KernelKind>* kinds = nullptr;
};

// Grow-only device buffers of the stop evaluator, kept by the backend between calls.
struct StopWorkspace {
  DeviceBuffer<Summary> summaries;
  DeviceBuffer<uint8_t> valid;
  DeviceBuffer<unsigned long long> ids;
  DeviceBuffer<long long> edges;
};

// Every combo's window Summary, then finalized, constrained and ranked on the host by
// (objective, id) as every backend ranks: the counters and the top K. Combos whose equity
// reaches zero are evaluated by `host` (the combine's drawdown does not hold there).
// result.backend, precision and seconds are left to the caller.
SweepResult stop_sweep(StopWorkspace&, const SweepRequest&, const StopPrepared&, Backend& host);

// The window Summaries of valid ids (in their order).
std::vector<Summary> stop_window_summaries(StopWorkspace&, const SweepRequest&, const StopPrepared&,
                                           std::span<const uint64_t> ids);

// Backend::block_summaries: combo-major, grid.size() x (cuts.size() + 1).
std::vector<Summary> stop_block_summaries(StopWorkspace&, const SweepRequest&,
                                          std::span<const size_t> cuts, const StopPrepared&);

}  // namespace wfod::cuda
