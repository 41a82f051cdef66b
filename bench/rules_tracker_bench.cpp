// rules_tracker_bench: the cost of following one rules combo (SPEC §5a) bar by bar, as the
// daemon's loop does for signals, after a long history: the replaying tracker (every bar kept,
// the backend's positions recomputed over the whole history on each read) against the
// incremental rules tracker (src/rules_tracker.hpp). The strategy is the pullback example
// (config/examples/pullback.rules.toml) with its first combo that has a stop; the bars a seeded
// minute random walk (bench_series.hpp).
// Usage: rules_tracker_bench [histories=100000,500000] [replay_probes=3] [tracker_probes=100000]
// Prints, per history length H: per-bar seconds of the replay (append one bar, read last())
// through cpu_ref's and cpu's positions sources, and of the incremental tracker (the same,
// averaged over tracker_probes bars after H), plus each tracker's footprint.
#include <algorithm>
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
#include "wfod/position_tracker.hpp"

using namespace wfod;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<Bar> bars_between(const Series& s, size_t from, size_t to) {
  std::vector<Bar> out;
  out.reserve(to - from);
  for (size_t i = from; i < to; ++i)
    out.push_back(Bar{s.ts_ns[i], s.open[i], s.high[i], s.low[i], s.close[i], s.volume[i], 0});
  return out;
}

// Per-bar seconds of `t` over `probes` single-bar appends after bar `from`, each read back.
double per_bar(PositionTracker& t, const Series& s, size_t from, size_t probes, int& sink) {
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = from; i < from + probes; ++i) {
    t.append(bars_between(s, i, i + 1));
    sink += t.last();
  }
  return seconds_since(t0) / static_cast<double>(probes);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> histories{100000, 500000};
  if (argc > 1) {
    histories.clear();
    std::stringstream list(argv[1]);
    for (std::string item; std::getline(list, item, ',');) histories.push_back(std::stoul(item));
  }
  const size_t replay_probes = argc > 2 ? std::stoul(argv[2]) : 3;
  const size_t tracker_probes = argc > 3 ? std::stoul(argv[3]) : 100000;
  size_t longest = 0;
  for (size_t h : histories) longest = std::max(longest, h);

  const config::StrategyConfig pullback = config::load_rules_file(
      std::string(WFOD_SOURCE_DIR) + "/config/examples/pullback.rules.toml");
  const StrategySpec& spec = pullback.spec;
  Combo combo;
  for (uint64_t id = 0; id < spec.grid.size(); ++id) {
    combo = spec.grid.decode(id);
    if (combo.valid() && combo.stops_on()) break;
  }
  const Series s = bench::random_walk(longest + std::max(replay_probes, tracker_probes) + 1, 7,
                                      bench::kMinuteWalk);
  std::printf("pullback example, combo %llu (stop_loss %g, take_profit %g), fill %s\n",
              static_cast<unsigned long long>(combo.id), combo.stop_loss, combo.take_profit,
              spec.fill == Fill::close ? "close" : "next_open");
  std::printf("%10s %-22s %14s %14s\n", "history", "tracker", "s per bar", "footprint B");
  int sink = 0;
  for (size_t h : histories) {
    const std::vector<Bar> history = bars_between(s, 0, h);
    for (const char* name : {"cpu_ref", "cpu"}) {
      const std::unique_ptr<Backend> backend = make_backend(name);
      PositionTracker replay(spec, combo, backend->positions_source());
      replay.append(history);
      sink += replay.last();
      const double sec = per_bar(replay, s, h, replay_probes, sink);
      std::printf("%10zu %-22s %14.6g %14zu\n", h, (std::string("replay via ") + name).c_str(), sec,
                  replay.footprint_bytes());
    }
    const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
    PositionTracker t = PositionTracker::make(*ref, spec, combo);
    t.set_keep(1024);
    const auto t0 = std::chrono::steady_clock::now();
    t.append(history);
    const double catch_up = seconds_since(t0) / static_cast<double>(h);
    const double sec = per_bar(t, s, h, tracker_probes, sink);
    std::printf("%10zu %-22s %14.6g %14zu   (catching up on the history: %.3g s per bar)\n", h,
                "incremental", sec, t.footprint_bytes(), catch_up);
  }
  return sink == 42 ? 1 : 0;  // keeps the reads alive
}
