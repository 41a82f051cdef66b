// The reported combos' growth metrics from exact total returns (growth_refine.hpp).
#include "src/growth_refine.hpp"

#include <algorithm>
#include <cmath>

#include "wfod/detail/exact_growth.hpp"

namespace wfod::detail {
namespace {

bool depends_on_growth(Objective o) {
  return o == Objective::total_return || o == Objective::cagr || o == Objective::calmar;
}

}  // namespace

double exact_total_return(std::span<const double> returns) {
  ExactGrowth g;
  for (double s : returns) g.times_one_plus(s);
  return g.total_return();
}

void set_total_return(Metrics& m, double total_return, double bars_per_year) {
  if (m.bars <= 0) return;
  m.total_return = total_return;
  const double n = static_cast<double>(m.bars);
  m.cagr = total_return <= -1.0 ? -1.0 : std::expm1(bars_per_year / n * std::log1p(total_return));
  m.calmar = m.max_drawdown != 0 ? m.cagr / m.max_drawdown : 0.0;
}

void refine_growth(std::vector<Ranked>& top, const RankSpec& rank, double bars_per_year,
                   const std::function<std::vector<double>(const Combo&)>& window_returns) {
  const bool objective_moves = depends_on_growth(rank.objective);
  for (Ranked& r : top) {
    set_total_return(r.metrics, exact_total_return(window_returns(r.combo)), bars_per_year);
    if (objective_moves) r.objective = objective_value(r.metrics, rank.objective);
  }
  if (objective_moves)
    std::stable_sort(top.begin(), top.end(), [](const Ranked& a, const Ranked& b) {
      return ranks_before(a.objective, a.combo.id, b.objective, b.combo.id);
    });
}

}  // namespace wfod::detail
