// Probability of backtest overfitting by combinatorially symmetric cross-validation
// (Bailey, Borwein, López de Prado & Zhu 2015; docs/spec-10-selection.md §10.4), from
// per-block Summary records: every split's IS and OOS metrics are combine()s of blocks,
// never a re-run of the strategy.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wfod/ranking.hpp"
#include "wfod/summary.hpp"

namespace wfod::selection {

struct PboResult {
  size_t blocks = 0;                  // S
  uint64_t splits = 0;                // C(S, S/2)
  uint64_t splits_with_winner = 0;    // splits whose IS half ranked some combo
  uint64_t combos = 0;                // N: valid combos taking part
  uint64_t excluded_nonpositive = 0;  // valid combos left out: equity <= 0 in some block
  double pbo = 0;                     // fraction of splits with logit <= 0 (NaN: none)
  std::vector<double> logits;         // one per split with a winner, in split order
  // Logit quantiles (type 7): min, q05, q25, median, q75, q95, max; and the mean.
  double q[7] = {};
  double mean_logit = 0;
  // Histogram: `hist_bins` equal bins over [-ln N, ln N] (every logit lies there).
  double hist_lo = 0, hist_hi = 0;
  std::vector<uint64_t> histogram;
  // Performance degradation: OLS of OOS objective on IS objective of the selected combos
  // (splits with both finite); slope NaN when the IS values do not vary.
  double slope = 0, intercept = 0;
  uint64_t regression_points = 0;
  double prob_oos_loss = 0;  // fraction of selected combos with OOS objective < 0
};

// One split of CSCV once its IS winner is known: that winner's IS and OOS objectives and its
// OOS rank among the participants (how many are below it, how many tie with it).
struct CscvSplit {
  bool has_winner = false;  // some participant ranked in sample
  double is_obj = 0, oos_obj = 0;
  uint64_t under = 0, ties = 0;
};

// The statistics of §10.4 from every split's outcome, in split order, over `participants`
// combos: pbo, logits, quantiles, histogram, degradation slope, prob_oos_loss. Every
// implementation of the splits (the host's cscv_pbo, the cuda backend's) ends here, so the
// results agree to the bit. `r.blocks`, `r.splits`, `r.combos` and
// `r.excluded_nonpositive` are the caller's.
void finish_pbo(std::span<const CscvSplit> splits, uint64_t participants, size_t hist_bins,
                PboResult& r);

// `summaries`: combo-major, `combos` x `stride` (Backend::block_summaries layout); the CSCV
// blocks are columns first_block .. first_block + S - 1. `take[i]` says whether combo i is a
// valid combo (invalid ones have identity summaries and are skipped). Needs S even, 2..20.
// `threads` workers over splits (0 = all cores); the result does not depend on it.
// Runs the screened walk (docs/spec-10-selection.md §10.6) where it applies (objective
// sharpe, sortino or total_return; CSCV blocks of equal bar counts), else the plain walk:
// the two agree bit for bit.
PboResult cscv_pbo(std::span<const Summary> summaries, std::span<const uint8_t> take, size_t stride,
                   size_t first_block, size_t blocks, const RankSpec&, double bars_per_year,
                   int threads = 0, size_t hist_bins = 20);

// Whether cscv_pbo can take the screened walk for this objective (it also needs CSCV blocks
// of equal bar counts); the other objectives always take the plain one.
bool cscv_screened(Objective);

// The plain walk, the oracle of the screened one: every split's IS winner and OOS rank from
// exact objectives of joined Summaries, one participant after another.
PboResult cscv_pbo_plain(std::span<const Summary> summaries, std::span<const uint8_t> take,
                         size_t stride, size_t first_block, size_t blocks, const RankSpec&,
                         double bars_per_year, int threads = 0, size_t hist_bins = 20);

}  // namespace wfod::selection
