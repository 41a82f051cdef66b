// The up-front plan of a sweep or walk (run_plan.hpp): combo counts, memory by phase, a
// rough time, and the checks that stop a run which cannot succeed before it starts.
#include "run_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "args.hpp"
#include "report_data.hpp"
#include "text_table.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/summary.hpp"

namespace wfod::cli {

namespace {

// Memory of the engine's data structures, per unit, as the code allocates them.
constexpr double kProcessBytes = 8 << 20;      // the program, its libraries and stacks
constexpr double kHistoryBytesPerBar = 7 * 8;  // Series: ts, OHLCV, and the close copy
constexpr double kGroupBytesPerCombo = 9;      // lane groups: 8 ids + a header per 8 combos
// Robust selection's arrays per combo of the grid (objective, per-period Sharpe, state),
// plus the plateau scores when on; and per valid combo, the Sharpes the DSR's variance reads.
constexpr double kSelectionBytesPerCombo = 8 + 8 + 1;
constexpr double kPlateauBytesPerCombo = 8;
constexpr double kDsrBytesPerValidCombo = 8;
constexpr size_t kSelectionEvaluateBatch = size_t{1} << 16;  // score_grid_by_evaluate's chunk
// The report's landscape per valid combo (id, objective, ranked flag) and its share of
// report.json / objective.csv text, measured on grids of 10^4..10^6 combos.
constexpr double kReportBytesPerCombo = 17 + 160;

// Rough costs on the 2-core development machine: combo-bars per second per thread (`wfo
// bench` gives 1e8 on short periods; long windows of minute bars ran at 2e7-1e8), and the
// seconds per indicator value of a row (compensated sliding sums; each sweep builds its rows
// over the whole history).
constexpr double kCpuComboBarsPerThreadSecond = 5e7;
constexpr double kCpuRefComboBarsPerSecond = 2e6;  // one thread, whatever --threads
constexpr double kSecondsPerIndicatorValue = 8e-8;

std::string axis_range(const std::vector<int>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + ".." + std::to_string(*hi);
}

// The family rule's axes with their ranges: "fast >= slow (fast 5..50, slow 5..20)".
std::string family_rule_detail(const Grid& g) {
  std::string rule(family_rule_text(g.family));
  switch (g.family) {
    case Family::ma_cross:
      return rule + " (fast " + axis_range(g.fast) + ", slow " + axis_range(g.slow) + ")";
    case Family::bollinger:
    case Family::rsi_reversion:
      return rule + " (n " + axis_range(g.n) + ")";
    case Family::channel_breakout:
      break;
  }
  return rule;
}

std::string_view family_rule_need(Family f) {
  switch (f) {
    case Family::ma_cross:
      return "fast < slow";
    case Family::bollinger:
      return "n >= 2 and k > 0";
    case Family::rsi_reversion:
      return "n >= 2 and lo < hi";
    case Family::channel_breakout:
      break;
  }
  return "";
}

[[noreturn]] void no_valid_combo(const Grid& g, const ComboCount& c) {
  std::string why;
  const bool family = c.family_rule > 0, vol = c.vol_short_not_below_long > 0;
  const std::string rule = family ? family_rule_detail(g) : "";
  const std::string family_name(to_string(g.family));
  const std::string vols = vol ? "vol_short >= vol_long (vol_short " + axis_range(g.vol_short) +
                                     ", vol_long " + axis_range(g.vol_long) + ")"
                               : "";
  if (family && !vol) {
    why = "every one has " + rule + "; " + family_name + " needs " +
          std::string(family_rule_need(g.family));
  } else if (vol && !family) {
    why = "every one has " + vols + "; the vol filter needs vol_short < vol_long";
  } else {
    why = grouped(c.family_rule) + " have " + rule + " and " + grouped(c.vol_short_not_below_long) +
          " have " + vols + "; a valid combo needs " + std::string(family_rule_need(g.family)) +
          " and vol_short < vol_long";
  }
  throw InputError("no valid combo in the grid: of its " + grouped(c.total) + " combos, " + why +
                   " (SPEC §5)");
}

}  // namespace

int hardware_threads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::string bytes_text(double bytes) {
  char buf[32];
  if (bytes >= double(1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
  } else if (bytes >= double(1 << 20)) {
    std::snprintf(buf, sizeof buf, "%.0f MiB", bytes / double(1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%.0f KiB", std::ceil(bytes / 1024));
  }
  return buf;
}

std::string duration_text(double s) {
  char buf[32];
  if (s < 1) return "< 1 s";
  if (s < 120) {
    std::snprintf(buf, sizeof buf, "~%.0f s", s);
  } else if (s < 7200) {
    std::snprintf(buf, sizeof buf, "~%.0f min", s / 60);
  } else if (s < 2 * 86400) {
    std::snprintf(buf, sizeof buf, "~%.1f h", s / 3600);
  } else if (s < 2 * 365 * 86400.0) {
    std::snprintf(buf, sizeof buf, "~%.0f days", s / 86400);
  } else {
    std::snprintf(buf, sizeof buf, "~%.0f years", s / (365 * 86400.0));
  }
  return buf;
}

RunPlan plan_run(const PlanInputs& in) {
  RunPlan p;
  const Grid& g = in.grid;
  p.combos = count_combos(g);
  if (p.combos.valid == 0) no_valid_combo(g, p.combos);
  p.series = indicator_series(g);

  const double bars = static_cast<double>(in.history_bars);
  const double row = bars * sizeof(double);
  const double total = static_cast<double>(p.combos.total);
  const double valid = static_cast<double>(p.combos.valid);
  const double history = kProcessBytes + bars * kHistoryBytesPerBar;
  const double tables = 2 * row;
  p.all_series_bytes = static_cast<double>(p.series) * row;

  // Per-combo arrays that live while the engine evaluates chunks (selection), or after it.
  const auto& sel = in.selection_spec;
  const size_t S = sel.pbo_blocks;
  const bool pbo = p.pbo =
      in.selection && selection::pbo_applies(sel, p.combos.valid, in.window_bars);
  double selection_arrays = 0;
  if (in.selection) {
    selection_arrays =
        total * (kSelectionBytesPerCombo + (sel.plateau ? kPlateauBytesPerCombo : 0)) +
        valid * kDsrBytesPerValidCombo;
  }
  const bool landscape = in.report && p.combos.valid <= kReportMaxCombos;
  const double landscape_windows = in.windows > 1 && valid * static_cast<double>(in.windows) <=
                                                         static_cast<double>(kReportMaxCombos)
                                       ? static_cast<double>(in.windows)
                                       : 1;
  const double report_arrays = landscape ? valid * landscape_windows * kReportBytesPerCombo : 0;

  // The chunk: a quarter of the budget (512 MiB by default), or what is left of it beside
  // the history and the larger of those arrays; no more than one pass needs.
  const double budget = in.budget.bytes;
  const double left = budget - history - std::max(selection_arrays, report_arrays);
  const double one_combo = (g.has_vol_filter() ? 4 : 2) * row + tables + 4096;
  const double wanted =
      std::min(p.all_series_bytes + valid * kGroupBytesPerCombo + tables, budget / 4);
  p.chunk_budget = static_cast<size_t>(std::max(std::min(left, wanted), one_combo));
  const double chunk = static_cast<double>(p.chunk_budget);

  p.sweep_bytes = history + chunk;
  if (in.selection) {
    double pass = chunk + static_cast<double>(kSelectionEvaluateBatch) * sizeof(Metrics);
    if (pbo) {
      // block_summaries holds every combo's S (+1) block Summaries and, on cpu, every
      // series; each CSCV worker two half-window Summaries per valid combo.
      const double blocks = total * static_cast<double>(S + 1) * sizeof(Summary);
      const double rows = in.backend == "cpu_ref" ? chunk : p.all_series_bytes + tables;
      const double cscv = static_cast<double>(in.threads) * static_cast<double>(S / 2 + 1) * 2 *
                          valid * sizeof(Summary);
      pass = blocks + rows + cscv;
    }
    p.selection_bytes = history + selection_arrays + pass;
  }
  if (landscape) p.report_bytes = history + report_arrays + chunk;

  p.peak_bytes = p.sweep_bytes;
  if (p.selection_bytes > p.peak_bytes) {
    p.peak_bytes = p.selection_bytes;
    p.peak_phase = "robust selection";
  }
  if (p.report_bytes > p.peak_bytes) {
    p.peak_bytes = p.report_bytes;
    p.peak_phase = "report";
  }

  const double passes = 1 + (in.selection ? 1 : 0) + (landscape ? 1 : 0);
  p.combo_bars =
      valid * static_cast<double>(in.window_bars) * static_cast<double>(in.windows) * passes;
  const double row_values = static_cast<double>(p.series) * bars * static_cast<double>(in.windows) *
                            (in.selection ? 2 : 1);
  if (in.backend == "cpu") {
    p.seconds =
        (p.combo_bars / kCpuComboBarsPerThreadSecond + row_values * kSecondsPerIndicatorValue) /
        in.threads;
  } else if (in.backend == "cpu_ref") {
    p.seconds = p.combo_bars / kCpuRefComboBarsPerSecond + row_values * kSecondsPerIndicatorValue;
  }

  p.min_bytes = history + one_combo;
  return p;
}

void check_plan(const RunPlan& p, const PlanInputs& in) {
  const double budget = in.budget.bytes;
  const auto& sel = in.selection_spec;
  const size_t S = sel.pbo_blocks;
  if (p.min_bytes > budget) {
    throw InputError(in.budget.name +
                     " is too small: the history and one combo's indicator rows need " +
                     bytes_text(p.min_bytes) + "; " + in.budget.raise);
  }
  if (p.peak_bytes > budget) {
    std::string fix;
    if (p.peak_phase == std::string("robust selection")) {
      fix = p.pbo ? "its PBO keeps " + grouped(S + 1) +
                        " block summaries per combo and every "
                        "indicator series; pass --no-selection, set pbo_blocks = 0 or a lower "
                        "pbo_max_combos in [strategy.selection], shrink the grid"
                  : "it keeps about " +
                        std::to_string(static_cast<int>(
                            kSelectionBytesPerCombo + (sel.plateau ? kPlateauBytesPerCombo : 0))) +
                        " bytes per combo; pass --no-selection, shrink the grid";
    } else if (p.peak_phase == std::string("report")) {
      fix = "its landscape keeps every combo's objective; drop --report, shrink the grid";
    } else {
      fix = "shrink the grid";
    }
    throw InputError("the plan needs about " + bytes_text(p.peak_bytes) + " for " + p.peak_phase +
                     ", over " + in.budget.name + ": " + fix + ", or " + in.budget.raise);
  }
}

std::string plan_text(const RunPlan& p, const PlanInputs& in) {
  const ComboCount& c = p.combos;
  std::string s = "wfo: plan: " + grouped(c.total) + (c.total == 1 ? " combo, " : " combos, ") +
                  grouped(c.valid) + " valid";
  if (c.invalid() > 0) {
    std::string why;
    if (c.family_rule)
      why += grouped(c.family_rule) + " " + std::string(family_rule_text(in.grid.family));
    if (c.vol_short_not_below_long) {
      why += (why.empty() ? "" : ", ") + grouped(c.vol_short_not_below_long) +
             " vol_short >= vol_long";
    }
    s += " (" + grouped(c.invalid()) + " skipped: " + why + ")";
  }
  if (in.windows > 1) s += " x " + grouped(in.windows) + " folds";
  s += "; " + grouped(p.series) + " indicator series x " + grouped(in.history_bars) +
       " bars = " + bytes_text(p.all_series_bytes);
  if (p.all_series_bytes > static_cast<double>(p.chunk_budget)) {
    s += ", " + bytes_text(static_cast<double>(p.chunk_budget)) + " at a time";
  }
  s += "; memory ~" + bytes_text(p.peak_bytes) + " (" + p.peak_phase + ") of " +
       bytes_text(in.budget.bytes) + " budget";
  if (!in.budget.label.empty()) s += " (" + in.budget.label + ")";
  char work[48];
  std::snprintf(work, sizeof work, "%.2g", p.combo_bars);
  s += "; " + std::string(work) + " combo-bars, ";
  if (p.seconds >= 0) {
    const int threads = in.backend == "cpu_ref" ? 1 : in.threads;
    s += duration_text(p.seconds) + " on " + std::to_string(threads) +
         (threads == 1 ? " thread" : " threads");
  } else {
    s += "time unknown on " + in.backend;
  }
  return s;
}

}  // namespace wfod::cli
