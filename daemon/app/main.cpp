// wfod's command line: --config FILE runs, --check-config FILE validates (exit 0 / 2), no
// argument runs the embedded demo configuration (config/examples/demo.toml, built in).

#include <malloc.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#ifdef WFOD_HAVE_SYSTEMD
#include <spdlog/sinks/systemd_sink.h>
#endif

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "daemon.hpp"
#include "keygen.hpp"
#include "wfod/backend.hpp"
#include "wfod/config/config.hpp"
#include "wfod/config/key_help.hpp"
#include "wfod/daemon/core/config_checks.hpp"
#include "wfod/daemon/core/log_target.hpp"
#include "wfod/daemon/core/preflight.hpp"
#include "wfod/daemon/demo_config.hpp"
#include "wfod/daemon/example_config.hpp"
#include "wfod/env_knobs.hpp"
#include "wfod/version.hpp"

namespace {

constexpr const char* kUsage =
    "usage: wfod [--config FILE | --check-config FILE | --keygen FILE | --help | --help-config |\n"
    "             --version]\n"
    "\n"
    "Streaming walk-forward optimiser daemon: subscribes to bar feeds (ZeroMQ), re-optimises\n"
    "each configured strategy every k bars and publishes the winning parameters.\n"
    "\n"
    "  --config FILE        run with FILE (TOML, PROTOCOL.md section 4)\n"
    "  --check-config FILE  validate FILE and exit: 0 valid, 2 invalid (error on stderr):\n"
    "                       its keys, endpoints and ports, the http address, that backfill\n"
    "                       files exist and parse, that state_dir can be created\n"
    "  --keygen FILE        write a new CURVE keypair to FILE (mode 0600, not overwritten)\n"
    "                       for [curve] key_file, print its public key, exit\n"
    "  (no argument)        run the built-in demo configuration (config/examples/demo.toml):\n"
    "                       state in ./wfod-state, GOOG backfill from ./data or the source\n"
    "                       tree's data/, publishing on tcp://127.0.0.1:5560 / :5561\n"
    "  --help, --version    this text; the version and the backends built in (exit 0)\n"
    "  --help-config        every configuration key: its table, what a SIGHUP does with it,\n"
    "                       whether it is required, what it means (exit 0)\n"
    "\n"
    "Signals: SIGTERM/SIGINT stop gracefully; SIGHUP reloads the configuration file.\n"
    "Exit: 0 stopped by a signal, 1 start-up failed, 2 invalid configuration (also at start),\n"
    "3 a bar log failed its checks at start ([daemon] on_corrupt_log = \"refuse\").\n";

// Under systemd, with stderr connected to the journal (log_target.hpp), lines go to the
// journal natively: each with its priority (warn -> warning, error -> err, critical -> crit)
// and no timestamp of ours beside the journal's. Elsewhere they go to stderr with a
// timestamp, coloured only where stderr is a terminal (spdlog's automatic mode checks
// isatty, so redirected logs get no escape codes). A build without libsystemd writing to
// the journal drops the timestamp but cannot set priorities. The level comes from
// [daemon] log_level (start-up and SIGHUP).
void set_up_logging() {
  const bool journal = wfod::daemon::log_target(wfod::env_value(wfod::Env::journal_stream),
                                                STDERR_FILENO) == wfod::daemon::LogTarget::journal;
  std::shared_ptr<spdlog::logger> logger;
#ifdef WFOD_HAVE_SYSTEMD
  if (journal) {
    // SYSLOG_IDENTIFIER=wfod; the message alone, the level travels as PRIORITY=.
    logger = std::make_shared<spdlog::logger>(
        "wfod", std::make_shared<spdlog::sinks::systemd_sink_mt>("wfod", false));
  }
#endif
  if (!logger) {
    logger = spdlog::stderr_color_mt("wfod", spdlog::color_mode::automatic);
    logger->set_pattern(journal ? "%^%l%$ %v" : "%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  }
  spdlog::set_default_logger(std::move(logger));
}

// The demo's backfill names a file in the repository's data/ folder: look for it in
// ./data first (running from a checkout or an unpacked release), then in the source tree
// this binary was built from.
std::string demo_backfill(const std::string& written) {
  namespace fs = std::filesystem;
  const fs::path name = fs::path(written).filename();
  for (const fs::path& dir : {fs::path("data"), fs::path(WFOD_REPO_DATA_DIR)}) {
    std::error_code ec;
    if (fs::exists(dir / name, ec)) return (dir / name).string();
  }
  return (fs::path(WFOD_REPO_DATA_DIR) / name).string();
}

int run_demo() {
  wfod::config::Config cfg;
  try {
    cfg = wfod::config::parse_config(wfod::daemon::kDemoConfigToml, wfod::daemon::kDemoConfigName);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wfod: embedded demo configuration: %s\n", e.what());
    return 2;
  }
  cfg.daemon.state_dir = "./wfod-state";
  for (auto& s : cfg.symbols) {
    if (!s.backfill.empty()) s.backfill = demo_backfill(s.backfill);
  }
  return wfod::daemon::run_daemon(std::move(cfg), "");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view arg = argc > 1 ? argv[1] : "";
  // A file-size limit (RLIMIT_FSIZE) must be a write error (EFBIG) that the bar store
  // handles like a full disk, not a signal that kills the daemon.
  std::signal(SIGXFSZ, SIG_IGN);
#ifdef __GLIBC__
  // Buffers of 1 MiB and more (a lagging stream's batches, selection's tables) come from
  // mmap and go back to the OS when freed. glibc's default raises this threshold after the
  // first such free, so later ones stay in the heap and RSS creeps up with the largest
  // transients seen; with it fixed, RSS follows what is live (bench/soak_bench).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  try {
    if (arg == "--keygen" && argc == 3) return wfod::daemon::run_keygen(argv[2]);
    set_up_logging();
    if (argc == 1) return run_demo();
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--help-config") {
      std::fputs(wfod::config::key_help_text(wfod::daemon::kExampleConfigToml).c_str(), stdout);
      return 0;
    }
    if (arg == "--version") {
      std::printf("wfod %s\nbackends: %s\n", wfod::kVersionText, wfod::backends_summary().c_str());
      return 0;
    }
    if ((arg == "--config" || arg == "--check-config") && argc == 3) {
      const std::string path = argv[2];
      const bool check_only = arg == "--check-config";
      wfod::config::Config cfg;
      std::vector<std::string> notes;
      std::string plan;  // the memory plan the checks held it to
      try {
        // The same checks before a run as for --check-config: a config that check-config
        // rejects never starts (exit 2 in both cases).
        cfg =
            wfod::daemon::load_checked_config(path,
                                              check_only ? wfod::daemon::StateDirUser::unknown
                                                         : wfod::daemon::StateDirUser::this_process,
                                              notes, &plan);
      } catch (const wfod::config::ConfigError& e) {
        // One line per error (the whole-configuration checks report all of theirs).
        std::string_view text = e.what();
        while (!text.empty()) {
          const size_t eol = std::min(text.find('\n'), text.size());
          std::fprintf(stderr, "wfod: %.*s\n", static_cast<int>(eol), text.data());
          text.remove_prefix(std::min(eol + 1, text.size()));
        }
        return 2;
      }
      for (const std::string& note : notes) std::fprintf(stderr, "wfod: %s\n", note.c_str());
      if (check_only) {
        std::printf("%s: valid (%zu symbol(s), %zu strategy(ies), %zu feed(s))\n%s\n", path.c_str(),
                    cfg.symbols.size(), cfg.strategies.size(), cfg.feeds.size(), plan.c_str());
        return 0;
      }
      spdlog::info("{}", plan);
      return wfod::daemon::run_daemon(std::move(cfg), path);
    }
  } catch (const std::exception& e) {
    spdlog::critical("wfod: {}", e.what());
    return 1;
  }
  // Say what was wrong with the command line before the usage text.
  const bool takes_file = arg == "--config" || arg == "--check-config" || arg == "--keygen";
  if (takes_file)
    std::fprintf(stderr, "wfod: %s takes exactly one FILE (%d argument(s) given)\n", argv[1],
                 argc - 2);
  else
    std::fprintf(stderr, "wfod: unknown argument '%s'\n", argv[1]);
  std::fputs(kUsage, stderr);
  return 2;
}
