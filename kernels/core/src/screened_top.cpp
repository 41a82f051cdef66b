// settle_top: the canonical top-K from a screened candidate list (screened_top.hpp).
#include "wfod/screened_top.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "wfod/detail/rank_math.hpp"

namespace wfod {

double screen_ceiling(double screened, double observed_error) {
  const double margin = std::max(kScreenRelative * std::max(1.0, std::fabs(screened)),
                                 kScreenObservedFactor * observed_error);
  return screened + margin;  // NaN stays NaN: nothing is known of a NaN screen
}

namespace {

// Whether no combo whose screened objective is at most `screened` can rank before the K-th
// entry of `top` once re-scored.
bool below_kth(const TopK& top, double screened, double observed_error) {
  if (top.capacity() == 0) return true;
  const std::vector<Ranked> kept = top.sorted();
  if (kept.size() < top.capacity()) return false;  // fewer than K ranked so far
  const double kth = kept.back().objective;
  // The list is ordered by rank key (SPEC v1.2 §7), so a combo after `screened` may screen up to
  // a key unit above it; and it ties the K-th entry (and wins with a lower id) whenever its
  // canonical objective shares that entry's key. So: the highest canonical objective any such
  // combo can have must lie in a lower key than the K-th's.
  const double ceiling = screen_ceiling(detail::rank_key_tie_ceiling(screened), observed_error);
  if (ceiling != ceiling || kth != kth) return false;  // nothing known: keep re-scoring
  return detail::rank_key(ceiling) < detail::rank_key(kth);
}

}  // namespace

SettleStats settle_top(std::span<const Screened> list, bool complete, size_t first_batch,
                       const Rescore& rescore, TopK& top) {
  SettleStats stats;
  if (top.capacity() == 0) {
    stats.settled = true;
    return stats;
  }
  size_t batch = std::max<size_t>(1, first_batch);
  std::vector<uint64_t> ids;
  while (stats.rescored < list.size()) {
    const size_t from = stats.rescored;
    const size_t n = std::min(batch, list.size() - from);
    ids.clear();
    for (size_t i = from; i < from + n; ++i) ids.push_back(list[i].id);
    const std::vector<std::optional<Ranked>> got = rescore(ids);
    if (got.size() != n)
      throw std::logic_error("settle_top: the re-score returned " + std::to_string(got.size()) +
                             " entries for " + std::to_string(n) + " ids");
    for (size_t i = 0; i < n; ++i) {
      if (!got[i]) {
        ++stats.dropped;
        continue;
      }
      const double error = std::fabs(got[i]->objective - list[from + i].objective);
      if (error == error) stats.max_error = std::max(stats.max_error, error);
      top.offer(*got[i]);
    }
    stats.rescored += n;
    batch *= 2;
    // Every candidate not re-scored yet, and every combo outside the list, has a screened
    // objective at most list[rescored]'s (or list.back()'s once the list is used up).
    const double next =
        stats.rescored < list.size() ? list[stats.rescored].objective : list.back().objective;
    if (stats.rescored == list.size() && complete) break;
    if (below_kth(top, next, stats.max_error)) {
      stats.settled = true;
      return stats;
    }
  }
  stats.settled = complete;
  return stats;
}

}  // namespace wfod
