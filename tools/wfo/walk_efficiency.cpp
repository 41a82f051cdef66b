// Walk-forward efficiency two ways: see walk_efficiency.hpp for the definitions.
#include "walk_efficiency.hpp"

#include <cmath>

namespace wfod::cli {

double pooled_is_cagr(const WalkResult& r, double bars_per_year) {
  if (r.folds.empty()) return 0;
  double growth = 1;
  double bars = 0;
  for (const Fold& f : r.folds) {
    const double factor = 1 + f.is.total_return;  // 1 for a fold without a winner
    if (factor <= 0) return -1;
    growth *= factor;
    bars += static_cast<double>(f.is_last - f.is_first + 1);
  }
  // As Metrics::cagr is computed, so one fold's pooled CAGR is that fold's IS CAGR.
  return std::pow(growth, bars_per_year / bars) - 1.0;
}

std::optional<double> aggregate_wfe(const WalkResult& r, double bars_per_year) {
  const double is_cagr = pooled_is_cagr(r, bars_per_year);
  if (!(is_cagr > 0)) return std::nullopt;
  return r.oos.cagr / is_cagr;
}

}  // namespace wfod::cli
