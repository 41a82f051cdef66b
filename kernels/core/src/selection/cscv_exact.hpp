// The exact arithmetic of one CSCV split (docs/spec-10-selection.md §10.4), shared by the
// plain walk (pbo.cpp, the oracle) and the screened walk (cscv_fast.cpp), which computes it
// only where a screen cannot decide: the objective and constraints of a half-set's joined
// Summary, the OOS order, and the participants.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "wfod/ranking.hpp"
#include "wfod/selection/pbo.hpp"
#include "wfod/summary.hpp"

namespace wfod::selection::cscv {

// Order for the OOS rank: NaN below every number and equal to NaN (as ranking.cpp).
inline bool below(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && !std::isnan(b);
  return a < b;
}
inline bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// finalize() restricted to what ranking a split needs, written with finalize's very
// operations so the values are identical: the moment objectives directly, the others (cagr's
// pow, calmar, profit_factor) through finalize itself. Requires s.bars > 0.
inline double lean_objective(const Summary& s, Objective o, double bars_per_year) {
  const double n = static_cast<double>(s.bars);
  switch (o) {
    case Objective::sharpe: {
      const double mean = s.sum / n;
      const double sd = std::sqrt(std::max(0.0, s.sum_sq / n - mean * mean));
      return sd > 0 ? mean / sd * std::sqrt(bars_per_year) : 0.0;
    }
    case Objective::sortino: {
      const double mean = s.sum / n, down = std::sqrt(s.down_sq / n);
      return down > 0 ? mean / down * std::sqrt(bars_per_year) : 0.0;
    }
    case Objective::total_return:
      return s.growth - 1.0;
    default:
      return objective_value(finalize(s, bars_per_year), o);
  }
}

// passes_constraints(finalize(s)) without the rest of finalize.
inline bool lean_passes(const Summary& s, const RankSpec& rank) {
  const int64_t trades =
      s.closed_trades + (s.head_pos != 0 ? 1 : 0) + (!s.single_run && s.tail_pos != 0 ? 1 : 0);
  if (trades < rank.min_trades) return false;
  if (!(s.drawdown <= rank.max_drawdown)) return false;
  if (rank.min_exposure) {
    const double exposure =
        static_cast<double>(s.long_bars + s.short_bars) / static_cast<double>(s.bars);
    if (!(exposure >= *rank.min_exposure)) return false;
  }
  return true;
}

// The left fold, in time order, of the blocks whose bits are set in `mask` (block b at
// row[b]): the IS or OOS half of a split, exactly as the plain walk joins it.
inline Summary fold_blocks(const Summary* row, uint32_t mask) {
  Summary s;
  for (uint32_t m = mask; m != 0; m &= m - 1) s = combine(s, row[std::countr_zero(m)]);
  return s;
}

// CSCV's participants: valid combos none of whose CSCV blocks keeps equity <= 0 (the
// drawdown combine needs positive equity, spec-notes 5); the others are counted in
// r.excluded_nonpositive. Checks the arguments as cscv_pbo documents; sets r.blocks,
// r.splits, r.combos and r.pbo = NaN.
std::vector<uint64_t> participants(std::span<const Summary> summaries,
                                   std::span<const uint8_t> take, size_t stride, size_t first_block,
                                   size_t blocks, PboResult& r);

}  // namespace wfod::selection::cscv
