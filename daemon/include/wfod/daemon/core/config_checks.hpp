// The daemon's checks of a whole parsed configuration (PROTOCOL §4), beyond what the loader
// checks key by key: that there is something to run (a [[symbol]] and a [[strategy]]).
// Run by --check-config, at start and by every SIGHUP reload (a file that fails them is
// never applied), so a config that check-config passes is one the daemon can run. A pure
// function of the parsed Config and of what it may ask of the machine (CheckEnvironment),
// so unit tests drive it without files.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/config/config.hpp"

namespace wfod::daemon {

struct ConfigFinding {
  bool error = true;  // false: a warning (logged, the config still runs)
  std::string text;   // "FILE:LINE:COL: key 'KEY': MESSAGE" (Config::located)
};

// What the checks may ask of the machine; a default-constructed one asks nothing.
struct CheckEnvironment {
  // Memory the daemon may use (cgroup memory.max, else physical RAM); 0 = unknown.
  uint64_t memory_bytes = 0;
  // Whether a directory exists (the folder of an ipc:// endpoint); empty = not checked.
  std::function<bool(const std::string& dir)> directory_exists;
  // The size query of the backend a stream falls back to (the cpu backend's: what a stream
  // of the spec holds in host memory, Backend::stream_memory); empty = no memory plan.
  std::function<StreamMemory(const StreamSpec&)> stream_memory;
  // Why the daemon's backend cannot run a strategy's streams, "" when it can (backend_fit.hpp:
  // asked through the backend seam); `selection`: robust selection is on. Empty = not checked.
  std::function<std::string(const StrategySpec&, bool selection)> backend_refusal;
  // Where the daemon's backend runs on a device: the device bytes a stream of the spec
  // allocates there (its Backend::stream_memory) and the device memory free now
  // (Backend::device_memory_free). Empty = no device plan (a host backend, no GPU, tests).
  std::function<StreamMemory(const StreamSpec&)> device_stream_memory;
  std::function<uint64_t()> device_free_bytes;
};

// [daemon] memory_budget_mb = 0: this share of the memory wfod may use (cgroup memory.max,
// else RAM), leaving room for the page cache of the bar logs, the allocator and the kernel.
inline constexpr double kDefaultMemoryBudgetShare = 0.8;

// The memory plan of a configuration (issue 43 item 1): every stream (symbol x strategy)
// at what its backend's size query says it holds at most, plus each symbol's bars in memory
// and the process itself, against the budget. Shown by `wfod --check-config`.
struct MemoryPlanLine {
  std::string symbol, strategy;
  uint64_t combos = 0;  // the grid's size
  uint64_t host_bytes = 0;
  uint64_t device_bytes = 0;  // on the daemon's device (0: a host backend or no device plan)
};
struct MemoryPlan {
  std::vector<MemoryPlanLine> streams;  // in config order
  uint64_t symbols_bytes = 0;           // bars kept per symbol (window + warm-up + 2 of each)
  uint64_t process_bytes = 0;           // the program, its libraries, sockets and buffers
  uint64_t budget_bytes = 0;            // 0 = no budget known
  std::string budget_source;            // "memory_budget_mb", "80% of cgroup memory.max / RAM"
  // The device's side, where the backend runs on one: its budget (0 = no device plan) and
  // what it was taken from.
  uint64_t device_budget_bytes = 0;
  std::string device_budget_source;
  uint64_t total() const;
  uint64_t device_total() const;  // every stream's device_bytes
};
// Empty streams when env has no stream_memory.
MemoryPlan plan_memory(const config::Config& config, const CheckEnvironment& env);
// One line: "memory plan: 3 streams 1.2 GiB (largest BTC/trend 1.1 GiB), symbols' bars
// 4.6 MiB, process 64.0 MiB: 1.3 GiB of a 12.4 GiB budget ([daemon] memory_budget_mb = 0: ...)".
std::string memory_plan_text(const MemoryPlan& plan);

// Every error and warning of `config`, errors first, each in file order.
std::vector<ConfigFinding> check_daemon_config(const config::Config& config,
                                               const CheckEnvironment& env);

// The running machine's answers (memory from the cgroup or /proc, stat(2) for folders), and
// where `backend` is given, what the backend `[daemon] backend = backend` makes runs (made on
// the first strategy asked about; a reload asks the running backend instead).
CheckEnvironment system_check_environment(const std::string& backend = "");

// check_daemon_config, then: any error throws config::ConfigError with every error, one
// per line; otherwise the warnings' texts are returned.
std::vector<std::string> enforce_daemon_config(const config::Config& config,
                                               const CheckEnvironment& env);

}  // namespace wfod::daemon
