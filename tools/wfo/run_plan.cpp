// The up-front plan of a sweep or walk (run_plan.hpp): combo counts, memory by phase, a
// rough time, and the checks that stop a run which cannot succeed before it starts.
#include "run_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "report_data.hpp"
#include "text_table.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/summary.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod::cli {

namespace {

// Memory of the engine's data structures, per unit, as the code allocates them.
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

// The time model: seconds of each part of a run, per backend and family, from coefficients
// measured per unit of work (one table, like CUB's tuning policies: change a coefficient
// only with the measurement that sets it). Per window (a sweep: one; a walk: each fold):
//   sweep     valid x W x combo_bar[family] + series x (warmup + W) x series_value[family]
//   selection scores path: one more pass over the grid, scores_pass x the sweep's combo-bars
//             (+ the rows again); CSCV paths: the block summaries, blocks_pass x the same,
//             then C(S, S/2) splits x (split + valid x join) x S / 16, join being the
//             screened or the plain walk's
//   report    the landscape: one more sweep-like pass
// plus start (process, CUDA context) and the CSV's bars x load_bar. cpu divides the parallel
// parts by 1 + parallel_efficiency x (threads - 1); cpu_ref runs on one thread.
struct TimeCoefficients {
  double start = 0;                // s per run
  double load_bar = 0;             // s per CSV bar
  double per_window = 0;           // s per sweep or fold (copies, top-K, the fold's OOS replay)
  double combo_bar[5] = {};        // s per combo-bar of the sweep, by Family
  double series_value[5] = {};     // s per indicator value (rows of the grid's series), by Family
  double blocks_pass = 1;          // the block summaries' pass, in sweeps (same combo-bars)
  double scores_pass = 1;          // the scores pass without PBO, in sweeps
  double split = 0;                // s per CSCV split (S = 16)
  double join_screened = 0;        // s per valid combo and split, screened walk (S = 16)
  double join_plain = 0;           // s per valid combo and split, plain walk (S = 16)
  double parallel_efficiency = 0;  // 0: one thread whatever --threads
};

// cpu and cpu_ref: this 2-core AMD EPYC VM (AVX-512 kernels), 2026-12-06, btcperp_ftx_m1 (45,031
// bars) from /work/shared/data, `wfo sweep|walk ... --json` timing parts, shared with another
// engineer's builds (load 1-4.5: figures are mid-range of 1-3 runs, not minima). combo_bar:
// 20,000-combo grids (`--fast 2:101:1 --slow 110:309:1`, `--n 10:1005:5 --k 0.5:2.95:0.05
// --style reversion,breakout`, `--n 2:101:1 --lo 10:48:2 --hi 52:70:2`) less their rows;
// series_value: 600-series grids (`--fast 1:600:1 --slow 601`, sma 3.9e-8 .. hma 8.5e-8;
// bollinger/rsi `--n 2:601:1`; channel `--n 10:400:1 --source close,high_low`); channel's
// combo_bar is ma_cross's (same signal-bit path, rows dominate its grids). blocks_pass 1.0
// (blocks 3.39 s vs sweep 3.63 s), scores_pass 1.0 (7.00 vs 6.97 s at 29,097 combos); split
// from 100-, 400- and 1,000-combo CSCVs (12,870 splits: 0.014, 0.018 and 0.046 s, the walk's
// per fold); join_screened 20,000 combos 0.264 s; join_plain `--objective calmar` 20,000
// combos: 43.0 s at 2 threads, 111 s at 1 (load 4.5), and 47.9 s for 15,722 combos in
// RESULTS.md; parallel_efficiency 0.55 (that 20,000-combo default-selection sweep's whole run
// 7.34 -> 4.74 s at 2 threads, load 0.6; its sweep alone 3.63 -> 2.23 s; with the other core
// busy, load 3.5+, 2 threads gained 0-20%). cpu_ref: 40-100-combo grids of each family.
// The check: `bench/plan_estimate_bench` (bench/RESULTS.md "Plan estimates (issue 42)").
// cpu_ref rules (SPEC §5a): config/examples/rules.toml's pullback and rsi_dip on
// btcperp_ftx_m1, --window 44000: 3.2e-7 and 4.0e-7 s per combo-bar at load 5.6, where ma_cross
// (with stops) took 2.5e-7 in the same minute: rules ~1.3-1.6x ma_cross, taken as 1.5e-7 against
// ma_cross's 8e-8 (a rule's cost grows with its conditions' nodes); series_value as sma's.
// cpu rules (issue 45): bench/rules_bench (bench/RESULTS.md "Rules on the cpu backend"), this
// VM, 2026-12-07, 10,000-bar window, 1 thread, per CPU second: ma_cross written as rules
// 1.25-1.56x the built-in kernel's time per combo-bar, the three-comparison rule with
// stops 1.9-2.4x: taken as 1.8x ma_cross's 4.5e-9, 8e-9 (a rule's cost grows with its
// conditions' nodes); series_value as sma's (its rows are the engine's indicators).
//
// cuda: not measurable on this VM; from the committed H200 runs in bench/RESULTS.md:
// combo_bar ma_cross 2.1e-12 (selection_bench -v12a plain sweep 3.88 ms for 181,472 x 10,000),
// bollinger 6.9e-12 and rsi 8.4e-12 (gpu_bench -s17b D 6.91 ms / 1e9, E 8.60 ms / 1.02e9),
// channel_breakout ma_cross's (not measured); series_value 6e-12 (gpu_bench A ind 0.095 ms for
// ~1,200 rows x 13,000 bars); blocks_pass 3.8 (block summaries 14.5 ms vs the sweep's 3.88);
// scores_pass 2.8 (walk_bench s26 default selection 0.0978 s vs none 0.0418, 31 folds of
// 40,000 x 10,000: ~5.9e-12 per combo-bar, a pass that replaces the sweep's where the objective
// is one the device computes, PrepareSpec::keep_scores); per_window 0.55 ms (that walk less its
// combo-bars); join_screened 4.3e-12 (CSCV 10.0 ms for 181,472 x 12,870; profit_factor's device
// walk, unmeasured, is taken at this); start 0.3 s
// (`wfo sweep` 40,000 x 40,000: 0.37 s wall, sweep 0.025 s). cagr and calmar run the host's
// plain walk (cuda_backend.cu robust_scores): cpu's join_plain and parallel_efficiency at
// --threads, this VM's figures, not the device host's.
constexpr TimeCoefficients kCpuRefTime = {
    .start = 0.01,
    .load_bar = 1e-6,
    .per_window = 1e-3,
    .combo_bar = {8e-8, 8e-8, 1.3e-7, 6e-8, 1.5e-7},
    .series_value = {5e-8, 6e-8, 5e-8, 5.7e-8, 5e-8},
    .blocks_pass = 1.1,
    .scores_pass = 1.0,
    .split = 1.5e-6,
    .join_screened = 1.0e-9,
    .join_plain = 3e-7,
    .parallel_efficiency = 0,
};
constexpr TimeCoefficients kCpuTime = {
    .start = 0.01,
    .load_bar = 1e-6,
    .per_window = 1e-3,
    .combo_bar = {4.5e-9, 4.5e-9, 6.0e-9, 3.6e-9, 8e-9},
    .series_value = {5e-8, 6e-8, 5e-8, 5.7e-8, 5e-8},
    .blocks_pass = 1.0,
    .scores_pass = 1.0,
    .split = 1.5e-6,
    .join_screened = 1.0e-9,
    .join_plain = 3e-7,
    .parallel_efficiency = 0.55,
};
constexpr TimeCoefficients kCudaTime = {
    .start = 0.3,
    .load_bar = 1e-6,
    .per_window = 5.5e-4,
    .combo_bar = {2.1e-12, 2.1e-12, 6.9e-12, 8.4e-12, 0},  // rules: refused (cpu, cpu_ref run them)
    .series_value = {6e-12, 6e-12, 6e-12, 6e-12, 0},
    .blocks_pass = 3.8,
    .scores_pass = 2.8,
    .split = 0,
    .join_screened = 4.3e-12,
    .join_plain = kCpuTime.join_plain,
    .parallel_efficiency = 0,
};

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
    case Family::rules:  // its `valid` text is the user's own, in the config
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
    case Family::rules:
      return "rules.valid true for some combo";
    case Family::channel_breakout:
      break;
  }
  return "";
}

[[noreturn]] void no_valid_combo(const Grid& g, const ComboCount& c) {
  std::string why;
  if (c.stop_out_of_range > 0) {  // stops (SPEC §5b) among the reasons: each one counted
    std::string counts;
    if (c.family_rule > 0)
      counts += grouped(c.family_rule) + " have " + family_rule_detail(g) + ", ";
    if (c.vol_short_not_below_long > 0)
      counts += grouped(c.vol_short_not_below_long) + " have vol_short >= vol_long, ";
    throw InputError("no valid combo in the grid: of its " + grouped(c.total) + " combos, " +
                     counts + grouped(c.stop_out_of_range) +
                     " have a stop out of its range; stop_loss and trailing_stop must be in "
                     "[0, 1), take_profit >= 0 (SPEC §5, §5b)");
  }
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

const TimeCoefficients& time_coefficients(std::string_view backend) {
  if (backend == "cuda") return kCudaTime;
  if (backend == "cpu_ref") return kCpuRefTime;
  return kCpuTime;  // cpu, and any other host backend
}

// Threads' worth of work per second of one thread.
double effective_threads(double efficiency, int threads) {
  return 1 + efficiency * static_cast<double>(std::max(threads, 1) - 1);
}

// p.seconds, p.selection_seconds and p.selection_path from the plan's counts (the model above).
void estimate_time(const PlanInputs& in, RunPlan& p) {
  const TimeCoefficients& k = time_coefficients(in.backend);
  const bool cuda = in.backend == "cuda";
  const auto family = static_cast<size_t>(in.grid.family);
  const double valid = static_cast<double>(p.combos.valid);
  const double windows = static_cast<double>(in.windows);
  const double W = static_cast<double>(in.window_bars);
  const double row_bars = in.warmup_bars > 0
                              ? std::min(static_cast<double>(in.history_bars),
                                         static_cast<double>(in.warmup_bars + in.window_bars + 1))
                              : static_cast<double>(in.history_bars);
  const double threads = effective_threads(k.parallel_efficiency, in.threads);
  // One pass over the grid in one window, on one thread.
  const double pass = valid * W * k.combo_bar[family] +
                      static_cast<double>(p.series) * row_bars * k.series_value[family];

  double per_window = k.per_window + pass;  // the sweep
  double selection = 0;                     // parallel like the sweep
  double host_walk_seconds = 0;  // cuda's host CSCV walk, already over the host's threads
  p.selection_path = SelectionPath::none;
  if (in.selection) {
    const auto& sel = in.selection_spec;
    if (!p.pbo) {
      p.selection_path = SelectionPath::scores;
      selection = k.scores_pass * pass;
      // cuda's sweep ranks from that pass (PrepareSpec::keep_scores) where the device
      // computes the objective (not cagr, calmar): the sweep's own pass is not made.
      if (cuda && in.objective != Objective::cagr && in.objective != Objective::calmar)
        per_window -= pass;
    } else {
      const bool screened = selection::cscv_screened(in.objective);
      p.selection_path = screened ? SelectionPath::screened_cscv : SelectionPath::plain_cscv;
      const size_t S = sel.pbo_blocks;
      double splits = 1;  // C(S, S/2)
      for (size_t i = 1; i <= S / 2; ++i)
        splits = splits * static_cast<double>(S / 2 + i) / static_cast<double>(i);
      const double per_split = static_cast<double>(S) / 16;  // a split joins S blocks
      selection = k.blocks_pass * pass;
      // cuda's device walk covers sharpe, sortino, total_return and profit_factor; cagr and
      // calmar (pow) take the host's plain walk on the host's threads.
      const bool host_walk =
          cuda && (in.objective == Objective::cagr || in.objective == Objective::calmar);
      if (host_walk) {
        const double host_threads = effective_threads(kCpuTime.parallel_efficiency, in.threads);
        host_walk_seconds =
            splits * per_split * (kCpuTime.split + valid * kCpuTime.join_plain) / host_threads;
      } else {
        const double join = screened || cuda ? k.join_screened : k.join_plain;
        selection += splits * per_split * (k.split + valid * join);
      }
    }
  }
  const bool landscape = in.report && p.combos.valid <= kReportMaxCombos;
  if (landscape) per_window += pass;
  p.selection_seconds = windows * (selection / threads + host_walk_seconds);
  p.seconds = k.start + static_cast<double>(in.history_bars) * k.load_bar +
              windows * per_window / threads + p.selection_seconds;
}

}  // namespace

std::string_view to_string(SelectionPath path) {
  switch (path) {
    case SelectionPath::none:
      return "none";
    case SelectionPath::scores:
      return "scores pass";
    case SelectionPath::screened_cscv:
      return "PBO, screened CSCV walk";
    case SelectionPath::plain_cscv:
      return "PBO, plain CSCV walk";
  }
  return "";
}

int hardware_threads() { return available_cores(); }

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
  // What the engine holds under that budget: the backend's own answer (the rule its sweep
  // sizes its tiles by), else the whole budget.
  const std::optional<SweepMemory> asked =
      in.sweep_memory ? std::optional<SweepMemory>(in.sweep_memory(p.chunk_budget)) : std::nullopt;
  const double chunk =
      asked ? static_cast<double>(asked->host_bytes) : static_cast<double>(p.chunk_budget);
  // The device side, where the backend runs on one: its own answer against the share of the
  // device memory free now (the daemon's plan's rule).
  if (asked && in.device_free_bytes > 0) {
    p.device_bytes = static_cast<double>(asked->device_bytes);
    p.device_budget = static_cast<double>(in.device_free_bytes) * kDeviceMemoryPlanShare;
  }

  p.sweep_bytes = history + chunk;
  // A cpu sweep (auto may pick cpu) whose selection runs PBO computes the block Summaries in
  // its own pass and holds them beside its rows (PrepareSpec::pbo_blocks).
  if (pbo && in.backend != "cpu_ref" && in.backend != "cuda")
    p.sweep_bytes += total * static_cast<double>(S + 1) * sizeof(Summary);
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
  estimate_time(in, p);

  p.min_bytes = history + one_combo;
  return p;
}

void ask_backend(PlanInputs& in, const Backend& backend, const SweepRequest& shape) {
  in.sweep_memory = [&backend, shape](size_t memory_budget) {
    SweepRequest req = shape;
    req.memory_budget = memory_budget;
    return backend.sweep_memory(req);
  };
  in.device_free_bytes = backend.runs_on_device() ? backend.device_memory_free() : 0;
}

namespace {
// "90%": the share of the free device memory a plan counts on (kDeviceMemoryPlanShare).
std::string device_share() {
  return std::to_string(static_cast<int>(kDeviceMemoryPlanShare * 100)) + "%";
}
}  // namespace

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
  if (p.device_budget > 0 && p.device_bytes > p.device_budget) {
    throw InputError(
        "the sweep of " + grouped(p.combos.total) + " " + std::string(to_string(in.grid.family)) +
        " combos over " + grouped(in.history_bars) + " bars needs about " +
        bytes_text(p.device_bytes) + " of device memory on " + in.backend + ", over the " +
        bytes_text(p.device_budget) + " that fit (" + device_share() +
        " of the device memory free now, " + bytes_text(static_cast<double>(in.device_free_bytes)) +
        "): shrink the grid or the history, or pass --backend cpu");
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
    if (c.stop_out_of_range) {
      why += (why.empty() ? "" : ", ") + grouped(c.stop_out_of_range) + " a stop out of range";
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
  if (p.device_budget > 0)
    s += ", device ~" + bytes_text(p.device_bytes) + " of " + bytes_text(p.device_budget) + " (" +
         device_share() + " of " + bytes_text(static_cast<double>(in.device_free_bytes)) + " free)";
  char work[48];
  std::snprintf(work, sizeof work, "%.2g", p.combo_bars);
  s += "; " + std::string(work) + " combo-bars, ";
  if (in.backend == "cuda") {
    s += duration_text(p.seconds) + " on cuda";
  } else {
    const int threads = in.backend == "cpu_ref" ? 1 : in.threads;
    s += duration_text(p.seconds) + " on " + std::to_string(threads) +
         (threads == 1 ? " thread" : " threads");
  }
  // Where selection is most of the run, say so: the plain CSCV walk can be 10-20x the sweep.
  if (p.selection_path != SelectionPath::none && p.selection_seconds >= 0.5 * p.seconds)
    s += " (selection " + duration_text(p.selection_seconds) + ": " +
         std::string(to_string(p.selection_path)) + ")";
  return s;
}

}  // namespace wfod::cli
