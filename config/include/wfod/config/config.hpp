// Typed configuration (PROTOCOL.md §4) loaded from TOML. Every error names the file, line,
// column and key; unknown keys and tables are errors.
#pragma once

#include <cstdint>
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

struct DaemonConfig {
  std::string state_dir = "/var/lib/wfod";
  std::string backend = "auto";  // auto | cpu | cuda (cpu_ref also accepted, for tests)
  Precision precision = Precision::exact;
  int threads = 0;
  std::string log_level = "info";
  FsyncPolicy fsync = FsyncPolicy::batch;
};

struct PublishConfig {
  std::string endpoint = "tcp://127.0.0.1:5560";
  std::string snapshot = "tcp://127.0.0.1:5561";
  std::string http = "127.0.0.1:9100";
};

struct FeedConfig {
  std::string endpoint;
  FeedFormat format = FeedFormat::json;
};

struct SymbolConfig {
  std::string name;
  double bars_per_year = 252;
  std::string backfill;  // empty = none; relative paths resolve against the config's folder
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
};

struct Config {
  std::string source;  // file path (or name given to parse_config)
  std::string sha256;  // of the file's bytes (config_version, PROTOCOL §2)
  DaemonConfig daemon;
  PublishConfig publish;
  std::vector<FeedConfig> feeds;
  std::vector<SymbolConfig> symbols;
  std::vector<StrategyConfig> strategies;

  const SymbolConfig* find_symbol(std::string_view name) const;
  const StrategyConfig* find_strategy(std::string_view name) const;
};

// Parses and validates. Throws ConfigError("FILE:LINE:COL: key 'x.y': message").
Config parse_config(std::string_view toml_text, std::string_view source_name);
Config load_config(const std::string& path);

}  // namespace wfod::config
