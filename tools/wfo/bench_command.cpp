// `wfo bench`: the ma_cross SMA throughput benchmark (20,000 combos over a 10,000-bar
// window, backend cpu) at 1 thread and at all threads; prints one table with machine info.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "history.hpp"
#include "output.hpp"
#include "synthetic_series.hpp"
#include "text_table.hpp"
#include "wfod/backend.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kUsage = R"(usage: wfo bench [--csv FILE] [--threads N] [--repeat R]

The ma_cross SMA benchmark: fast 2..101 x slow 10..1009 step 5 (20,000 combos; those with
fast >= slow are skipped), long_short, state entry, close fills, no costs, backend cpu,
over the last 10,000 bars of the CSV (warm-up: the default, 3 x the largest period).
Without --csv: a synthetic geometric random walk from a fixed seed, just long enough for
the window and its warm-up. Runs at 1 thread and at all threads; each time is the median
of R runs after one warm-up run.

  --csv FILE         bars to run on (at least 10,000 + 1 + warm-up of them)
  --threads N        the "all threads" count (std::thread::hardware_concurrency; more
                     than that is lowered to it with a warning)
  --repeat R         timed runs per thread count (5)
)";

constexpr std::array kFlags = {FlagSpec{"csv"}, FlagSpec{"threads"}, FlagSpec{"repeat"}};

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
  return {threads, evaluated, median};
}

}  // namespace

int run_bench(Args args) {
  if (wants_help(args)) {
    print(kUsage);
    return 0;
  }
  ParsedArgs parsed = parse_args(args, kFlags);
  const int repeat = static_cast<int>(parsed.integer("repeat", 1, 1000).value_or(5));
  std::string warning;
  int all_threads = usable_threads(parsed.integer("threads", 1, 4096).value_or(0),
                                   std::thread::hardware_concurrency(), "--threads", &warning);
  if (!warning.empty()) std::fprintf(stderr, "wfo: warning: %s\n", warning.c_str());
  if (all_threads == 0)
    all_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  StrategySpec spec;
  spec.grid.family = Family::ma_cross;
  spec.grid.fast = parse_int_axis("2:101:1");
  spec.grid.slow = parse_int_axis("10:1009:5");
  spec.grid.validate();
  const size_t warmup = default_warmup(spec.grid);

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

  SweepRequest request;
  request.history = HistoryView::of(series);
  request.strategy = spec;
  request.window = WindowSpec{series.size(), kWindowBars, warmup};
  check_window(request);
  auto backend = make_backend("cpu");

  std::vector<Timing> timings{time_sweep(*backend, request, 1, repeat)};
  if (all_threads != 1) timings.push_back(time_sweep(*backend, request, all_threads, repeat));

  print("wfo bench: ma_cross sma, fast 2..101 x slow 10..1009 step 5 = " +
        grouped(spec.grid.size()) + " combos, backend " + std::string(backend->name()) + "\n");
  print("data: " + data_text + "; window " + grouped(kWindowBars) + " bars, warmup " +
        grouped(warmup) + "\n");
  print("machine: " + cpu_model() + ", " + std::to_string(std::thread::hardware_concurrency()) +
        " hardware threads; " + utc_now() + "; median of " + std::to_string(repeat) + " run" +
        (repeat == 1 ? "" : "s") + " after 1 warm-up\n\n");
  TextTable t;
  t.add_column("threads");
  t.add_column("combos evaluated");
  t.add_column("window bars");
  t.add_column("median s");
  t.add_column("combo-bars/s");
  t.add_column("speed-up");
  for (const Timing& tm : timings) {
    double rate = static_cast<double>(tm.evaluated) * kWindowBars / tm.median_s;
    char rate_text[32];
    std::snprintf(rate_text, sizeof rate_text, "%.3e", rate);
    t.add_row({std::to_string(tm.threads), grouped(tm.evaluated), grouped(kWindowBars),
               fixed(tm.median_s, 4), rate_text,
               fixed(timings.front().median_s / tm.median_s, 2) + "x"});
  }
  print(t.render());
  return 0;
}

}  // namespace wfod::cli
