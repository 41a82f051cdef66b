// Fuzzes the TOML configuration loader (parse_config, the text entry point load_config
// uses; PROTOCOL §4), toml++'s parser included (tomlpp_impl.cpp). Beyond "no crash, no
// leak, no UB" it asserts:
// - only ConfigError escapes (what `wfod --check-config` turns into exit 2; anything else
//   would abort it), and its message starts with the source name (file:line:col);
// - a config that loads passes its own validation, re-checked here from PROTOCOL §4:
//   names valid and unique, symbols agreeing with the feed codec's symbol rule, every
//   strategy symbol configured (when any [[symbol]] exists), windows, schedule, ranking
//   and cost ranges, a grid that validates and has 1..2^62 combos, a sha256 of 64 hex.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "wfod/config/config.hpp"
#include "wfod/feeds/bar_codec.hpp"

namespace {

using namespace wfod::config;

constexpr std::string_view kSource = "fuzz.toml";

bool is_one_of(std::string_view value, std::initializer_list<std::string_view> choices) {
  return std::find(choices.begin(), choices.end(), value) != choices.end();
}

bool valid_strategy_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

void check_grid(const wfod::Grid& grid) {
  bool valid = true;
  uint64_t combos = 0;
  try {
    grid.validate();
    combos = grid.size();
  } catch (const std::invalid_argument&) {
    valid = false;
  }
  WFOD_FUZZ_CHECK(valid, "a loaded grid validates and has a countable size");
  WFOD_FUZZ_CHECK(combos >= 1 && combos <= (uint64_t{1} << 62), "a loaded grid has combos");
}

void check_config(const Config& c) {
  WFOD_FUZZ_CHECK(c.source == kSource, "the source name is kept");
  WFOD_FUZZ_CHECK(
      c.sha256.size() == 64 && c.sha256.find_first_not_of("0123456789abcdef") == std::string::npos,
      "config_version is a sha256 in hex");

  WFOD_FUZZ_CHECK(!c.daemon.state_dir.empty(), "daemon.state_dir is not empty");
  WFOD_FUZZ_CHECK(is_one_of(c.daemon.backend, {"auto", "cpu", "cuda", "cpu_ref"}),
                  "daemon.backend is a known name");
  WFOD_FUZZ_CHECK(is_one_of(c.daemon.log_level, {"trace", "debug", "info", "warn", "error"}),
                  "daemon.log_level is a known level");
  WFOD_FUZZ_CHECK(c.daemon.threads >= 0, "daemon.threads >= 0");
  WFOD_FUZZ_CHECK(!c.publish.endpoint.empty() && !c.publish.snapshot.empty(),
                  "publish endpoints are not empty");
  for (const FeedConfig& f : c.feeds) {
    WFOD_FUZZ_CHECK(!f.endpoint.empty(), "feed endpoints are not empty");
  }

  std::set<std::string> symbols;
  for (const SymbolConfig& s : c.symbols) {
    WFOD_FUZZ_CHECK(wfod::feeds::is_valid_symbol(s.name),
                    "config and feed codec agree on what a symbol is");
    WFOD_FUZZ_CHECK(symbols.insert(s.name).second, "symbol names are unique");
    WFOD_FUZZ_CHECK(std::isfinite(s.bars_per_year) && s.bars_per_year > 0,
                    "bars_per_year is finite and > 0");
    WFOD_FUZZ_CHECK(c.find_symbol(s.name) == &s, "find_symbol finds it");
  }

  std::set<std::string> strategies;
  for (const StrategyConfig& s : c.strategies) {
    WFOD_FUZZ_CHECK(valid_strategy_name(s.name), "strategy names are [A-Za-z0-9_-]+");
    WFOD_FUZZ_CHECK(strategies.insert(s.name).second, "strategy names are unique");
    WFOD_FUZZ_CHECK(c.find_strategy(s.name) == &s, "find_strategy finds it");
    WFOD_FUZZ_CHECK(!s.symbols.empty(), "a strategy runs on at least one symbol");
    const std::set<std::string> own(s.symbols.begin(), s.symbols.end());
    WFOD_FUZZ_CHECK(own.size() == s.symbols.size(), "a strategy lists each symbol once");
    for (const std::string& name : s.symbols) {
      WFOD_FUZZ_CHECK(symbols.empty() || symbols.count(name) == 1,
                      "every strategy symbol is a configured [[symbol]]");
    }
    WFOD_FUZZ_CHECK(s.window >= 1 && s.every >= 1, "window and every are >= 1");
    WFOD_FUZZ_CHECK(s.rank.top >= 1 && s.rank.min_trades >= 0, "top >= 1, min_trades >= 0");
    WFOD_FUZZ_CHECK(s.rank.max_drawdown > 0, "max_drawdown > 0");
    WFOD_FUZZ_CHECK(
        !s.rank.min_exposure || (*s.rank.min_exposure >= 0 && *s.rank.min_exposure <= 1),
        "min_exposure in [0, 1]");
    const wfod::Costs& costs = s.spec.costs;
    WFOD_FUZZ_CHECK(std::isfinite(costs.commission_bps) && costs.commission_bps >= 0 &&
                        std::isfinite(costs.slippage_bps) && costs.slippage_bps >= 0,
                    "costs are finite and >= 0");
    check_grid(s.spec.grid);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check_config(parse_config(text, kSource));
  } catch (const ConfigError& e) {
    WFOD_FUZZ_CHECK(std::string_view(e.what()).starts_with(kSource),
                    "a config error names its source");
  }
  return 0;
}
