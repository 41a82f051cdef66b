// rules_stream_bench: the cpu backend's bounded rules stream (rules_stream.hpp) against the
// stream that keeps every bar and re-sweeps the window on the history from the anchor
// (open_sweep_stream: what the rules stream did before it was bounded), on the pullback
// example rules file with its stops, over a minute-like random walk. Per history length: the
// seconds to open, the seconds per single-bar advance, the footprint and the checkpoint bytes
// (the sweep stream writes none: the bars it keeps are 48 B each), and whether both streams'
// results agree to the bit over the probes.
// Usage: rules_stream_bench [histories=20000,100000] [window=1000] [probes=50] [threads=1]
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_series.hpp"
#include "wfod/backend.hpp"
#include "wfod/config/config.hpp"

using namespace wfod;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Bar bar_of(const Series& s, size_t t) {
  return Bar{s.ts_ns[t], s.open[t], s.high[t], s.low[t], s.close[t], s.volume[t], 0};
}

bool same(const SweepResult& a, const SweepResult& b) {
  if (a.top.size() != b.top.size() || a.ranked != b.ranked) return false;
  for (size_t i = 0; i < a.top.size(); ++i)
    if (a.top[i].combo.id != b.top[i].combo.id ||
        std::bit_cast<uint64_t>(a.top[i].objective) != std::bit_cast<uint64_t>(b.top[i].objective))
      return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> histories{20000, 100000};
  if (argc > 1) {
    histories.clear();
    std::stringstream list(argv[1]);
    for (std::string item; std::getline(list, item, ',');) histories.push_back(std::stoul(item));
  }
  const size_t window = argc > 2 ? std::stoul(argv[2]) : 1000;
  const size_t probes = argc > 3 ? std::stoul(argv[3]) : 50;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 1;

  const config::StrategyConfig pullback = config::load_rules_file(
      std::string(WFOD_SOURCE_DIR) + "/config/examples/pullback.rules.toml");
  StreamSpec spec;
  spec.strategy = pullback.spec;
  spec.window = window;
  spec.warmup = default_warmup(spec.strategy.grid);
  spec.rank.top = 10;
  spec.threads = threads;
  size_t longest = 0;
  for (size_t h : histories) longest = std::max(longest, h);
  const Series s = bench::random_walk(longest + probes + 1, 11, bench::kMinuteWalk);
  std::unique_ptr<Backend> cpu = make_backend("cpu");
  std::printf("pullback example (%llu combos), W %zu, %d thread(s), %zu single-bar advances\n",
              static_cast<unsigned long long>(spec.strategy.grid.size()), window, threads, probes);
  std::printf("%9s %-9s %9s %12s %13s %13s %s\n", "history", "stream", "open s", "advance ms",
              "footprint B", "checkpoint B", "bit-equal");
  for (size_t h : histories) {
    const HistoryView head = HistoryView::of(s).prefix(h);
    auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<Stream> bounded = cpu->open_stream(spec, head);
    const double open_bounded = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    std::unique_ptr<Stream> sweeping = open_sweep_stream(*cpu, spec, head);
    const double open_sweeping = seconds_since(t0);
    double bounded_s = 0, sweeping_s = 0;
    bool equal = true;
    for (size_t i = 0; i < probes; ++i) {
      const Bar b = bar_of(s, h + i);
      t0 = std::chrono::steady_clock::now();
      const SweepResult rb = bounded->advance(std::span<const Bar>(&b, 1));
      bounded_s += seconds_since(t0);
      t0 = std::chrono::steady_clock::now();
      const SweepResult rs = sweeping->advance(std::span<const Bar>(&b, 1));
      sweeping_s += seconds_since(t0);
      equal = equal && same(rb, rs);
    }
    const double n = static_cast<double>(probes);
    std::printf("%9zu %-9s %9.3f %12.3f %13zu %13zu %s\n", h, "bounded", open_bounded,
                1e3 * bounded_s / n, bounded->stats().footprint_bytes, bounded->checkpoint().size(),
                equal ? "yes" : "NO");
    std::printf("%9zu %-9s %9.3f %12.3f %13zu %13zu\n", h, "sweeping", open_sweeping,
                1e3 * sweeping_s / n, sweeping->stats().footprint_bytes, (h + probes) * 48);
  }
  return 0;
}
