// plan_estimate_bench: the plan line's time estimate against the measured run (issue 42 §3).
// Three shapes on the shared real data (/work/shared/data), each run through the `wfo` binary
// with --json: its "timing" carries the estimate the plan line printed ("estimate", from
// run_plan.cpp's model) and the bench times the process around it, so both come from the
// code path a user runs. cpu at 1 thread and at every hardware thread; cuda where `wfo
// --backend cuda` finds a device. Prints one table (bench/RESULTS.md "Plan estimates (issue
// 42)"); exits 0 whatever the ratios: a measurement, not a test.
//
// usage: plan_estimate_bench [WFO [DATA_DIR]]
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#ifndef WFOD_WFO_PATH
#define WFOD_WFO_PATH "wfo"
#endif
#ifndef WFOD_SHARED_DATA_DIR
#define WFOD_SHARED_DATA_DIR "../shared/data"
#endif

namespace {

struct Shape {
  const char* name;
  std::string args;  // after "wfo", without --csv's directory, --backend, --threads
};

struct Outcome {
  double estimate = 0, measured = 0, selection_estimate = 0;
  std::string path;
};

// Runs `wfo ARGS --json`; nullopt (and the reason on stderr) when it fails, e.g. no device.
std::optional<Outcome> run_wfo(const std::string& command) {
  const auto start = std::chrono::steady_clock::now();
  FILE* pipe = popen((command + " 2>/tmp/plan_estimate_bench.err").c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  std::array<char, 65536> buf;
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status != 0 || out.empty()) {
    std::fprintf(stderr,
                 "plan_estimate_bench: `%s` failed (status %d); see "
                 "/tmp/plan_estimate_bench.err\n",
                 command.c_str(), status);
    return std::nullopt;
  }
  const nlohmann::json j = nlohmann::json::parse(out);
  const auto& e = j.at("timing").at("estimate");
  Outcome o;
  o.estimate = e.at("seconds").get<double>();
  o.selection_estimate = e.at("selection_seconds").get<double>();
  o.path = e.at("selection_path").get<std::string>();
  o.measured = wall;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string wfo = argc > 1 ? argv[1] : WFOD_WFO_PATH;
  const std::string data = argc > 2 ? argv[2] : WFOD_SHARED_DATA_DIR;
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  // The two sweeps (20,000 ma_cross combos with default selection: the screened CSCV
  // walk; a calmar sweep: the plain walk) and a walk of another family with default selection.
  const std::vector<Shape> shapes = {
      {"sweep ma_cross 20,000, default selection",
       "sweep --csv " + data +
           "/btcperp_ftx_m1_2022-01.csv --family ma_cross --fast 2:101:1 "
           "--slow 110:309:1 --top 3"},
      {"sweep ma_cross 10,000, calmar",
       "sweep --csv " + data +
           "/usdjpy_fxcm_bid_m1_2013-02.csv --family ma_cross --fast 2:51:1 "
           "--slow 60:259:1 --objective calmar --top 3"},
      {"walk rsi_reversion 1,000 x 34 folds, default selection",
       "walk --csv " + data +
           "/btcperp_ftx_m1_2022-01.csv --family rsi_reversion --n 2:41:1 "
           "--lo 20:40:5 --hi 60:80:5 --is 10000 --oos 1000 --top 3"},
  };
  struct Row {
    std::string shape, backend, path;
    int threads;
    Outcome o;
  };
  std::vector<Row> rows;
  std::vector<int> thread_counts = {1};
  if (hw > 1) thread_counts.push_back(hw);
  bool cuda = true;
  for (const Shape& s : shapes) {
    for (int t : thread_counts) {
      const std::string cmd =
          wfo + " " + s.args + " --backend cpu --threads " + std::to_string(t) + " --json";
      if (auto o = run_wfo(cmd)) rows.push_back({s.name, "cpu", o->path, t, *o});
    }
    if (cuda) {
      const std::string cmd = wfo + " " + s.args + " --backend cuda --threads 0 --json";
      if (auto o = run_wfo(cmd)) {
        rows.push_back({s.name, "cuda", o->path, hw, *o});
      } else {
        cuda = false;  // no device (or no cuda build): the other shapes skip it too
      }
    }
  }

  std::printf(
      "| shape | backend | threads | selection path | estimate s (of which selection) | "
      "measured s | estimate / measured | within 2x |\n");
  std::printf("|---|---|---:|---|---:|---:|---:|---|\n");
  int within = 0;
  for (const Row& r : rows) {
    const double ratio = r.o.estimate / r.o.measured;
    const bool ok = ratio >= 0.5 && ratio <= 2.0;
    within += ok;
    std::printf("| %s | %s | %d | %s | %.2f (%.2f) | %.2f | %.2f | %s |\n", r.shape.c_str(),
                r.backend.c_str(), r.threads, r.path.c_str(), r.o.estimate, r.o.selection_estimate,
                r.o.measured, ratio, ok ? "yes" : "**no**");
  }
  std::printf("\n%d of %zu within 2x%s\n", within, rows.size(),
              cuda ? "" : " (cuda: no device here, not run)");
  return 0;
}
