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

// Half of SPEC §9's tolerance around x.
double half_tolerance(double x) { return 0.5 * std::max(1e-9 * std::abs(x), 1e-12); }

}  // namespace

bool plain_growth_suffices(const Metrics& m, double bars_per_year) {
  if (m.bars <= 0) return true;
  const double tr = m.total_return, cagr = m.cagr, calmar = m.calmar;
  if (!std::isfinite(tr) || !std::isfinite(cagr) || !std::isfinite(calmar) || 1.0 + tr <= 0.0)
    return false;
  constexpr double u = 0x1p-53;  // unit roundoff
  const double n = static_cast<double>(m.bars);
  // The product's relative error: 1 + s_t and each product rounded (2n u), the joins of its
  // chunks (at most n more), and slack.
  const double product = (3.0 * n + 64.0) * u;
  const double err_tr = product * (1.0 + tr);
  // cagr = (1 + tr)^(A/n) - 1: the base's relative error times A/n, 1 + tr's and pow's own.
  const double err_cagr = ((bars_per_year / n) * (product + u) + 2.0 * u) * (1.0 + cagr);
  const bool calmar_ok =
      m.max_drawdown == 0.0 || err_cagr / m.max_drawdown <= half_tolerance(calmar);
  return err_tr <= half_tolerance(tr) && err_cagr <= half_tolerance(cagr) && calmar_ok;
}

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
    if (plain_growth_suffices(r.metrics, bars_per_year)) continue;
    set_total_return(r.metrics, exact_total_return(window_returns(r.combo)), bars_per_year);
    if (objective_moves) r.objective = objective_value(r.metrics, rank.objective);
  }
  if (objective_moves)
    std::stable_sort(top.begin(), top.end(), [](const Ranked& a, const Ranked& b) {
      return ranks_before(a.objective, a.combo.id, b.objective, b.combo.id);
    });
}

}  // namespace wfod::detail
