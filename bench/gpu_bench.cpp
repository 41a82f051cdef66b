// GPU sweep benchmark: cases A (200k SMA combos x 10k bars), B (80 HMA combos x 150k bars),
// C (the paper's 12.6M-combo 5-parameter model x 5k bars), D (100k bollinger combos x 10k
// bars) and E (102k rsi_reversion combos x 10k bars: the level families against A per
// combo-bar), each in the backend's chosen layout and in the plain thread-per-combo layout.
// Prints one table:
// median of repeated runs after a warm-up, device-event times, combo-bars/s.
// usage: gpu_bench [repeat=7] [case letter, or all] [chunks per combo of the chosen rows]
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
#include "cuda/cuda_backend.hpp"
#include "wfod/backend.hpp"

using namespace wfod;

namespace {

struct Case {
  const char* name;
  Series series;
  SweepRequest req;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 7;
  const std::string only = argc > 2 ? argv[2] : "";  // "A" ... "E": one case (profiling)
  // Time chunks per combo for the "chosen" and "fast" rows (a power of two; 0 or absent: the
  // backend's choice), to measure the layout choice itself.
  const std::string chunks_arg = argc > 3 ? argv[3] : "";
  std::vector<Case> cases;
  {
    Case c{"A sma 200k x 10k", bench::random_walk(13'100, 1, bench::kDailyWalk), {}};
    Grid& g = c.req.strategy.grid;
    g.fast = bench::range(2, 201);
    g.slow = bench::range(10, 1009);
    c.req.window = {13'100, 10'000, default_warmup(g)};
    cases.push_back(std::move(c));
  }
  {
    Case c{"B hma 80 x 150k", bench::random_walk(150'601, 2, bench::kDailyWalk), {}};
    Grid& g = c.req.strategy.grid;
    g.ma = {MaType::hma};
    g.fast = bench::range(10, 49);
    g.slow = {100, 200};
    c.req.window = {150'601, 150'000, 600};
    cases.push_back(std::move(c));
  }
  {
    Case c{"C paper 12.6M x 5k", bench::random_walk(5'601, 3, bench::kDailyWalk), {}};
    Grid& g = c.req.strategy.grid;
    g.fast = bench::range(5, 19);
    g.slow = bench::range(20, 200);
    g.vol_short = bench::range(5, 19);
    g.vol_long = bench::range(20, 50);
    for (int i = 5; i <= 14; ++i) g.vol_threshold.push_back(i / 10.0);
    c.req.window = {5'601, 5'000, 600};
    cases.push_back(std::move(c));
  }
  {
    Case c{"D bollinger 100k x 10k", bench::random_walk(13'100, 4, bench::kDailyWalk), {}};
    Grid& g = c.req.strategy.grid;
    g.family = Family::bollinger;
    g.n = bench::range(2, 201);
    for (int i = 1; i <= 125; ++i) g.k.push_back(i / 25.0);  // 0.04 ... 5.0
    g.style = {Style::reversion, Style::breakout};
    g.side = {Side::long_short, Side::long_only};
    c.req.window = {13'100, 10'000, default_warmup(g)};
    cases.push_back(std::move(c));
  }
  {
    Case c{"E rsi 102k x 10k", bench::random_walk(13'100, 5, bench::kDailyWalk), {}};
    Grid& g = c.req.strategy.grid;
    g.family = Family::rsi_reversion;
    g.n = bench::range(2, 201);
    for (int i = 0; i < 16; ++i) {
      g.lo.push_back(10 + 2.5 * i);    // 10 ... 47.5
      g.hi.push_back(52.5 + 2.5 * i);  // 52.5 ... 90
    }
    g.side = {Side::long_short, Side::long_only};
    c.req.window = {13'100, 10'000, default_warmup(g)};
    cases.push_back(std::move(c));
  }

  std::string why;
  if (!cuda::device_available(&why)) {
    std::printf("gpu_bench: skipped: %s\n", why.c_str());
    return 0;
  }
  auto backend = make_backend("cuda");
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));

  struct Row {
    std::string name, layout;
    double combos, bars, ind_ms, eval_ms, select_ms, e2e_s;
    int chunks;
  };
  std::vector<Row> rows;
  std::vector<std::string> parity_lines;
  for (auto& c : cases) {
    if (!only.empty() && only != "all" && only[0] != c.name[0]) continue;
    c.req.history = HistoryView::of(c.series);
    c.req.strategy.costs.commission_bps = 1;
    c.req.rank.top = 10;
    for (const char* layout : {"chosen", "plain", "fast"}) {
      c.req.precision = std::string(layout) == "fast" ? Precision::fast : Precision::exact;
      // "plain": the paper's layout, a thread per combo running every bar's statistics.
      if (std::string(layout) == "plain") {
        setenv("WFOD_CUDA_FORCE_CHUNKS", "1", 1);
        setenv("WFOD_CUDA_KERNEL", "plain", 1);
      } else {
        if (chunks_arg.empty() || chunks_arg == "0")
          unsetenv("WFOD_CUDA_FORCE_CHUNKS");
        else
          setenv("WFOD_CUDA_FORCE_CHUNKS", chunks_arg.c_str(), 1);
        unsetenv("WFOD_CUDA_KERNEL");
      }
      backend->sweep(c.req);  // warm-up: module load, allocations
      std::vector<double> ind, eval, sel, e2e;
      SweepResult r;
      cuda::SweepTiming t;
      for (int i = 0; i < repeat; ++i) {
        r = backend->sweep(c.req);
        t = cuda::last_sweep_timing();
        ind.push_back(t.indicators_ms);
        eval.push_back(t.evaluate_ms);
        sel.push_back(t.select_ms);
        e2e.push_back(r.seconds);
      }
      if (r.fast_parity)
        parity_lines.push_back(
            std::string(c.name) + ": " + std::to_string(r.fast_parity->combos) + " combos, " +
            std::to_string(100.0 * r.fast_parity->differing_fraction()) +
            "% differ in trades, max |dtrades| " + std::to_string(r.fast_parity->max_trade_diff) +
            ", shifted " + std::to_string(100.0 * r.fast_parity->shifted_fraction()) +
            "% of trades, max |dobjective| " + std::to_string(r.fast_parity->max_objective_diff));
      rows.push_back({c.name, layout, static_cast<double>(r.evaluated),
                      static_cast<double>(c.req.window.bars), median(ind), median(eval),
                      median(sel), median(e2e), t.chunks_per_combo});
      // Exact precision settles the top K from the screen's candidates (docs/spec-notes.md 13):
      // how many screens ran and how many candidates were re-scored (in topk_ms).
      std::fprintf(
          stderr, "%s %s: top id %llu objective %.6f trades %lld; screens %d, re-scored %zu\n",
          c.name, layout, r.top.empty() ? 0ull : static_cast<unsigned long long>(r.top[0].combo.id),
          r.top.empty() ? 0.0 : r.top[0].objective,
          r.top.empty() ? 0ll : static_cast<long long>(r.top[0].metrics.trades), t.screen_passes,
          t.rescored);
    }
  }
  std::printf("# gpu_bench on %s, %s, median of %d after warm-up\n",
              cuda::last_sweep_timing().device.c_str(), date, repeat);
  std::printf("%-20s %-7s %7s %11s %8s %10s %10s %10s %14s %10s\n", "case", "layout", "chunks",
              "combos", "bars", "ind_ms", "eval_ms", "topk_ms", "combo-bars/s", "e2e_s");
  for (const auto& r : rows) {
    const double rate = r.combos * r.bars / ((r.eval_ms + r.select_ms) / 1e3);
    std::printf("%-20s %-7s %7d %11.0f %8.0f %10.3f %10.3f %10.3f %14.3e %10.4f\n", r.name.c_str(),
                r.layout.c_str(), r.chunks, r.combos, r.bars, r.ind_ms, r.eval_ms, r.select_ms,
                rate, r.e2e_s);
  }
  std::printf("# precision fast vs exact (SPEC §9), same run:\n");
  for (const auto& line : parity_lines) std::printf("#   %s\n", line.c_str());
  return 0;
}
