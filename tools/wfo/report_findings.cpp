// The report's findings in words: a winner on the edge of the grid, out-of-sample losses.
#include "report_findings.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "params.hpp"
#include "wfod/grid_params.hpp"

namespace wfod::cli {
namespace {

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", v * 100);
  return buf;
}

std::string joined(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

constexpr std::string_view kEdgeAdvice =
    "the best parameters may lie outside the range searched: widen the grid past that edge "
    "before trusting them.";

}  // namespace

std::vector<std::string> edge_parameters(const Grid& g, const Combo& winner) {
  std::vector<std::string> out;
  const std::vector<ParamValue> params = combo_params(winner);
  for (const AxisValues& axis : axis_values(g)) {
    if (axis.kind == ParamKind::name || axis.size() < 2) continue;
    const auto [lo, hi] = std::minmax_element(axis.numbers.begin(), axis.numbers.end());
    const auto p = std::find_if(params.begin(), params.end(),
                                [&](const ParamValue& v) { return v.name == axis.name; });
    if (p == params.end()) continue;
    const std::string name(axis.name);
    if (p->number == *lo)
      out.push_back(name + " = " + param_value_text(*p) + ", the lowest value tried");
    if (p->number == *hi)
      out.push_back(name + " = " + param_value_text(*p) + ", the highest value tried");
  }
  return out;
}

std::vector<std::string> walk_findings(const WalkReport& r) {
  std::vector<std::string> out;
  const WalkResult& res = r.result;
  if (res.oos.total_return < 0) {
    out.push_back("Out of sample this walk lost money: total return " +
                  percent(res.oos.total_return) + " (CAGR " + percent(res.oos.cagr) +
                  " a year) over " + std::to_string(res.oos.bars) +
                  " bars traded with each fold's in-sample winner.");
  }
  size_t with_winner = 0;
  std::vector<std::string> examples;  // "fold 3: fast = 5, the lowest value tried"
  size_t on_edge = 0;
  for (const Fold& f : res.folds) {
    if (!f.winner) continue;
    ++with_winner;
    const std::vector<std::string> edges = edge_parameters(r.spec.grid, f.winner->combo);
    if (edges.empty()) continue;
    ++on_edge;
    if (examples.size() < 3) {
      examples.push_back("fold " + std::to_string(f.index) + ": " + joined(edges, ", "));
    }
  }
  if (on_edge > 0) {
    out.push_back("The winner sits on the edge of the grid in " + std::to_string(on_edge) + " of " +
                  std::to_string(with_winner) + " folds (" + joined(examples, "; ") +
                  (on_edge > examples.size() ? "; ..." : "") + "): " + std::string(kEdgeAdvice));
  }
  return out;
}

std::vector<std::string> sweep_findings(const SweepReport& r) {
  std::vector<std::string> out;
  if (r.result.top.empty()) return out;
  const Ranked& top = r.result.top.front();
  if (top.metrics.total_return < 0) {
    out.push_back("Even the top combo lost money on this window: total return " +
                  percent(top.metrics.total_return) + ", in sample.");
  }
  const std::vector<std::string> edges = edge_parameters(r.spec.grid, top.combo);
  if (!edges.empty()) {
    out.push_back("The top combo sits on the edge of the grid (" + joined(edges, "; ") +
                  "): " + std::string(kEdgeAdvice));
  }
  return out;
}

}  // namespace wfod::cli
