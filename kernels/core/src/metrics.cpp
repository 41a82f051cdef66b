// Metric lookup by SPEC name, so output writers and tests never hand-list fields twice.
#include "wfod/metrics.hpp"

#include <stdexcept>
#include <string>

namespace wfod {

double metric_value(const Metrics& m, std::string_view name) {
  if (name == "total_return") return m.total_return;
  if (name == "cagr") return m.cagr;
  if (name == "sharpe") return m.sharpe;
  if (name == "sortino") return m.sortino;
  if (name == "max_drawdown") return m.max_drawdown;
  if (name == "calmar") return m.calmar;
  if (name == "trades") return static_cast<double>(m.trades);
  if (name == "wins") return static_cast<double>(m.wins);
  if (name == "win_rate") return m.win_rate;
  if (name == "profit_factor") return m.profit_factor;
  if (name == "exposure") return m.exposure;
  if (name == "long_bars") return static_cast<double>(m.long_bars);
  if (name == "short_bars") return static_cast<double>(m.short_bars);
  if (name == "flat_bars") return static_cast<double>(m.flat_bars);
  if (name == "changes") return static_cast<double>(m.changes);
  throw std::invalid_argument("unknown metric '" + std::string(name) + "'");
}

}  // namespace wfod
