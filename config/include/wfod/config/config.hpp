// Typed configuration (PROTOCOL.md §4) loaded from TOML. Every error names the file, line,
// column and key; unknown keys and tables are errors.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/selection/selection_spec.hpp"

namespace wfod::config {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class FsyncPolicy { every, batch, none };
enum class FeedFormat { json, binary };
// [daemon] on_corrupt_log (PROTOCOL §4): what start-up does with a bar log that fails its
// checks in a way a crash cannot explain (docs/operations.md "Torn or corrupt logs").
enum class CorruptLogPolicy { refuse, quarantine };

inline constexpr int64_t kDefaultMinTsNs = int64_t{31'536'000} * 1'000'000'000;  // 1971-01-01

struct DaemonConfig {
  std::string state_dir = "/var/lib/wfod";
  std::string backend = "auto";  // auto | cpu | cuda (cpu_ref also accepted, for tests)
  Precision precision = Precision::exact;
  int threads = 0;
  std::string log_level = "info";
  FsyncPolicy fsync = FsyncPolicy::batch;
  // Latency mode (docs/operations.md): after each piece of work the event loop and the worker
  // keep polling for this long before they sleep, so the next bar or result needs no thread
  // wake-up (tens to hundreds of microseconds each). Costs up to two busy cores; 0 = off.
  int busy_poll_us = 0;
  // PROTOCOL §1 `future`: a feed bar stamped more than this many seconds after the daemon's
  // clock is rejected (a later bar is never out_of_order against it); 0 = off.
  int max_future_s = 300;
  // Feed bars stamped before this (ns since the epoch) are rejected as `field`: a ts in
  // seconds or milliseconds instead of nanoseconds reads as 1970 (issue 43 item 9).
  // Backfill files are not held to it. Default 1971-01-01T00:00:00Z; 0 = only ts >= 0.
  int64_t min_ts_ns = kDefaultMinTsNs;
  // At shutdown, accepted bars the disk refuses (full, I/O error) are retried this long
  // before the daemon gives up on them and exits 4 (docs/operations.md "Exit codes"). Keep it
  // well below systemd's TimeoutStopSec (30 s in systemd/wfod.service).
  int stop_retry_s = 5;
  // Each stream's exact state is checkpointed to <state_dir>/checkpoints after a run at most
  // this often (and at every clean stop), so a restart resumes from it instead of replaying
  // the history from the anchor. 0 = only at a clean stop.
  int checkpoint_every_s = 300;
  CorruptLogPolicy on_corrupt_log = CorruptLogPolicy::refuse;
  // Connections the snapshot socket and the HTTP status endpoint hold at once; past them a
  // new one is refused (counted, logged): each costs a descriptor and buffers, and idle ones
  // must not starve /healthz or new clients. HTTP closes the oldest connection still sending
  // its request first, so a health probe always gets an answer.
  int max_snapshot_connections = 256;
  int max_http_connections = 64;
  // The memory every stream may hold together, in MiB, planned before any is opened (each
  // stream at its backend's size query, plus the bars kept per symbol): a config over it is
  // refused at --check-config, at start and on reload, naming the stream and what fits.
  // 0 = 80% of the cgroup's memory.max, else of RAM.
  int memory_budget_mb = 0;
};
inline constexpr int kMaxBusyPollUs = 1'000'000;
inline constexpr int kMaxFutureS = 31'536'000;  // a year
inline constexpr int kMaxStopRetryS = 600;
inline constexpr int kMaxCheckpointEveryS = 86'400;
inline constexpr int kMaxConnections = 65'536;
inline constexpr int kMaxMemoryBudgetMb = 1 << 30;  // 1 PiB

struct PublishConfig {
  std::string endpoint = "tcp://127.0.0.1:5560";
  std::string snapshot = "tcp://127.0.0.1:5561";
  std::string http = "127.0.0.1:5562";  // PROTOCOL v1.1 (9100 is node_exporter's)
  int sndhwm = 10000;   // ZMQ_SNDHWM of the PUB: messages queued per subscriber; 0 = no limit
  bool signals = true;  // per-bar signal.<SYMBOL>.<STRATEGY> messages (PROTOCOL §2a)
};

struct FeedConfig {
  std::string endpoint;
  FeedFormat format = FeedFormat::json;
  int rcvhwm = 100000;                // ZMQ_RCVHWM of the SUB; 0 = no limit
  std::string curve_server_key_file;  // the publisher's CURVE public key; "" = plain TCP
};

// [curve] (additive, docs/protocol.md): CURVE encryption and client authentication. With
// key_file set, the PUB and the snapshot REP are CURVE servers that admit only the public
// keys in clients_file; feeds with curve_server_key_file connect as CURVE clients with the
// same keypair. Paths relative to the config file, like backfill.
struct CurveConfig {
  std::string key_file;      // this daemon's keypair (`wfod --keygen FILE`); "" = no CURVE
  std::string clients_file;  // admitted client public keys, one Z85 key per line
  bool enabled() const { return !key_file.empty(); }
};

struct SymbolConfig {
  std::string name;
  double bars_per_year = 252;
  std::string backfill;  // empty = none; relative paths resolve against the config's folder
  // Health is degraded while the last bar is older than this (PROTOCOL §3); 0 = off.
  double stale_after_s = 0;
};

struct StrategyConfig {
  std::string name;
  std::vector<std::string> symbols;
  StrategySpec spec;  // grid, fill, costs (bars_per_year left at default)
  RankSpec rank;
  size_t window = 0;                   // W
  std::optional<size_t> warmup;        // SPEC §3 default when absent
  size_t every = 1;                    // k
  selection::SelectionSpec selection;  // [strategy.selection]
  // The table is present: the daemon runs robust selection after each run (its cost: one
  // block-summary pass over the grid, plus PBO when on; docs/spec-10-selection.md).
  bool has_selection = false;
};

// Where a key or table starts in the file (1-based).
struct SourcePosition {
  uint32_t line = 1;
  uint32_t column = 1;
};

struct Config {
  std::string source;  // file path (or name given to parse_config)
  std::string sha256;  // of the file's bytes (config_version, PROTOCOL §2)
  // Every key and table of the file by its key path as errors name it ("publish.snapshot",
  // "strategy[0].window", "symbol[1]"), so that checks made after parsing (the daemon's,
  // wfod/daemon/core/config_checks.hpp) point at the line as the loader's own errors do.
  std::map<std::string, SourcePosition, std::less<>> positions;
  DaemonConfig daemon;
  PublishConfig publish;
  CurveConfig curve;
  std::vector<FeedConfig> feeds;
  std::vector<SymbolConfig> symbols;
  std::vector<StrategyConfig> strategies;

  const SymbolConfig* find_symbol(std::string_view name) const;
  const StrategyConfig* find_strategy(std::string_view name) const;
  // "SOURCE:LINE:COL: key 'KEY': MESSAGE", as the loader's errors: at KEY, or at the nearest
  // enclosing table the file has ("strategy[0]" for an absent "strategy[0].warmup"), or at
  // 1:1 when the file has neither (an absent table).
  std::string located(std::string_view key, std::string_view message) const;
};

// Checks of what a file's values name, beyond their syntax, for load_config. The daemon
// sets them for --check-config and start-up (wfod/daemon/core/preflight.hpp); a SIGHUP reload
// (which applies no backfill or state_dir change) and `wfo` (which may take its bars from
// --csv instead of the backfill) leave them off. Each hook gets the resolved value and
// throws (any std::exception) saying what is wrong; load_config reports it as a
// ConfigError at the key.
struct FileChecks {
  bool backfill_exists = false;  // every backfill is a readable regular file (before the hook)
  std::function<void(const std::string& path)> backfill;  // [[symbol]] backfill, once it exists
  std::function<void(const std::string& dir)> state_dir;  // [daemon] state_dir (or its default)
};

// Parses and validates. Throws ConfigError("FILE:LINE:COL: key 'x.y': message").
Config parse_config(std::string_view toml_text, std::string_view source_name);
// Reads and parses `path`; relative paths in it (backfill, [curve] files) resolve against
// the file's folder; then `checks` run.
Config load_config(const std::string& path, const FileChecks& checks = {});

// A rules file (SPEC §5a, `wfo sweep|walk|positions --rules FILE`): one [[strategy]]'s keys
// at the top level of their own file, the rule as a [rules] table ([strategy.rules]'s keys)
// and its axes as a [grid] table; `family` defaults to "rules" and `name` to the file's name up to
// its first dot; `symbols` is refused (the bars come from --csv). Throws ConfigError located as a
// config's
// ("FILE:LINE:COL: key 'grid.fast': ..."; a rule's compile error "FILE:LINE:COL: strategy
// "NAME": rules.KEY:COLUMN: ...").
StrategyConfig load_rules_file(const std::string& path);

}  // namespace wfod::config
