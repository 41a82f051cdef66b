// PBO via CSCV (docs/spec-10-selection.md §10.4). Splits are the S/2-subsets of the S
// blocks, reported in increasing bitmask order; workers take subtrees of splits from a
// counter and write only their splits' slots, so the result does not depend on threads.
#include "wfod/selection/pbo.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "cscv_exact.hpp"
#include "cscv_fast.hpp"
#include "src/worker_pool.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod::selection {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double quantile_sorted(const std::vector<double>& v, double q) {
  const double h = static_cast<double>(v.size() - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= v.size()) return v[lo];
  return v[lo] + (h - static_cast<double>(lo)) * (v[lo + 1] - v[lo]);
}

}  // namespace

void finish_pbo(std::span<const CscvSplit> splits, uint64_t participants, size_t hist_bins,
                PboResult& r) {
  r.pbo = kNaN;
  r.splits_with_winner = 0;
  r.logits.clear();
  uint64_t overfit = 0, losses = 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const CscvSplit& o : splits) {
    if (!o.has_winner) continue;
    // Relative rank in (0, 1): rank 1..N (ties at their mid-rank) over N + 1.
    const double omega = (1.0 + static_cast<double>(o.under) + 0.5 * static_cast<double>(o.ties)) /
                         static_cast<double>(participants + 1);
    const double logit = std::log(omega / (1 - omega));
    ++r.splits_with_winner;
    r.logits.push_back(logit);
    overfit += logit <= 0 ? 1 : 0;
    losses += o.oos_obj < 0 ? 1 : 0;
    if (std::isfinite(o.is_obj) && std::isfinite(o.oos_obj)) {
      ++r.regression_points;
      sx += o.is_obj;
      sy += o.oos_obj;
    }
  }
  if (r.logits.empty()) return;
  const double m = static_cast<double>(r.splits_with_winner);
  r.pbo = static_cast<double>(overfit) / m;
  r.prob_oos_loss = static_cast<double>(losses) / m;

  std::vector<double> sorted = r.logits;
  std::sort(sorted.begin(), sorted.end());
  const double qs[7] = {0, 0.05, 0.25, 0.5, 0.75, 0.95, 1};
  for (int i = 0; i < 7; ++i) r.q[i] = quantile_sorted(sorted, qs[i]);
  double sum = 0;
  for (double x : r.logits) sum += x;
  r.mean_logit = sum / m;

  r.hist_hi = std::log(static_cast<double>(participants));
  r.hist_lo = -r.hist_hi;
  r.histogram.assign(hist_bins, 0);
  for (double x : r.logits) {
    const double f = (x - r.hist_lo) / (r.hist_hi - r.hist_lo) * static_cast<double>(hist_bins);
    const size_t bin = static_cast<size_t>(std::clamp(f, 0.0, static_cast<double>(hist_bins - 1)));
    ++r.histogram[bin];
  }

  // OLS in centred form (two passes) for accuracy.
  r.slope = r.intercept = kNaN;
  if (r.regression_points > 0) {
    const double k = static_cast<double>(r.regression_points);
    const double mx = sx / k, my = sy / k;
    for (const CscvSplit& o : splits) {
      if (!o.has_winner || !std::isfinite(o.is_obj) || !std::isfinite(o.oos_obj)) continue;
      sxx += (o.is_obj - mx) * (o.is_obj - mx);
      sxy += (o.is_obj - mx) * (o.oos_obj - my);
    }
    if (sxx > 0) {
      r.slope = sxy / sxx;
      r.intercept = my - r.slope * mx;
    } else {
      r.intercept = my;
    }
  }
}

namespace cscv {

std::vector<uint64_t> participants(std::span<const Summary> summaries,
                                   std::span<const uint8_t> take, size_t stride, size_t first_block,
                                   size_t blocks, PboResult& r) {
  if (blocks < 2 || blocks > 20 || blocks % 2 != 0)
    throw std::invalid_argument("PBO needs an even block count in 2..20, got " +
                                std::to_string(blocks));
  if (first_block + blocks > stride || summaries.size() != take.size() * stride)
    throw std::invalid_argument("PBO: summaries do not match the block layout");
  r.blocks = blocks;
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < take.size(); ++i) {
    if (!take[i]) continue;
    bool ok = true;
    for (size_t b = 0; b < blocks; ++b)
      ok = ok && !summaries[i * stride + first_block + b].nonpositive;
    if (ok) {
      ids.push_back(i);
    } else {
      ++r.excluded_nonpositive;
    }
  }
  r.combos = ids.size();
  uint64_t splits = 1;  // C(S, S/2)
  for (uint64_t k = 1; k <= blocks / 2; ++k) splits = splits * (blocks / 2 + k) / k;
  r.splits = splits;
  r.pbo = kNaN;
  return ids;
}

}  // namespace cscv

bool cscv_screened(Objective o) {
  return o == Objective::sharpe || o == Objective::sortino || o == Objective::total_return;
}

PboResult cscv_pbo(std::span<const Summary> summaries, std::span<const uint8_t> take, size_t stride,
                   size_t first_block, size_t blocks, const RankSpec& rank, double bars_per_year,
                   int threads, size_t hist_bins) {
  if (auto fast = cscv::cscv_pbo_fast(summaries, take, stride, first_block, blocks, rank,
                                      bars_per_year, threads, hist_bins))
    return std::move(*fast);
  return cscv_pbo_plain(summaries, take, stride, first_block, blocks, rank, bars_per_year, threads,
                        hist_bins);
}

PboResult cscv_pbo_plain(std::span<const Summary> summaries, std::span<const uint8_t> take,
                         size_t stride, size_t first_block, size_t blocks, const RankSpec& rank,
                         double bars_per_year, int threads, size_t hist_bins) {
  using cscv::lean_objective;
  using cscv::lean_passes;
  PboResult r;
  // Participants: valid combos whose CSCV blocks all keep equity positive (the drawdown
  // combine needs it, spec-notes 5; such combos are rare and would need a replay per split).
  const std::vector<uint64_t> ids =
      cscv::participants(summaries, take, stride, first_block, blocks, r);
  std::vector<uint32_t> masks;
  for (uint32_t m = 0; m < (1u << blocks); ++m)
    if (static_cast<size_t>(std::popcount(m)) == blocks / 2) masks.push_back(m);
  if (ids.size() < 2) return r;  // no selection among fewer than two combos

  std::vector<CscvSplit> outcome(masks.size());
  const size_t n = ids.size();
  // Splits are the leaves of a binary tree over blocks 0..S-1 (each block IS or OOS, at
  // most S/2 of each); each worker walks whole subtrees below a prefix of `depth0` blocks,
  // keeping per combo the running IS and OOS concatenations (one combine per tree edge
  // instead of S per split: ~5x fewer for S = 16). Left-to-right joins in time order, as
  // one split at a time would do, so every value is bit-identical to the direct loop.
  const size_t half = blocks / 2;
  const size_t depth0 = std::min<size_t>(blocks, 6);
  std::vector<uint32_t> prefixes;  // feasible assignments of blocks 0..depth0-1
  for (uint32_t p = 0; p < (1u << depth0); ++p)
    if (static_cast<size_t>(std::popcount(p)) <= half &&
        depth0 - static_cast<size_t>(std::popcount(p)) <= half)
      prefixes.push_back(p);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    // Per worker, allocated once: running IS / OOS joins by count of blocks taken.
    std::vector<Summary> is_part((half + 1) * n), oos_part((half + 1) * n);
    std::vector<double> oos(n);
    auto leaf = [&](uint32_t mask) {
      const Summary* is_row = &is_part[half * n];
      const Summary* oos_row = &oos_part[half * n];
      size_t best = n;
      double best_obj = 0;
      for (size_t k = 0; k < n; ++k) {
        oos[k] = lean_objective(oos_row[k], rank.objective, bars_per_year);
        if (!lean_passes(is_row[k], rank)) continue;
        const double obj = lean_objective(is_row[k], rank.objective, bars_per_year);
        if (best == n || ranks_before(obj, ids[k], best_obj, ids[best])) {
          best = k;
          best_obj = obj;
        }
      }
      const size_t s =
          static_cast<size_t>(std::lower_bound(masks.begin(), masks.end(), mask) - masks.begin());
      if (best == n) return;  // nothing ranked in sample: no selection in this split
      size_t under = 0, ties = 0;
      for (size_t k = 0; k < n; ++k) {
        if (cscv::below(oos[k], oos[best])) ++under;
        if (k != best && cscv::same(oos[k], oos[best])) ++ties;
      }
      outcome[s] = {true, best_obj, oos[best], under, ties};
    };
    // Takes block b into IS (bit set) or OOS, then descends.
    auto take_block = [&](size_t b, bool in_is, size_t ni, size_t no) {
      std::vector<Summary>& part = in_is ? is_part : oos_part;
      const size_t from = (in_is ? ni : no) * n, to = from + n;
      for (size_t k = 0; k < n; ++k)
        part[to + k] = combine(part[from + k], summaries[ids[k] * stride + first_block + b]);
    };
    auto descend = [&](auto& self, size_t b, size_t ni, size_t no, uint32_t mask) -> void {
      if (b == blocks) return leaf(mask);
      if (ni < half) {
        take_block(b, true, ni, no);
        self(self, b + 1, ni + 1, no, mask | (1u << b));
      }
      if (no < half) {
        take_block(b, false, ni, no);
        self(self, b + 1, ni, no + 1, mask);
      }
    };
    for (size_t t; (t = next.fetch_add(1)) < prefixes.size();) {
      const uint32_t p = prefixes[t];
      size_t ni = 0, no = 0;
      for (size_t b = 0; b < depth0; ++b) {
        const bool in_is = (p >> b & 1u) != 0;
        take_block(b, in_is, ni, no);
        (in_is ? ni : no) += 1;
      }
      descend(descend, depth0, ni, no, p);
    }
  };
  int workers = wfod::resolve_threads(threads);
  workers = std::min<int>(workers, static_cast<int>(prefixes.size()));
  wfod::detail::run_workers(workers, [&](int) { worker(); });

  finish_pbo(outcome, n, hist_bins, r);
  return r;
}

}  // namespace wfod::selection
