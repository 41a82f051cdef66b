// The request checks every backend shares (SPEC §3) and the precision names.
#include <stdexcept>
#include <string>

#include "wfod/backend.hpp"

namespace wfod {

std::string_view to_string(Precision p) { return p == Precision::exact ? "exact" : "fast"; }

Precision parse_precision(std::string_view s) {
  if (s == "exact") return Precision::exact;
  if (s == "fast") return Precision::fast;
  throw std::invalid_argument("unknown precision '" + std::string(s) + "' (expected exact|fast)");
}

size_t default_warmup(const Grid& grid) { return 3 * static_cast<size_t>(grid.max_period()); }

void check_window(const SweepRequest& req) {
  check_window(req.window, req.history.size(), req.strategy);
}

void check_window(const WindowSpec& w, size_t n, const StrategySpec& strategy) {
  if (w.bars < 1) throw std::invalid_argument("window must hold at least 1 bar");
  if (w.end > n)
    throw std::invalid_argument("window ends at bar " + std::to_string(w.end) +
                                " but the history has " + std::to_string(n) + " bars");
  if (w.end < w.bars + 1 + w.warmup)
    throw std::invalid_argument(
        "window of " + std::to_string(w.bars) + " bars ending at bar " + std::to_string(w.end) +
        " leaves fewer than warmup = " + std::to_string(w.warmup) +
        " bars before it (SPEC §3 needs T - W - 1 >= warmup; at most " +
        std::to_string(w.end > w.warmup + 1 ? w.end - w.warmup - 1 : 0) + " bars fit)");
  if (strategy.grid.size() == 0) throw std::invalid_argument("the parameter grid is empty");
  strategy.grid.validate();
  if (!(strategy.bars_per_year > 0)) throw std::invalid_argument("bars_per_year must be > 0");
  if (!(strategy.costs.per_unit() >= 0)) throw std::invalid_argument("costs must be >= 0");
}

}  // namespace wfod
