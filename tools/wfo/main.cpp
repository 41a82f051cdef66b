// wfo entry point: picks the command, and maps errors to exit codes: 0 ok, 2 usage or
// input errors (bad flags, CSV, config, engine std::invalid_argument), 1 internal errors.

#include <array>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "wfod/config/config.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kUsage = R"(usage: wfo COMMAND [flags]   (wfo COMMAND --help for its flags)

commands:
  sweep        optimise one window over a parameter grid; top-K table or --json
  walk         walk-forward analysis: per-fold winners, out-of-sample metrics, WFE
  indicators   one SPEC §4 indicator for every bar, as timestamp,value CSV
  bench        the ma_cross SMA throughput benchmark, 1 thread vs all threads

exit codes: 0 ok, 2 usage or input error, 1 internal error
)";

struct Command {
  std::string_view name;
  int (*run)(Args);
};

constexpr Command kCommands[] = {
    {"sweep", run_sweep}, {"walk", run_walk}, {"indicators", run_indicators}, {"bench", run_bench}};

int error(const std::string& message) {
  std::fprintf(stderr, "wfo: error: %s\n", message.c_str());
  return 2;
}

int run(std::span<const std::string_view> argv) {
  if (argv.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string_view name = argv.front();
  if (name == "--help" || name == "-h" || name == "help") {
    if (name == "help" && argv.size() > 1) {
      const std::array<std::string_view, 1> help = {"--help"};
      for (const auto& c : kCommands) {
        if (c.name == argv[1]) return c.run(help);
      }
    }
    std::fputs(kUsage, stdout);
    return 0;
  }
  const Command* command = nullptr;
  for (const auto& c : kCommands) {
    if (c.name == name) command = &c;
  }
  if (command == nullptr) {
    return error("unknown command '" + std::string(name) +
                 "' (sweep | walk | indicators | bench; wfo --help)");
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

}  // namespace

}  // namespace wfod::cli

int main(int argc, char** argv) {
  try {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    return wfod::cli::run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wfo: internal error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "wfo: internal error: unknown exception\n");
    return 1;
  }
}
