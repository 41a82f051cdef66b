// A cpu sweep's ranking (SPEC §7) and its result: each worker ranks the combos it evaluates
// into its own top-K and tallies (no lock on the path of every combo), and the sweep merges
// them once its workers are done, whatever ran the combos (the built-in families' tiles or
// the rules' lane groups).
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/ranking.hpp"

namespace wfod::cpu {

class SweepRanking {
 public:
  // For `threads` workers ranking the valid combos of the request's grid (`count`).
  SweepRanking(const SweepRequest& req, const ComboCount& count, int threads);

  // Ranks combo c with metrics m, as worker `worker` (0 .. threads - 1).
  void offer(int worker, const Combo& c, const Metrics& m);

  // The sweep's result: its counts, the merged ranking, the reported combos' growth metrics
  // from their exact returns (src/growth_refine.hpp; `self` gives their positions, the
  // sweep's rows being gone by then) and the seconds since `start`.
  SweepResult result(Backend& self, std::chrono::steady_clock::time_point start) const;
  // The same with the reported combos' window returns (SPEC §2, bars [first, end) of the
  // request's window) from `window_returns` (a stream's, which holds no history from the anchor).
  using WindowReturns = std::function<std::vector<double>(const Combo&)>;
  SweepResult result(std::chrono::steady_clock::time_point start,
                     const WindowReturns& window_returns) const;

 private:
  const SweepRequest& req_;
  ComboCount count_;
  std::vector<TopK> tops_;
  std::vector<uint64_t> ranked_;
  std::vector<ConstraintTally> unranked_;
};

}  // namespace wfod::cpu
