// Ranking (SPEC §7): objective selection, constraints, and a bounded top-K whose result
// does not depend on the order candidates arrive in (ties break by lower combo id).
#include "wfod/ranking.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "wfod/detail/rank_math.hpp"

namespace wfod {

namespace {
constexpr std::pair<std::string_view, Objective> kObjectives[] = {
    {"sharpe", Objective::sharpe}, {"sortino", Objective::sortino},
    {"calmar", Objective::calmar}, {"total_return", Objective::total_return},
    {"cagr", Objective::cagr},     {"profit_factor", Objective::profit_factor}};
}  // namespace

std::string_view to_string(Objective o) {
  for (const auto& [name, v] : kObjectives)
    if (v == o) return name;
  return "?";
}

Objective parse_objective(std::string_view s) {
  for (const auto& [name, v] : kObjectives)
    if (name == s) return v;
  throw std::invalid_argument("unknown objective '" + std::string(s) +
                              "' (expected sharpe|sortino|calmar|total_return|cagr|profit_factor)");
}

double objective_value(const Metrics& m, Objective o) { return detail::objective_of(m, o); }

bool passes_constraints(const Metrics& m, const RankSpec& spec) {
  return detail::within_limits(m, spec.min_trades, spec.max_drawdown, spec.min_exposure.has_value(),
                               spec.min_exposure.value_or(0.0));
}

void ConstraintTally::count(const Metrics& m, const RankSpec& spec) {
  const unsigned failed =
      detail::failed_limits(m, spec.min_trades, spec.max_drawdown, spec.min_exposure.has_value(),
                            spec.min_exposure.value_or(0.0));
  min_trades += (failed & detail::kFailsMinTrades) != 0;
  max_drawdown += (failed & detail::kFailsMaxDrawdown) != 0;
  min_exposure += (failed & detail::kFailsMinExposure) != 0;
}

void ConstraintTally::merge(const ConstraintTally& o) {
  min_trades += o.min_trades;
  max_drawdown += o.max_drawdown;
  min_exposure += o.min_exposure;
}

bool ranks_before(double obj_a, uint64_t id_a, double obj_b, uint64_t id_b) {
  return detail::ranks_before(obj_a, id_a, obj_b, id_b);
}

namespace {
// Heap order: the worst kept candidate sits at the front.
bool better(const Ranked& a, const Ranked& b) {
  return ranks_before(a.objective, a.combo.id, b.objective, b.combo.id);
}
}  // namespace

void TopK::offer(const Ranked& r) {
  if (k_ == 0) return;
  if (heap_.size() < k_) {
    heap_.push_back(r);
    std::push_heap(heap_.begin(), heap_.end(), better);
  } else if (better(r, heap_.front())) {
    std::pop_heap(heap_.begin(), heap_.end(), better);
    heap_.back() = r;
    std::push_heap(heap_.begin(), heap_.end(), better);
  }
}

void TopK::merge(const TopK& other) {
  for (const auto& r : other.heap_) offer(r);
}

std::vector<Ranked> TopK::sorted() const {
  std::vector<Ranked> out = heap_;
  std::sort(out.begin(), out.end(), better);
  return out;
}

}  // namespace wfod
