// The screened CSCV walk (docs/spec-10-selection.md §10.6, host): cscv_pbo's answer, bit for
// bit, from float screens decided exactly wherever a band could change an outcome. Internal:
// pbo.cpp calls it, the tests compare it with cscv_pbo_plain on every kernel variant.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "cscv_walk.hpp"
#include "wfod/selection/pbo.hpp"

namespace wfod::selection::cscv {

// What a run did (for tests and the bench): how many participants the walk had to check
// (constraints that may fail on some half-set) or to guard, whether it folded drawdowns, and
// how many exact objectives the decisions needed.
struct FastStats {
  uint64_t checked = 0;
  uint64_t guarded = 0;  // participants whose screen guard may fail on some half-set
  bool drawdown = false;
  uint64_t units = 0;
  uint64_t exact = 0;
};

// nullopt where the screened walk does not apply: objectives other than sharpe, sortino and
// total_return; CSCV blocks of unequal bar counts; half-sets of 2^30 bars or more. Arguments
// are checked (std::invalid_argument) as cscv_pbo_plain checks them.
std::optional<PboResult> cscv_pbo_fast(std::span<const Summary> summaries,
                                       std::span<const uint8_t> take, size_t stride,
                                       size_t first_block, size_t blocks, const RankSpec&,
                                       double bars_per_year, int threads, size_t hist_bins,
                                       const WalkKernels& kernels = walk_kernels(),
                                       FastStats* stats = nullptr);

}  // namespace wfod::selection::cscv
