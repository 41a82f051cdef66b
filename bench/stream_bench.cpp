// Streaming benchmark: ma_cross SMA over W = 10,000 bars (or `window`), re-optimised on every
// new bar (k = 1) through Stream::advance, against a full sweep of the same window in the
// same run. Prints one table: advance latency percentiles over consecutive bars, the full
// sweep's median time, the speed-up, the stream's memory footprint, its size query
// (Backend::stream_memory, what the memory plans budget) and its open (rebuild) time over
// `open` bars (default warmup + W + 65).
//   stream_bench [backend=cpu] [combos=20k|1m] [bars=1000] [chunk=0 (default heuristic)]
//                [window=10000] [open=0 (default)]
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
#include "wfod/backend.hpp"

using namespace wfod;

namespace {

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The process's CPU time (every thread), in ms: on a shared machine it moves far less than
// the wall time with what else runs.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string backend_name = argc > 1 ? argv[1] : "cpu";
  const std::string size = argc > 2 ? argv[2] : "20k";
  const size_t streamed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1000;
  const size_t chunk = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 0;
  const size_t window = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 10'000;
  const size_t open_bars = argc > 6 ? std::strtoull(argv[6], nullptr, 10) : 0;

  StreamSpec spec;
  Grid& g = spec.strategy.grid;
  if (size == "1m") {  // fast 2..201 x slow 10..5009: 1,000,000 ids, valid where fast < slow
    g.fast = bench::range(2, 201);
    g.slow = bench::range(10, 5009);
  } else {  // fast 2..21 x slow 10..1009: 20,000 combos
    g.fast = bench::range(2, 21);
    g.slow = bench::range(10, 1009);
  }
  spec.window = window;
  spec.warmup = default_warmup(g);
  spec.chunk = chunk;
  const size_t opened = std::max(open_bars, spec.warmup + spec.window + 1 + 64);
  const Series all = bench::random_walk(opened + streamed, 7, bench::kMinuteWalk);

  auto backend = make_backend(backend_name);
  const StreamMemory plan = backend->stream_memory(spec);
  auto t0 = std::chrono::steady_clock::now();
  auto stream = backend->open_stream(spec, HistoryView::of(all).prefix(opened));
  const double open_s = seconds_since(t0);

  std::vector<double> lat, cpu, prepare, wait;
  lat.reserve(streamed);
  SweepResult last;
  for (size_t t = opened; t < all.size(); ++t) {
    const Bar b{all.ts_ns[t], all.open[t], all.high[t], all.low[t], all.close[t], 1000, 0};
    t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_ms();
    last = stream->advance(std::span<const Bar>(&b, 1));
    lat.push_back(seconds_since(t0) * 1e3);
    cpu.push_back(cpu_ms() - c0);
    prepare.push_back(stream->stats().last_prepare_ms);
    wait.push_back(stream->stats().last_wait_ms);
  }

  // The full sweep of the last window, median of 3, and a check that it agrees.
  SweepRequest req;
  req.history = HistoryView::of(all);
  req.strategy = spec.strategy;
  req.window = {all.size(), spec.window, spec.warmup};
  std::vector<double> sweeps;
  SweepResult full;
  for (int i = 0; i < 3; ++i) {
    t0 = std::chrono::steady_clock::now();
    full = backend->sweep(req);
    sweeps.push_back(seconds_since(t0) * 1e3);
  }
  const bool same = !full.top.empty() && !last.top.empty() &&
                    full.top.front().combo.id == last.top.front().combo.id &&
                    full.top.front().metrics.trades == last.top.front().metrics.trades;

  const StreamStats st = stream->stats();
  const double sweep_ms = percentile(sweeps, 0.5);
  const double p50 = percentile(lat, 0.5), p99 = percentile(lat, 0.99);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  std::printf(
      "# stream_bench %s %s, W=%zu, k=1, opened on %zu bars, %zu consecutive advances, %s\n",
      backend_name.c_str(), size.c_str(), spec.window, opened, lat.size(), date);
  std::printf("# size query (stream_memory): host %llu bytes, device %llu bytes\n",
              static_cast<unsigned long long>(plan.host_bytes),
              static_cast<unsigned long long>(plan.device_bytes));
  std::printf(
      "| backend | combos (valid) | chunk | footprint MB | open s | advance p50 ms | p90 ms | "
      "p99 ms | max ms | full sweep ms | sweep/p50 | sweep/p99 | top-1 agrees |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::printf(
      "| %s | %llu | %zu | %.1f | %.2f | %.3f | %.3f | %.3f | %.3f | %.2f | %.1fx | %.1fx | %s |\n",
      std::string(backend->name()).c_str(), static_cast<unsigned long long>(full.evaluated),
      st.chunk, static_cast<double>(st.footprint_bytes) / 1e6, open_s, p50, percentile(lat, 0.9),
      p99, percentile(lat, 1.0), sweep_ms, sweep_ms / p50, sweep_ms / p99, same ? "yes" : "NO");
  double cpu_sum = 0;
  for (double c : cpu) cpu_sum += c;
  std::printf(
      "\nadvance CPU time (process, every thread) p50 / p99 / max / mean ms: %.3f / %.3f / %.3f / "
      "%.3f\n",
      percentile(cpu, 0.5), percentile(cpu, 0.99), percentile(cpu, 1.0),
      cpu_sum / static_cast<double>(cpu.size()));
  if (percentile(wait, 1.0) > 0)
    std::printf(
        "\nadvance split (p50 / p99 ms): host prepare %.3f / %.3f, device wait %.3f / %.3f\n",
        percentile(prepare, 0.5), percentile(prepare, 0.99), percentile(wait, 0.5),
        percentile(wait, 0.99));
  return same ? 0 : 1;
}
