// Walk-forward efficiency two ways, for every walk output (table, JSON, report). SPEC §8's
// WFE is the mean of the folds' OOS/IS CAGR ratios, which one fold's large ratio can swing
// (a fold at 8.0 lifts a losing walk to 0.99); the aggregate ratio compares the walk as a
// whole: the stitched OOS series' CAGR over the folds' in-sample CAGR pooled.
#pragma once

#include <optional>

#include "wfod/walk_forward.hpp"

namespace wfod::cli {

// The in-sample CAGR of all folds pooled: each fold's winner's in-sample total return
// compounded in turn, annualised over the sum of the folds' IS bars,
// (prod_f (1 + total_return_f))^(A / sum_f W_f) - 1, or -1 when a factor is <= 0 (SPEC §6's
// rule). A fold without a winner counts flat (factor 1) over its IS bars, as its OOS bars
// count flat in the stitched series. 0 with no fold.
double pooled_is_cagr(const WalkResult&, double bars_per_year);

// WFE, aggregate = the stitched OOS series' CAGR / pooled_is_cagr; none (undefined) when
// the pooled IS CAGR is not > 0.
std::optional<double> aggregate_wfe(const WalkResult&, double bars_per_year);

}  // namespace wfod::cli
