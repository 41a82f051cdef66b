// `wfo bench`: the cpu backend's throughput on ma_cross SMA (the reference row), bollinger
// and rsi_reversion (about 20,000 combos each over a 10,000-bar window) at 1 thread and at
// all threads; prints one table with machine info and each family's rate against ma_cross.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "history.hpp"
#include "output.hpp"
#include "synthetic_series.hpp"
#include "text_table.hpp"
#include "wfod/backend.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kBenchUsage = R"(usage: wfo bench [--csv FILE] [--threads N] [--repeat R]

Three grids, long_short, close fills, no costs, backend cpu, over the last 10,000 bars of
the CSV (warm-up: the default, 3 x the largest period of each grid):
  ma_cross       sma, state entry, fast 2..101 x slow 10..1009 step 5 (20,000 combos;
                 those with fast >= slow are skipped)
  bollinger      n 10..1005 step 5 x k 0.5..2.95 step 0.05 x style reversion, breakout
                 (20,000 combos)
  rsi_reversion  n 2..101 x lo 10..48 step 2 x hi 52..70 step 2 (20,000 combos)
"vs ma_cross" is a row's combo-bars/s over ma_cross's at the same thread count.
Without --csv: a synthetic geometric random walk from a fixed seed, just long enough for
the window and its warm-up. Runs at 1 thread and at all threads; each time is the median
of R runs after one warm-up run.

  --csv FILE         bars to run on (at least 10,000 + 1 + the largest warm-up of them)
  --threads N        the "all threads" count (the cores this process may use: its
                     affinity mask; more than that is lowered to it with a warning)
  --repeat R         timed runs per thread count (5)
)";

constexpr std::array kBenchFlags = {FlagSpec{"csv"}, FlagSpec{"threads"}, FlagSpec{"repeat"}};

constexpr size_t kWindowBars = 10'000;
constexpr size_t kSyntheticMinBars = 13'000;
constexpr uint64_t kSyntheticSeed = 20'240'601;

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      if (auto colon = line.find(':'); colon != std::string::npos) {
        auto first = line.find_first_not_of(" \t", colon + 1);
        if (first != std::string::npos) return line.substr(first);
      }
    }
  }
  return "unknown CPU";
}

std::string utc_now() {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
  std::string s = feeds::format_timestamp(ns);  // YYYY-MM-DDTHH:MM:SS[...]Z
  return s.substr(0, 10) + " " + s.substr(11, 5) + " UTC";
}

struct Timing {
  std::string strategy;
  int threads = 0;
  uint64_t evaluated = 0;
  double median_s = 0;
};

Timing time_sweep(Backend& backend, SweepRequest request, int threads, int repeat) {
  request.threads = threads;
  backend.sweep(request);  // warm-up: page in the data, spin up the pool
  std::vector<double> seconds;
  uint64_t evaluated = 0;
  for (int r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    SweepResult res = backend.sweep(request);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    evaluated = res.evaluated;
  }
  std::sort(seconds.begin(), seconds.end());
  size_t m = seconds.size() / 2;
  double median = seconds.size() % 2 ? seconds[m] : (seconds[m - 1] + seconds[m]) / 2;
  return {"", threads, evaluated, median};
}

// The benchmark grids (kBenchUsage lists them).
std::vector<std::pair<std::string, Grid>> bench_grids() {
  std::vector<std::pair<std::string, Grid>> out;
  Grid ma;
  ma.family = Family::ma_cross;
  ma.fast = parse_int_axis("2:101:1");
  ma.slow = parse_int_axis("10:1009:5");
  out.emplace_back("ma_cross sma", ma);
  Grid bb;
  bb.family = Family::bollinger;
  bb.n = parse_int_axis("10:1005:5");
  bb.k = parse_real_axis("0.5:2.95:0.05");
  bb.style = {Style::reversion, Style::breakout};
  out.emplace_back("bollinger", bb);
  Grid rsi;
  rsi.family = Family::rsi_reversion;
  rsi.n = parse_int_axis("2:101:1");
  rsi.lo = parse_real_axis("10:48:2");
  rsi.hi = parse_real_axis("52:70:2");
  out.emplace_back("rsi_reversion", rsi);
  for (auto& [name, g] : out) g.validate();
  return out;
}

}  // namespace

int run_bench(Args args) {
  if (wants_help(args)) {
    print(kBenchUsage);
    return 0;
  }
  ParsedArgs parsed = parse_args(args, kBenchFlags);
  const int repeat = static_cast<int>(parsed.integer("repeat", 1, 1000).value_or(5));
  std::string warning;
  int all_threads = usable_threads(parsed.integer("threads", 1, 4096).value_or(0),
                                   static_cast<unsigned>(available_cores()), "--threads", &warning);
  if (!warning.empty()) std::fprintf(stderr, "wfo: warning: %s\n", warning.c_str());
  all_threads = resolve_threads(all_threads);

  const auto grids = bench_grids();
  size_t warmup = 0;
  for (const auto& [name, g] : grids) warmup = std::max(warmup, default_warmup(g));

  Series series;
  std::string data_text;
  if (auto path = parsed.text("csv")) {
    series = load_history(*path, false).series;
    data_text = *path + " (" + grouped(series.size()) + " bars)";
  } else {
    // 13,000 bars unless the default warm-up needs a few more.
    size_t bars = std::max(kSyntheticMinBars, kWindowBars + 1 + warmup);
    series = geometric_random_walk(bars, kSyntheticSeed);
    data_text = "synthetic geometric random walk (" + grouped(bars) + " bars, seed " +
                std::to_string(kSyntheticSeed) + ")";
  }

  auto backend = make_backend("cpu");
  std::vector<Timing> timings;
  for (const auto& [name, grid] : grids) {
    SweepRequest request;
    request.history = HistoryView::of(series);
    request.strategy.grid = grid;
    request.window = WindowSpec{series.size(), kWindowBars, default_warmup(grid)};
    check_window(request);
    for (int threads : {1, all_threads}) {
      timings.push_back(time_sweep(*backend, request, threads, repeat));
      timings.back().strategy = name;
      if (all_threads == 1) break;  // one row per strategy
    }
  }

  print(
      "wfo bench: ma_cross sma, bollinger and rsi_reversion (grids: wfo bench --help), "
      "backend " +
      std::string(backend->name()) + "\n");
  print("data: " + data_text + "; window " + grouped(kWindowBars) + " bars, warmup up to " +
        grouped(warmup) + "\n");
  print("machine: " + cpu_model() + ", " + std::to_string(std::thread::hardware_concurrency()) +
        " hardware threads; " + utc_now() + "; median of " + std::to_string(repeat) + " run" +
        (repeat == 1 ? "" : "s") + " after 1 warm-up\n\n");
  TextTable t;
  t.add_column("strategy");
  t.add_column("threads");
  t.add_column("combos evaluated");
  t.add_column("window bars");
  t.add_column("median s");
  t.add_column("combo-bars/s");
  t.add_column("speed-up");
  t.add_column("vs ma_cross");
  auto rate_of = [](const Timing& tm) {
    return static_cast<double>(tm.evaluated) * kWindowBars / tm.median_s;
  };
  const size_t per_strategy = all_threads == 1 ? 1 : 2;
  for (size_t i = 0; i < timings.size(); ++i) {
    const Timing& tm = timings[i];
    const Timing& one_thread = timings[i - i % per_strategy];
    const Timing& reference = timings[i % per_strategy];  // ma_cross at the same threads
    char rate_text[32];
    std::snprintf(rate_text, sizeof rate_text, "%.3e", rate_of(tm));
    t.add_row({tm.strategy, std::to_string(tm.threads), grouped(tm.evaluated), grouped(kWindowBars),
               fixed(tm.median_s, 4), rate_text, fixed(one_thread.median_s / tm.median_s, 2) + "x",
               fixed(rate_of(tm) / rate_of(reference), 2) + "x"});
  }
  print(t.render());
  return 0;
}

}  // namespace wfod::cli
