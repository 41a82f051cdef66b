// SPEC §7's ranking arithmetic written once for the host (ranking.cpp) and the CUDA sweep and
// stream kernels (cuda/rank_device.cuh): which metric is the objective, the constraints, and
// the order of two candidates (higher objective first, NaN last, ties by the lower id).
#pragma once

#include <cstdint>

#include "wfod/detail/hd.hpp"
#include "wfod/metrics.hpp"
#include "wfod/ranking.hpp"

namespace wfod::detail {

WFOD_HD inline double objective_of(const Metrics& m, Objective o) {
  switch (o) {
    case Objective::sharpe:
      return m.sharpe;
    case Objective::sortino:
      return m.sortino;
    case Objective::calmar:
      return m.calmar;
    case Objective::total_return:
      return m.total_return;
    case Objective::cagr:
      return m.cagr;
    case Objective::profit_factor:
      return m.profit_factor;
  }
  return 0;
}

// The constraints a combo fails, as kFails* bits, with `min_exposure` absent when
// !has_min_exposure. NaN fails a bound.
inline constexpr unsigned kFailsMinTrades = 1, kFailsMaxDrawdown = 2, kFailsMinExposure = 4;
WFOD_HD inline unsigned failed_limits(const Metrics& m, int64_t min_trades, double max_drawdown,
                                      bool has_min_exposure, double min_exposure) {
  unsigned failed = 0;
  if (m.trades < min_trades) failed |= kFailsMinTrades;
  if (!(m.max_drawdown <= max_drawdown)) failed |= kFailsMaxDrawdown;
  if (has_min_exposure && !(m.exposure >= min_exposure)) failed |= kFailsMinExposure;
  return failed;
}

WFOD_HD inline bool within_limits(const Metrics& m, int64_t min_trades, double max_drawdown,
                                  bool has_min_exposure, double min_exposure) {
  return failed_limits(m, min_trades, max_drawdown, has_min_exposure, min_exposure) == 0;
}

WFOD_HD inline bool ranks_before(double obj_a, uint64_t id_a, double obj_b, uint64_t id_b) {
  const bool nan_a = obj_a != obj_a, nan_b = obj_b != obj_b;
  if (nan_a != nan_b) return nan_b;
  if (!nan_a && obj_a != obj_b) return obj_a > obj_b;
  return id_a < id_b;
}

}  // namespace wfod::detail
