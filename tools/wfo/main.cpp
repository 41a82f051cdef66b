// wfo entry point: picks the command, and maps errors to exit codes: 0 ok, 2 usage or
// input errors (bad flags, CSV, config, a grid without a valid combo, a plan over the memory
// budget, engine std::invalid_argument), 1 everything else: out of memory, a failed write
// (stdout or a report file), internal errors.

#include <array>
#include <atomic>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "report_stop.hpp"
#include "wfod/backend.hpp"
#include "wfod/config/config.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/version.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kWfoUsage = R"(usage: wfo COMMAND [flags]   (wfo COMMAND --help for its flags)

commands:
  sweep        optimise one window over a parameter grid; top-K table or --json
  walk         walk-forward analysis: per-fold winners, out-of-sample metrics, WFE
  indicators   one SPEC §4 indicator for every bar, as timestamp,value CSV
  bench        the ma_cross SMA throughput benchmark, 1 thread vs all threads
  positions    p_t of one combo of a grid for every bar, as CSV (what wfod's signals carry)
  trades       every trade of the top combo (or --walk: the stitched OOS series), as CSV
  merge        the result of a universe walk from its shards' partial files (--shard I/N)

The strategy: family flags (--family ...), a [[strategy]] of a config (--config FILE
--strategy NAME), or a rules strategy in a file of its own (--rules FILE, SPEC §5a;
docs/rules-files.md); sweep, walk and positions take all three.

wfo --version prints the version and the backends built in.

exit codes: 0 ok; 2 usage or input error (bad flags, data or config, a grid in which no
combo is valid, a run whose plan exceeds --memory-budget); 1 out of memory, a failed write
to stdout or a report file, or an internal error
)";

struct Command {
  std::string_view name;
  int (*run)(Args);
};

constexpr Command kCommands[] = {
    {"sweep", run_sweep}, {"walk", run_walk},           {"indicators", run_indicators},
    {"bench", run_bench}, {"positions", run_positions}, {"trades", run_trades},
    {"merge", run_merge}};

int error(const std::string& message) {
  std::fprintf(stderr, "wfo: error: %s\n", message.c_str());
  return 2;
}

int run(std::span<const std::string_view> argv) {
  if (argv.empty()) {
    std::fputs(kWfoUsage, stderr);
    return 2;
  }
  std::string_view name = argv.front();
  if (name == "--version") {
    print("wfo " + std::string(kVersionText) + "\nbackends: " + backends_summary() + "\n");
    return 0;
  }
  if (name == "--help" || name == "-h" || name == "help") {
    if (name == "help" && argv.size() > 1) {
      const std::array<std::string_view, 1> help = {"--help"};
      for (const auto& c : kCommands) {
        if (c.name == argv[1]) return c.run(help);
      }
    }
    print(kWfoUsage);
    return 0;
  }
  const Command* command = nullptr;
  for (const auto& c : kCommands) {
    if (c.name == name) command = &c;
  }
  if (command == nullptr) {
    return error("unknown command '" + std::string(name) +
                 "' (sweep | walk | indicators | bench | positions | trades | merge; wfo --help)");
  }
  try {
    return command->run(argv.subspan(1));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "wfo: error: %s\n(wfo %s --help lists the flags)\n", e.what(),
                 std::string(name).c_str());
    return 2;
  } catch (const InputError& e) {
    return error(e.what());
  } catch (const feeds::CsvError& e) {
    return error(e.what());
  } catch (const config::ConfigError& e) {
    return error(e.what());
  } catch (const std::invalid_argument& e) {
    return error(e.what());
  }
}

// The engine ran on fewer threads than asked (the system refused one): said once per run.
void warn_thread_shortfall(int wanted, int started, const char* reason) {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  std::fprintf(stderr, "wfo: warning: could not start %d of %d threads (%s); running on %d\n",
               wanted - started, wanted, reason, started);
}

}  // namespace

}  // namespace wfod::cli

int main(int argc, char** argv) {
  wfod::set_thread_shortfall_handler(&wfod::cli::warn_thread_shortfall);
  int code = 1;
  try {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    code = wfod::cli::run(args);
    // A run that failed before writing its report leaves no empty --report folder.
    if (code != 0) wfod::cli::remove_unfilled_report_dirs();
    wfod::cli::close_stdout();  // a result that did not reach stdout is no success
  } catch (const wfod::cli::WriteError& e) {
    std::fprintf(stderr, "wfo: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fputs(
        "wfo: error: out of memory: the run needs more memory than the system allows; try a "
        "smaller grid, --no-selection, fewer --threads or a lower --memory-budget\n",
        stderr);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wfo: internal error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "wfo: internal error: unknown exception\n");
    return 1;
  }
  return code;
}
