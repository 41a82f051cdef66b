// The exact top-K (SPEC §7) from a backend's screened candidate list: a sweep that ranks by
// an objective computed in its own summation order (the CUDA stretch evaluator sums prefix
// differences per constant-position stretch) can order two exactly tied combos by an ulp the
// other way (docs/spec-notes.md item 13). settle_top() re-scores the screened candidates best
// first, in batches, in one canonical summation order for every combo, ranks them with TopK
// (ties by the lower id), and stops only when no candidate left, nor any combo outside the
// list, can still reach the K-th re-scored objective given the screen's error bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "wfod/ranking.hpp"

namespace wfod {

// A combo as the screen ranked it.
struct Screened {
  uint64_t id = 0;
  double objective = 0;  // the screen's objective (its own summation order)
};

// How far above a screened objective x the canonical one may lie (docs/spec-notes.md 13):
// kScreenRelative * max(1, |x|), or kScreenObservedFactor times the largest |screen -
// canonical| seen among the candidates re-scored so far, whichever is larger.
inline constexpr double kScreenRelative = 1e-8;
inline constexpr double kScreenObservedFactor = 4.0;
double screen_ceiling(double screened, double observed_error);

// Re-scores ids in the canonical order: per id, its Ranked entry, or nullopt when its
// canonical metrics fail a constraint (SPEC §7: not ranked).
using Rescore = std::function<std::vector<std::optional<Ranked>>(std::span<const uint64_t>)>;

struct SettleStats {
  bool settled = false;  // top holds the canonical top-K of every ranked combo
  size_t rescored = 0;   // candidates re-scored
  uint64_t dropped = 0;  // re-scored candidates whose canonical metrics fail a constraint
  double max_error = 0;  // largest |screen - canonical| objective seen
};

// list: the screen's best candidates, best first by ranks_before(screen objective, id), with
// every ranked combo not in it ranking after list.back() on the screen; complete: the list
// holds every ranked combo. Offers the re-scored candidates to `top` (capacity K) and
// re-scores batches of first_batch, then twice as many each time, until the next screened
// objective's ceiling is below the K-th canonical one (strictly: an equal one with a lower
// id would rank before it) or the list is exhausted. Not settled: the list ran out while a
// combo outside it could still enter the top K; the caller screens a longer list.
SettleStats settle_top(std::span<const Screened> list, bool complete, size_t first_batch,
                       const Rescore& rescore, TopK& top);

}  // namespace wfod
