// Robust-selection benchmark: ma_cross SMA on a seeded random walk, PBO by CSCV with
// S blocks and the plateau stencil, against the plain sweep of the same window. Prints one
// markdown table (median of the repeats after a warm-up): the sweep, the block summaries, the
// window scores, CSCV, the plateau stencil, the whole selection::robust_scores, and the ratios
// robust_scores / sweep (the target on the H200: <= 2 for 200k combos x 10k bars, S = 16)
// and (block summaries + CSCV) / sweep (the PBO work alone). Each repeat runs the sweep and then
// robust_scores on the same request, as `wfo sweep` does: robust_scores reuses the sweep's
// prepared device state (the prepare row shows what remains of it: the request comparison).
// Usage: selection_bench [backend=cuda] [fast=200] [slow=1000] [window=10000] [S=16] [repeat=5]
//                        [threads=0 (all cores)]
//   S = 0: no PBO (the window scores by evaluate(), as select() runs past pbo_max_combos).
//   the cpu at 20,000 combos, one thread: selection_bench cpu 100 200 10000 16 5 1
// cuda: phases from the device pipeline's own timing (cuda/selection_device.hpp); cpu and
// cpu_ref: from the host pipeline's (RobustScores::timing, the same call).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "bench_series.hpp"
#include "src/selection/cscv_walk.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/robust_scores.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/selection/selection_extension.hpp"
#if defined(WFOD_HAVE_CUDA)
#include "cuda/selection_device.hpp"
#endif

using namespace wfod;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double time_ms(F&& f) {
  const auto t = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string backend_name = argc > 1 ? argv[1] : "cuda";
  const int fast = argc > 2 ? std::atoi(argv[2]) : 200;
  const int slow = argc > 3 ? std::atoi(argv[3]) : 1000;
  const size_t window = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 10'000;
  const size_t S = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 16;
  const int repeat = std::max(1, argc > 6 ? std::atoi(argv[6]) : 5);
  const int threads = argc > 7 ? std::atoi(argv[7]) : 0;

  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(backend_name);
  } catch (const std::exception& e) {
    std::printf("selection_bench: skipped: %s\n", e.what());
    return 0;
  }
  SweepRequest req;
  Grid& g = req.strategy.grid;
  g.family = Family::ma_cross;
  g.fast = bench::range(2, 1 + fast);
  g.slow = bench::range(10, 9 + slow);
  g.ma = {MaType::sma};
  const size_t warmup = default_warmup(g);
  const Series series = bench::random_walk(window + warmup + 1 + 100, 1, bench::kDailyWalk);
  req.history = HistoryView::of(series);
  req.window = {series.size(), window, warmup};
  req.threads = threads;

  selection::RobustOptions opt;
  opt.pbo = S > 0;  // S = 0: no PBO, the scores by evaluate() (what runs past pbo_max_combos)
  if (opt.pbo) opt.layout = selection::cscv_layout(req.window, S);
  selection::SelectionSpec spec;
  selection::PlateauRequest pr;
  for (const AxisInfo& a : g.axes()) pr.axis_sizes.push_back(a.size);
  pr.radii = selection::plateau_radii(g, spec);
  pr.stat = spec.plateau_stat;
  opt.plateau = pr;

  std::vector<double> sweep_ms, robust_ms, blocks_ms, score_ms, cscv_ms, plateau_ms, prepare_ms;
  std::vector<double> walk_ms, count_ms, resolve_ms, setup_ms;  // cuda: CSCV's parts
  SweepResult sweep;
  selection::RobustScores robust;
  std::string path = "host";
  for (int run = 0; run <= repeat; ++run) {  // run 0: warm-up
    const double ts = time_ms([&] { sweep = backend->sweep(req); });
    const double tr = time_ms([&] { robust = selection::robust_scores(*backend, req, opt); });
    if (run == 0) continue;
    sweep_ms.push_back(ts);
    robust_ms.push_back(tr);
#if defined(WFOD_HAVE_CUDA)
    if (backend_name == "cuda") {
      const cuda::SelectionTiming t = cuda::last_selection_timing();
      path = t.path;
      prepare_ms.push_back(t.prepare_ms);
      blocks_ms.push_back(t.blocks_ms);
      score_ms.push_back(t.score_ms);
      cscv_ms.push_back(t.cscv_ms);
      walk_ms.push_back(t.walk_ms);
      count_ms.push_back(t.count_ms);
      resolve_ms.push_back(t.resolve_ms);
      setup_ms.push_back(t.setup_ms);
      plateau_ms.push_back(t.plateau_ms);
      continue;
    }
#endif
    // Host pipeline: its own phase timings, from the call just timed.
    path = std::string("host, CSCV kernels ") + to_string(selection::cscv::walk_kernels().isa);
    const selection::RobustTiming t = robust.timing.value_or(selection::RobustTiming{});
    blocks_ms.push_back(t.blocks_seconds * 1e3);
    score_ms.push_back(t.scores_seconds * 1e3);
    cscv_ms.push_back(t.cscv_seconds * 1e3);
    plateau_ms.push_back(t.plateau_seconds * 1e3);
  }

  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf(
      "# selection_bench %s (%s), ma_cross sma %d x %d = %llu combos (%llu valid), W = %zu, "
      "S = %zu, plateau %s r=1, threads %s, %s, median of %d after a warm-up\n",
      backend_name.c_str(), path.c_str(), fast, slow, static_cast<unsigned long long>(g.size()),
      static_cast<unsigned long long>(sweep.evaluated), window, S,
      selection::to_string(pr.stat).c_str(), threads > 0 ? std::to_string(threads).c_str() : "all",
      date, repeat);
  std::printf(
      "# check: sweep top id %llu; robust valid %llu ranked %llu; pbo %.6f, %llu of %llu "
      "splits with a winner, %llu participants; plateau winner %lld\n",
      sweep.top.empty() ? 0ull : static_cast<unsigned long long>(sweep.top[0].combo.id),
      static_cast<unsigned long long>(robust.valid), static_cast<unsigned long long>(robust.ranked),
      robust.pbo ? robust.pbo->pbo : -1.0,
      robust.pbo ? static_cast<unsigned long long>(robust.pbo->splits_with_winner) : 0ull,
      robust.pbo ? static_cast<unsigned long long>(robust.pbo->splits) : 0ull,
      robust.pbo ? static_cast<unsigned long long>(robust.pbo->combos) : 0ull,
      robust.plateau ? static_cast<long long>(robust.plateau->id) : -1ll);
  const double sweep_med = median(sweep_ms), robust_med = median(robust_ms);
  std::printf("| measure | median ms |\n|---|---:|\n");
  std::printf("| plain sweep (%s, end to end) | %.3f |\n", backend_name.c_str(), sweep_med);
  if (!prepare_ms.empty())
    std::printf("| prepare (indicators, tables; inside robust_scores) | %.3f |\n",
                median(prepare_ms));
  if (opt.pbo)
    std::printf("| block summaries (%zu blocks) | %.3f |\n", opt.layout.total_blocks(),
                median(blocks_ms));
  else
    std::printf("| window Summaries by evaluate() (no PBO) | %.3f |\n", median(blocks_ms));
  std::printf("| window scores (+ download, replays; cuda: during CSCV) | %.3f |\n",
              median(score_ms));
  std::printf("| CSCV (%llu splits) | %.3f |\n",
              robust.pbo ? static_cast<unsigned long long>(robust.pbo->splits) : 0ull,
              median(cscv_ms));
  if (!walk_ms.empty()) {
    std::printf("| of which participants, pack, parts (host clock) | %.3f |\n", median(setup_ms));
    std::printf("| of which pass A, the split walks (device) | %.3f |\n", median(walk_ms));
    std::printf("| of which exact winners and targets (device) | %.3f |\n", median(resolve_ms));
    std::printf("| of which pass B, the OOS rank counts (device) | %.3f |\n", median(count_ms));
  }
  std::printf("| plateau stencil (cuda: during CSCV) | %.3f |\n", median(plateau_ms));
  std::printf("| robust_scores (whole, end to end) | %.3f |\n", robust_med);
  std::printf("| ratio robust_scores / sweep | %.2f |\n",
              sweep_med > 0 ? robust_med / sweep_med : 0.0);
  // The PBO-specific work alone: the block summaries (which also give the window scores the
  // sweep's arg-max would) and CSCV, without the shared prepare, scores and plateau. cuda:
  // CSCV's setup and its kernels' device time (the host overlaps other work with them).
  const double cscv_work =
      walk_ms.empty() ? median(cscv_ms)
                      : median(setup_ms) + median(walk_ms) + median(resolve_ms) + median(count_ms);
  const double pbo_med = median(blocks_ms) + cscv_work;
  std::printf("| ratio (block summaries + CSCV) / sweep | %.2f |\n",
              sweep_med > 0 ? pbo_med / sweep_med : 0.0);
  return 0;
}
