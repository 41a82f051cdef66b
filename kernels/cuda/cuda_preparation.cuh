// What one preparation of the bars holds on the device (CudaBackend, cuda_backend.cu): the
// uploaded bars with their host copy, bar returns and prefix tables, indicator rows, grid
// tables and decision bits (or a rules strategy's rows and program), what they were built for, and
// the scores and winner's returns a sweep keeps for the selection right after it. A caller's
// Backend::prepare hands one out inside a CudaPreparedHistory; a request without one runs on the
// backend's own.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "device_indicators.cuh"
#include "grid_tables.cuh"
#include "level_bits.cuh"
#include "prefix_tables.cuh"
#include "rules_tables.cuh"
#include "selection_pipeline.cuh"
#include "signal_bits.cuh"
#include "sweep_kernels.cuh"
#include "wfod/backend.hpp"
#include "wfod/prepared_history.hpp"
#include "wfod/ranking.hpp"

namespace wfod::cuda {

// What the last completed build was for, compared in full (bar values, not pointers):
// requests whose bars up to their window's end, grid, fill, cost, precision and kernel knobs
// match it reuse it instead of rebuilding identical device state.
struct PreparedKey {
  bool valid = false;  // the bars are UploadedBars'
  Grid grid;
  Fill fill = Fill::close;
  double cost = 0;
  Precision precision = Precision::exact;
  bool plain = false;
  bool level_bits = true;
  long long signal_bits = 0;
};

// What a kept score set was made for: the window, the ranking rules, and the build (bars,
// grid, fill, cost, precision: `generation` moves with each build).
struct ScoresKey {
  size_t end = 0, bars = 0, warmup = 0;
  Objective objective = Objective::sharpe;
  int64_t min_trades = 0;
  double max_drawdown = 0;
  std::optional<double> min_exposure;
  double bars_per_year = 0;
  uint64_t generation = 0;
  bool operator==(const ScoresKey&) const = default;
};

// The window scores a sweep ranked from (PrepareSpec::keep_scores), for the robust_scores of
// the same request right after it. `epoch`: the backend's call count when kept; the scores
// may point into the backend's selection workspace, so any grid pass since spends them.
struct KeptScores {
  ScoresKey key;
  uint64_t epoch = 0;
  WindowScores scores;
};
// The raw winner's window returns that sweep computed, for select()'s DSR (kept_returns).
struct KeptReturns {
  ScoresKey key;
  uint64_t epoch = 0;
  uint64_t id = 0;
  std::vector<double> values;
};

struct DevicePreparation {
  DeviceHistory history;
  // Host copies of the bars in `history` (its first history.bars of each column).
  struct UploadedBars {
    std::vector<double> open, high, low, close;
  } uploaded;
  DevicePrefixTables prefix_tables;
  DeviceIndicators indicators;
  DeviceGridTables tables;
  DeviceLevelBits level_bits;
  DeviceSignalBits signal_bits;
  DeviceRules rules;  // a rules strategy's rows and program (SPEC §5a); empty otherwise
  BarData bars{};
  std::vector<KernelKind> kinds;
  PreparedKey key;
  uint64_t generation = 0;
  std::optional<KeptScores> kept_scores;
  std::optional<KeptReturns> kept_returns;
};

// The cuda backend's Backend::prepare: the request-visible spec and the device state built on
// first use. Device memory is released with the last reference.
class CudaPreparedHistory final : public PreparedHistory {
 public:
  CudaPreparedHistory(const PrepareSpec& spec, const void* made_by)
      : PreparedHistory(spec), owner(made_by) {}
  // The backend that made it: only that one runs on it (another's epochs and workspace are
  // not the ones its kept scores were counted by).
  const void* owner;
  DevicePreparation device;
};

}  // namespace wfod::cuda
