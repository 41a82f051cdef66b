// rules_bench: the cpu backend's rules strategies (SPEC §5a) against the built-in ma_cross
// kernel, per combo-bar at a given thread count (issue 45 item 5, its cpu half). Cases, each a
// full cpu sweep of one window (rows, lanes, ranking; what `wfo sweep` times as `sweep`):
//   A  built-in ma_cross (sma, state, long_short), fast x slow
//   R  the same strategy written as rules (builtin_rules.cpp), same axes
//   S  long_entry = f > s and r < $lvl, long_exit = crosses_below(f, s) (f = ema($fast),
//      s = sma($slow), r = rsi(14)), $lvl = 60, stop_loss {0.01, 0.02, 0.03}, same fast x slow
// Usage: rules_bench CSV [window=10000] [threads=1] [reps=3] [fast_max=101] [slow_max=1009]
//        [cases=ARS] [backend=cpu] (cases: a subset, e.g. R alone under a profiler; A always
//        runs. backend: cuda times the device's sweeps by the wall clock, not CPU time)
// Prints each case's best (minimum) sweep CPU seconds (and that run's wall seconds), valid combos
// and combo-bars/s, and the ratios R/A and S/A of time per combo-bar (targets: 1.5 and 3).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/rules/builtin_rules.hpp"
#include "wfod/rules/rules.hpp"

using namespace wfod;

namespace {

std::vector<int> range(int a, int b, int step) {
  std::vector<int> v;
  for (int x = a; x <= b; x += step) v.push_back(x);
  return v;
}
std::vector<double> doubles(const std::vector<int>& v) { return {v.begin(), v.end()}; }

struct Timed {
  double seconds = 1e300;  // process CPU seconds (all threads), the best run's
  double wall = 0;         // that run's wall seconds
  uint64_t valid = 0;
};

// CPU time of the process: on a VM shared with other builds the wall clock also counts the
// time other processes held the cores; at 1 thread the CPU time is the work's own.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

Timed time_sweep(Backend& cpu, const HistoryView& h, const Grid& grid, size_t window, int threads,
                 int reps, bool wall_clock) {
  SweepRequest req;
  req.history = h;
  req.strategy.grid = grid;
  req.strategy.bars_per_year = 252;
  req.window = {h.size(), window, default_warmup(grid)};
  req.threads = threads;
  Timed t;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu0 = cpu_seconds();
    const SweepResult r = cpu.sweep(req);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double s = wall_clock ? wall : cpu_seconds() - cpu0;
    if (s < t.seconds) {
      t.seconds = s;
      t.wall = wall;
    }
    t.valid = r.evaluated;
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: rules_bench CSV [window=10000] [threads=1] [reps=3] [fast_max=101] "
                 "[slow_max=1009]\n");
    return 2;
  }
  const size_t window = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 10000;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  const int reps = argc > 4 ? std::atoi(argv[4]) : 3;
  const int fast_max = argc > 5 ? std::atoi(argv[5]) : 101;
  const int slow_max = argc > 6 ? std::atoi(argv[6]) : 1009;
  const std::string which = argc > 7 ? argv[7] : "ARS";
  const std::string backend_name = argc > 8 ? argv[8] : "cpu";
  // A device's sweep is the device's time: CPU time would count the host thread's waits.
  const bool wall_clock = backend_name != "cpu" && backend_name != "cpu_ref";
  const Series series = feeds::read_csv(argv[1]).series;
  const HistoryView h = HistoryView::of(series);
  std::unique_ptr<Backend> cpu = make_backend(backend_name);

  Grid a;
  a.family = Family::ma_cross;
  a.fast = range(2, fast_max, 1);
  a.slow = range(10, slow_max, 5);

  Grid r;
  r.family = Family::rules;
  r.program =
      std::make_shared<const rules::Program>(rules::compile(rules::builtin_rules(a.decode(0))));
  r.rule_axes = {doubles(a.fast), doubles(a.slow)};

  rules::RulesText text;
  text.params = {"fast", "slow", "lvl"};
  text.indicators = {{"f", "ema($fast)"}, {"s", "sma($slow)"}, {"r", "rsi(14)"}};
  text.long_entry = "f > s and r < $lvl";
  text.long_exit = "crosses_below(f, s)";
  text.valid = "$fast < $slow";
  Grid s;
  s.family = Family::rules;
  s.program = std::make_shared<const rules::Program>(rules::compile(text));
  s.rule_axes = {doubles(a.fast), doubles(a.slow), {60}};
  s.stop_loss = {0.01, 0.02, 0.03};

  std::printf("rules_bench: %s, %zu bars, window %zu, backend %s, %d thread(s), best of %d\n",
              argv[1], h.size(), window, backend_name.c_str(), threads, reps);
  std::printf(wall_clock ? "| case | valid combos | sweep wall s | (wall s) | combo-bars/s | per "
                           "combo-bar vs A |\n"
                         : "| case | valid combos | sweep CPU s | (wall s) | combo-bars/CPU s | "
                           "per combo-bar vs A |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  const Timed ta = time_sweep(*cpu, h, a, window, threads, reps, wall_clock);
  const double rate_a = static_cast<double>(ta.valid) * static_cast<double>(window) / ta.seconds;
  auto row = [&](const char* name, const Timed& t) {
    const double rate = static_cast<double>(t.valid) * static_cast<double>(window) / t.seconds;
    std::printf("| %s | %llu | %.3f | %.3f | %.3g | %.2fx |\n", name,
                static_cast<unsigned long long>(t.valid), t.seconds, t.wall, rate, rate_a / rate);
  };
  row("A built-in ma_cross", ta);
  if (which.find('R') != std::string::npos)
    row("R ma_cross written as rules", time_sweep(*cpu, h, r, window, threads, reps, wall_clock));
  if (which.find('S') != std::string::npos)
    row("S f > s and r < $lvl, 3 stop_loss",
        time_sweep(*cpu, h, s, window, threads, reps, wall_clock));
  return 0;
}
