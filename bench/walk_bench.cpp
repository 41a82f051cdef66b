// Walk-forward benchmark (SPEC §8): walk_forward() end to end on one backend,
// ma_cross SMA fast x slow, rolling and anchored, with --no-selection's arg-max winners and
// with default robust selection per fold (as `wfo walk` runs it). Prints one markdown table:
// seconds (median of the repeats, each on a freshly made backend so no preparation survives
// from the run before) and combo-bars/s = sum over folds of valid combos x IS bars / seconds.
// Every repeat must equal the first bit for bit; with check = 1 every walk's fold winners must
// equal the cpu backend's and its fold metrics match within SPEC §9 (FAIL lines, exit 1).
// After the table, one line per walk says where its time went per fold (the sweep and on cuda
// its phases, selection, robust_scores and on cuda its device phases, the rest of the walk)
// and the repeats' spread.
// Usage: walk_bench [backend=cpu] [data=synthetic:20000 | CSV path] [is=2000] [oos=500]
//                   [fast=20] [slow=20] [repeat=3] [threads=0] [selection=1] [check=0]
//   fast x slow SMA combos: fast 2..fast+1, slow fast+5, fast+10, ... (all valid).
//   bench/device.sh's shape on the H200 (btcperp m1, 45k bars, 40,000 combos, IS 10,000,
//   OOS 1,000, 31 folds): walk_bench cuda btcperp_ftx_m1_2022-01.csv 10000 1000 200 200 3 0 1 1
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "bench_series.hpp"
#include "wfod/backend.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/walk_forward.hpp"
#if defined(WFOD_HAVE_CUDA)
#include "cuda/cuda_backend.hpp"
#include "cuda/selection_device.hpp"
#endif

using namespace wfod;

namespace {

struct Run {
  WalkMode mode;
  bool selection;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Integers equal; reals bit for bit (`exact`: the same backend twice) or within SPEC §9's
// 1e-9 relative / 1e-12 absolute (another backend).
bool near(double a, double b, bool exact) {
  if (exact) return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  return std::fabs(a - b) <= std::max(1e-12, 1e-9 * std::max(std::fabs(a), std::fabs(b)));
}

bool same_metrics(const Metrics& a, const Metrics& b, bool exact) {
  const double Metrics::*reals[] = {
      &Metrics::total_return, &Metrics::cagr,          &Metrics::sharpe,
      &Metrics::sortino,      &Metrics::max_drawdown,  &Metrics::calmar,
      &Metrics::win_rate,     &Metrics::profit_factor, &Metrics::exposure};
  for (auto m : reals)
    if (!near(a.*m, b.*m, exact)) return false;
  return a.trades == b.trades && a.wins == b.wins && a.long_bars == b.long_bars &&
         a.short_bars == b.short_bars && a.flat_bars == b.flat_bars && a.changes == b.changes &&
         a.bars == b.bars;
}

// The first fold where two walks differ (winner id, IS or OOS metrics), or "" when none does.
std::string first_difference(const WalkResult& got, const WalkResult& want, bool exact) {
  if (got.folds.size() != want.folds.size()) return "fold counts differ";
  for (size_t f = 0; f < want.folds.size(); ++f) {
    const Fold &g = got.folds[f], &w = want.folds[f];
    const std::string at = "fold " + std::to_string(f) + ": ";
    if (g.winner.has_value() != w.winner.has_value()) return at + "one has no winner";
    if (w.winner && g.winner->combo.id != w.winner->combo.id)
      return at + "winner " + std::to_string(g.winner->combo.id) + " vs " +
             std::to_string(w.winner->combo.id);
    if (!same_metrics(g.is, w.is, exact)) return at + "IS metrics differ";
    if (!same_metrics(g.oos, w.oos, exact)) return at + "OOS metrics differ";
  }
  return "";
}

Series load(const std::string& data) {
  const std::string synthetic = "synthetic:";
  if (data.rfind(synthetic, 0) == 0)
    return bench::random_walk(std::strtoull(data.c_str() + synthetic.size(), nullptr, 10), 42,
                              bench::kMinuteWalk);
  return feeds::read_csv(data).series;
}

// Where a walk's time goes, summed over its folds (the last repeat): the sweeps' own seconds,
// the selector's (robust_scores and, on cuda, its device pipeline's phases), and the rest of
// walk_forward (the winner's positions and the OOS segments).
struct Breakdown {
  double sweep = 0, select = 0, robust = 0;
  double prepare = 0, blocks = 0, score = 0, cscv = 0, plateau = 0;  // cuda's phases, ms
  bool device_phases = false;
  // cuda's sweep phases (SweepTiming), ms: preparation check / build, screen (evaluation and
  // block top-K), settle (reduction passes, the candidates' canonical re-score).
  double sweep_prepare = 0, sweep_screen = 0, sweep_settle = 0;
  bool sweep_phases = false;
  void clear() { *this = Breakdown{}; }
};

// Robust selection per fold as `wfo walk` runs it (the previous winner is "current"), or
// none (arg-max winners) when `on` is false. Either way it adds the fold's times to `times`.
FoldSelector default_selector(Backend& backend, bool on, const selection::SelectionSpec& spec,
                              Breakdown& times) {
  return [&backend, &spec, &times, on](
             const SweepRequest& req, const SweepResult& sweep,
             const std::optional<Ranked>& previous) -> std::optional<Ranked> {
    times.sweep += sweep.seconds;
#if defined(WFOD_HAVE_CUDA)
    if (sweep.backend == "cuda") {
      const cuda::SweepTiming st = cuda::last_sweep_timing();
      times.sweep_phases = true;
      times.sweep_prepare += st.indicators_ms;
      times.sweep_screen += st.evaluate_ms;
      times.sweep_settle += st.select_ms;
    }
#endif
    if (!on) return sweep.top.empty() ? std::nullopt : std::optional<Ranked>(sweep.top.front());
    std::optional<uint64_t> current;
    if (previous) current = previous->combo.id;
    const selection::SelectionReport rep = selection::select(backend, req, sweep, current, spec);
    times.select += rep.timing.total_seconds;
    times.robust += rep.timing.robust_seconds;
#if defined(WFOD_HAVE_CUDA)
    const cuda::SelectionTiming t = cuda::last_selection_timing();
    if (t.path == "device") {
      times.device_phases = true;
      times.prepare += t.prepare_ms;
      times.blocks += t.blocks_ms;
      times.score += t.score_ms;
      times.cscv += t.cscv_ms;
      times.plateau += t.plateau_ms;
    }
#endif
    return rep.published;
  };
}

}  // namespace

int main(int argc, char** argv) {
  const std::string backend_name = argc > 1 ? argv[1] : "cpu";
  const std::string data = argc > 2 ? argv[2] : "synthetic:20000";
  const size_t is = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 2000;
  const size_t oos = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 500;
  const int fast = argc > 5 ? std::atoi(argv[5]) : 20;
  const int slow = argc > 6 ? std::atoi(argv[6]) : 20;
  const int repeat = std::max(1, argc > 7 ? std::atoi(argv[7]) : 3);
  const int threads = argc > 8 ? std::atoi(argv[8]) : 0;
  const bool with_selection = argc > 9 ? std::atoi(argv[9]) != 0 : true;
  const bool check = argc > 10 ? std::atoi(argv[10]) != 0 : false;

  const Series series = load(data);
  const HistoryView h = HistoryView::of(series);
  StrategySpec spec;
  spec.grid.family = Family::ma_cross;
  spec.grid.fast = bench::range(2, fast + 1);
  spec.grid.slow = bench::range(fast + 5, fast + 5 * slow, 5);
  spec.grid.ma = {MaType::sma};
  spec.grid.side = {Side::long_short};
  spec.grid.entry = {Entry::state};
  spec.bars_per_year = 525'600;
  RankSpec rank;
  rank.min_trades = 3;
  const selection::SelectionSpec selection_spec;  // the defaults `wfo walk` runs without flags

  std::vector<Run> runs = {{WalkMode::rolling, false}, {WalkMode::anchored, false}};
  if (with_selection) runs.push_back({WalkMode::rolling, true});
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf(
      "walk_bench %s, %s: %zu bars, SMA %d x %d = %llu combos, IS %zu, OOS %zu, "
      "threads %d, median of %d (each on a fresh backend)\n\n",
      date, data.c_str(), h.size(), fast, slow, static_cast<unsigned long long>(spec.grid.size()),
      is, oos, threads, repeat);
  std::printf(
      "| backend | mode | selection | bars | combos | IS | OOS | folds | seconds | "
      "combo-bars/s |%s\n",
      check ? " equals cpu |" : "");
  std::printf("|---|---|---|---|---|---|---|---|---|---|%s\n", check ? "---|" : "");
  int status = 0;
  std::vector<std::string> notes;  // where each walk's time went, after the table
  for (const Run& run : runs) {
    WalkSpec walk;
    walk.is_bars = is;
    walk.oos_bars = oos;
    walk.mode = run.mode;
    walk.warmup = default_warmup(spec.grid);
    // As `wfo walk`: without PBO on any fold, the sweeps share the selection's scoring pass.
    const size_t longest_window = run.mode == WalkMode::rolling ? is : h.size();
    walk.scores_follow =
        run.selection &&
        !selection::pbo_applies(selection_spec, count_combos(spec.grid).valid, longest_window);
    std::vector<double> seconds;
    Breakdown times;
    WalkResult first;
    for (int r = 0; r < repeat; ++r) {
      auto backend = make_backend(backend_name);
      times.clear();
      const FoldSelector select = default_selector(*backend, run.selection, selection_spec, times);
      const auto start = std::chrono::steady_clock::now();
      WalkResult result =
          walk_forward(*backend, h, spec, rank, walk, Precision::exact, threads, {}, select);
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (r == 0) {
        first = std::move(result);
      } else if (const std::string d = first_difference(result, first, true); !d.empty()) {
        std::fprintf(stderr, "FAIL repeat %d differs from the first run: %s\n", r, d.c_str());
        status = 1;
      }
    }
    double combo_bars = 0;
    for (const Fold& f : first.folds)
      combo_bars +=
          static_cast<double>(f.evaluated) * static_cast<double>(f.is_last - f.is_first + 1);
    const double s = median(seconds);
    std::string equal;
    if (check) {
      auto cpu = make_backend("cpu");
      Breakdown ignored;
      const FoldSelector select = default_selector(*cpu, run.selection, selection_spec, ignored);
      const WalkResult want =
          walk_forward(*cpu, h, spec, rank, walk, Precision::exact, threads, {}, select);
      const std::string d = first_difference(first, want, false);
      equal = d.empty() ? " yes |" : " NO: " + d + " |";
      if (!d.empty()) {
        std::fprintf(stderr, "FAIL %s %s selection=%d: %s\n", backend_name.c_str(),
                     std::string(to_string(run.mode)).c_str(), run.selection ? 1 : 0, d.c_str());
        status = 1;
      }
    }
    std::printf("| %s | %s | %s | %zu | %llu | %zu | %zu | %zu | %.4f | %.3g |%s\n",
                backend_name.c_str(), std::string(to_string(run.mode)).c_str(),
                run.selection ? "default" : "none", h.size(),
                static_cast<unsigned long long>(spec.grid.size()), is, oos, first.folds.size(), s,
                combo_bars / s, equal.c_str());
    std::fflush(stdout);
    const double folds = static_cast<double>(std::max<size_t>(1, first.folds.size()));
    const double last = seconds.back();
    char line[512];
    std::snprintf(line, sizeof line,
                  "%s %s selection=%s, ms per fold (last repeat): whole %.2f = sweep %.2f + "
                  "select %.2f + rest of the walk %.2f",
                  backend_name.c_str(), std::string(to_string(run.mode)).c_str(),
                  run.selection ? "default" : "none", 1e3 * last / folds, 1e3 * times.sweep / folds,
                  1e3 * times.select / folds, 1e3 * (last - times.sweep - times.select) / folds);
    std::string note = line;
    std::snprintf(line, sizeof line,
                  "; seconds over the %zu repeats: min %.4f, median %.4f, max %.4f", seconds.size(),
                  *std::min_element(seconds.begin(), seconds.end()), s,
                  *std::max_element(seconds.begin(), seconds.end()));
    note += line;
    if (times.sweep_phases) {
      std::snprintf(line, sizeof line,
                    "; sweep on the device: prepare %.2f + screen %.2f + settle %.2f, host rest "
                    "%.2f",
                    times.sweep_prepare / folds, times.sweep_screen / folds,
                    times.sweep_settle / folds,
                    1e3 * times.sweep / folds -
                        (times.sweep_prepare + times.sweep_screen + times.sweep_settle) / folds);
      note += line;
    }
    if (run.selection) {
      std::snprintf(line, sizeof line, "; select = robust_scores %.2f + DSR and winners %.2f",
                    1e3 * times.robust / folds, 1e3 * (times.select - times.robust) / folds);
      note += line;
    }
    if (times.device_phases) {
      std::snprintf(line, sizeof line,
                    "; robust_scores on the device: prepare %.2f, blocks %.2f, scores %.2f, "
                    "cscv %.2f, plateau %.2f",
                    times.prepare / folds, times.blocks / folds, times.score / folds,
                    times.cscv / folds, times.plateau / folds);
      note += line;
    }
    notes.push_back(note);
  }
  std::printf("\n");
  for (const std::string& n : notes) std::printf("- %s\n", n.c_str());
  return status;
}
