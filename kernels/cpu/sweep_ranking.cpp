// sweep_ranking.hpp: per-worker top-K and tallies, merged into a cpu sweep's result.
#include "sweep_ranking.hpp"

#include "src/growth_refine.hpp"
#include "wfod/combo_returns.hpp"

namespace wfod::cpu {

SweepRanking::SweepRanking(const SweepRequest& req, const ComboCount& count, int threads)
    : req_(req),
      count_(count),
      tops_(static_cast<size_t>(threads), TopK(req.rank.top)),
      ranked_(static_cast<size_t>(threads), 0),
      unranked_(static_cast<size_t>(threads)) {}

void SweepRanking::offer(int worker, const Combo& c, const Metrics& m) {
  const auto w = static_cast<size_t>(worker);
  if (!passes_constraints(m, req_.rank)) {
    unranked_[w].count(m, req_.rank);
    return;
  }
  ++ranked_[w];
  tops_[w].offer({c, m, objective_value(m, req_.rank.objective)});
}

SweepResult SweepRanking::result(Backend& self, std::chrono::steady_clock::time_point start) const {
  const SweepRequest& req = req_;
  return result(start, [&](const Combo& c) {
    return combo_returns(self, req.history, req.strategy, c, req.window.first(), req.window.end);
  });
}

SweepResult SweepRanking::result(std::chrono::steady_clock::time_point start,
                                 const WindowReturns& window_returns) const {
  SweepResult result;
  result.backend = "cpu";
  result.evaluated = count_.valid;
  result.skipped = count_.invalid();
  TopK top(req_.rank.top);
  for (const auto& t : tops_) top.merge(t);
  for (auto r : ranked_) result.ranked += r;
  result.unranked_by.emplace();
  for (const auto& u : unranked_) result.unranked_by->merge(u);
  result.top = top.sorted();
  detail::refine_growth(result.top, req_.rank, req_.strategy.bars_per_year, window_returns);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace wfod::cpu
