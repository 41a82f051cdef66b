// Builds a StrategySetup from the command line: either flags alone, or a [[strategy]] of a
// TOML config (PROTOCOL §4), or a rules file (SPEC §5a), whose values the flags given
// alongside it override.
// Owns the family/axis flag rules (flags of the other family are errors).

#include "strategy_from_flags.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include "wfod/config/config.hpp"
#include "wfod/detail/grid_axes.hpp"
#include "wfod/grid.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod::cli {

namespace {

constexpr std::array kStrategyFlags = {
    FlagSpec{"csv"},
    FlagSpec{"config"},
    FlagSpec{"strategy"},
    FlagSpec{"rules"},
    FlagSpec{"family"},
    FlagSpec{"fast"},
    FlagSpec{"slow"},
    FlagSpec{"ma"},
    FlagSpec{"side"},
    FlagSpec{"entry"},
    FlagSpec{"n"},
    FlagSpec{"source"},
    FlagSpec{"stop-loss"},
    FlagSpec{"take-profit"},
    FlagSpec{"trailing-stop"},
    FlagSpec{"vol-short"},
    FlagSpec{"vol-long"},
    FlagSpec{"vol-threshold"},
    FlagSpec{"warmup"},
    FlagSpec{"cost-bps"},
    FlagSpec{"slippage-bps"},
    FlagSpec{"bars-per-year"},
    FlagSpec{"objective"},
    FlagSpec{"min-trades"},
    FlagSpec{"max-drawdown"},
    FlagSpec{"min-exposure"},
    FlagSpec{"top"},
    FlagSpec{"fill"},
    FlagSpec{"threads"},
    FlagSpec{"backend"},
    FlagSpec{"precision"},
    FlagSpec{"skip-bad-rows", false},
    FlagSpec{"json", false},
    FlagSpec{"report"},
    FlagSpec{"k"},
    FlagSpec{"style"},
    FlagSpec{"lo"},
    FlagSpec{"hi"},
    FlagSpec{"columns"},
    FlagSpec{"start"},
    FlagSpec{"end"},
};

// "sma,ema" -> {sma, ema}; each item parsed by the engine's enum parser, which names the
// choices; the error is prefixed with the flag.
template <typename Enum, typename Parse>
std::vector<Enum> parse_enum_axis(std::string_view text, std::string_view flag, Parse parse) {
  std::vector<Enum> out;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty()) {
      throw UsageError("--" + std::string(flag) + ": empty item in '" + std::string(text) + "'");
    }
    try {
      out.push_back(parse(item));
    } catch (const std::invalid_argument& e) {
      throw UsageError("--" + std::string(flag) + ": " + e.what());
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

template <typename Value, typename Parse>
void override_axis(const ParsedArgs& args, std::string_view flag, std::vector<Value>& axis,
                   Parse parse) {
  auto text = args.text(flag);
  if (!text) return;
  try {
    axis = parse(*text);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--" + std::string(flag) + ": " + e.what());
  }
}

template <typename Enum, typename Parse>
void override_enum_axis(const ParsedArgs& args, std::string_view flag, std::vector<Enum>& axis,
                        Parse parse) {
  if (auto text = args.text(flag)) axis = parse_enum_axis<Enum>(*text, flag, parse);
}

// The engine's parser of one item of an enum axis.
template <typename Enum>
Enum parse_enum_item(std::string_view text) {
  if constexpr (std::is_same_v<Enum, MaType>) return parse_ma(text);
  if constexpr (std::is_same_v<Enum, Side>) return parse_side(text);
  if constexpr (std::is_same_v<Enum, Entry>) return parse_entry(text);
  if constexpr (std::is_same_v<Enum, Source>) return parse_source(text);
  if constexpr (std::is_same_v<Enum, Style>) return parse_style(text);
}

// A grid axis from its flag, parsed as its values are: integers, reals or an enum's names.
template <typename Value>
void override_grid_axis(const ParsedArgs& args, std::string_view flag, std::vector<Value>& axis) {
  if constexpr (std::is_same_v<Value, int>) {
    override_axis(args, flag, axis, parse_int_axis);
  } else if constexpr (std::is_same_v<Value, double>) {
    override_axis(args, flag, axis, parse_real_axis);
  } else {
    override_enum_axis<Value>(args, flag, axis, parse_enum_item<Value>);
  }
}

template <typename Enum, typename Parse>
Enum parse_enum_flag(const ParsedArgs& args, std::string_view flag, Enum fallback, Parse parse) {
  auto text = args.text(flag);
  if (!text) return fallback;
  try {
    return parse(*text);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--" + std::string(flag) + ": " + e.what());
  }
}

// The config's [[strategy]]: the one named by --strategy, or the only one.
const config::StrategyConfig& pick_strategy(const config::Config& cfg,
                                            const std::optional<std::string>& name) {
  std::string known;  // the names, for the messages
  for (const auto& s : cfg.strategies) known += (known.empty() ? "" : ", ") + s.name;
  if (name) {
    if (const auto* s = cfg.find_strategy(*name)) return *s;
    throw UsageError("--strategy: " + cfg.source + " has no [[strategy]] named '" + *name +
                     "' (it has: " + (known.empty() ? "none" : known) + ")");
  }
  if (cfg.strategies.size() == 1) return cfg.strategies.front();
  if (cfg.strategies.empty()) throw UsageError(cfg.source + " defines no [[strategy]]");
  throw UsageError(cfg.source + " defines several strategies (" + known +
                   "); pick one with --strategy NAME");
}

// What a [[strategy]] table gives a run, from a config or a rules file alike: the strategy,
// its window and its ranking.
void apply_strategy_table(const config::StrategyConfig& sc, StrategySetup& s) {
  s.strategy_name = sc.name;
  s.spec = sc.spec;
  s.rank = sc.rank;
  if (sc.window > 0) s.window = sc.window;
  s.warmup = sc.warmup;
  s.every = sc.every;
  s.selection = sc.selection;
}

void apply_config(const ParsedArgs& args, StrategySetup& s) {
  const std::string path = *args.text("config");
  config::Config cfg = config::load_config(path);
  const config::StrategyConfig& sc = pick_strategy(cfg, args.text("strategy"));
  apply_strategy_table(sc, s);
  s.config_path = path;
  s.backend = cfg.daemon.backend;
  s.threads = cfg.daemon.threads;
  s.precision = cfg.daemon.precision;
  if (!sc.symbols.empty()) {
    if (const auto* sym = cfg.find_symbol(sc.symbols.front())) {
      s.spec.bars_per_year = sym->bars_per_year;
      s.bars_per_year_from_config = sym->bars_per_year != 252;
      // load_config already made a relative backfill path relative to the file's folder.
      if (!sym->backfill.empty()) s.csv_path = sym->backfill;
    }
  }
}

// A rules file (config::load_rules_file): the strategy, its window and ranking; no backend,
// threads or bars_per_year (no [daemon] or [[symbol]] there): flags or their defaults.
void apply_rules_file(const ParsedArgs& args, StrategySetup& s) {
  const std::string path = *args.text("rules");
  apply_strategy_table(config::load_rules_file(path), s);
  s.rules_path = path;
}

// Each family-specific flag and the families it belongs to; --side and the vol filter's
// belong to every family.
struct FamilyFlag {
  std::string_view flag;
  std::array<bool, 5> of;  // ma_cross, channel_breakout, bollinger, rsi_reversion, rules
};
constexpr FamilyFlag kFamilyFlags[] = {
    {"fast", {true, false, false, false, false}}, {"slow", {true, false, false, false, false}},
    {"ma", {true, false, false, false, false}},   {"entry", {true, false, false, false, false}},
    {"n", {false, true, true, true, false}},      {"source", {false, true, false, false, false}},
    {"k", {false, false, true, false, false}},    {"style", {false, false, true, false, false}},
    {"lo", {false, false, false, true, false}},   {"hi", {false, false, false, true, false}},
    {"side", {true, true, true, true, false}},
};

void check_family_flags(const ParsedArgs& args, Family family) {
  constexpr Family kAll[] = {Family::ma_cross, Family::channel_breakout, Family::bollinger,
                             Family::rsi_reversion, Family::rules};
  for (const FamilyFlag& f : kFamilyFlags) {
    if (!args.has(f.flag) || f.of[static_cast<size_t>(family)]) continue;
    std::string message = "--";
    message.append(f.flag).append(" is a ");
    bool first = true;
    for (size_t i = 0; i < f.of.size(); ++i) {
      if (!f.of[i]) continue;
      if (!first) message.append("/");
      message.append(to_string(kAll[i]));
      first = false;
    }
    message.append(" parameter, but the family is ").append(to_string(family));
    if (family == Family::rules) {  // SPEC §5a: its axes are its own params
      message.append(
          " (a rules strategy's axes are its params, given in the config's [strategy.grid]; "
          "its conditions say which sides it trades)");
    }
    throw UsageError(message);
  }
}

void apply_grid_flags(const ParsedArgs& args, Grid& g) {
  // Each axis's flag is its name with dashes ("--stop-loss" for stop_loss).
  detail::for_each_grid_axis([&](const char* name, auto axis, detail::AxisGroup) {
    std::string flag = name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    override_grid_axis(args, flag, g.*axis);
  });

  if (auto r = g.repeated_value()) {
    std::string flag = r->axis;
    std::replace(flag.begin(), flag.end(), '_', '-');
    throw UsageError("--" + flag + ": " + r->message());
  }
  if (g.family == Family::ma_cross && (g.fast.empty() || g.slow.empty())) {
    throw UsageError("ma_cross needs --fast and --slow (e.g. --fast 5:50:1 --slow 20:200:5)");
  }
  if (g.family == Family::channel_breakout && g.n.empty()) {
    throw UsageError("channel_breakout needs --n (e.g. --n 10:100:5)");
  }
  if (g.family == Family::bollinger && (g.n.empty() || g.k.empty())) {
    throw UsageError("bollinger needs --n and --k (e.g. --n 10:50:5 --k 1.5:3.0:0.5)");
  }
  if (g.family == Family::rsi_reversion && (g.n.empty() || g.lo.empty() || g.hi.empty())) {
    throw UsageError(
        "rsi_reversion needs --n, --lo and --hi (e.g. --n 7:21:7 --lo 20,30 --hi 70,80)");
  }
  if (g.has_vol_filter() &&
      (g.vol_short.empty() || g.vol_long.empty() || g.vol_threshold.empty())) {
    throw UsageError(
        "the vol filter needs all three of --vol-short, --vol-long and "
        "--vol-threshold (or none)");
  }
}

}  // namespace

std::span<const FlagSpec> strategy_flags() { return kStrategyFlags; }

StrategySetup strategy_from_flags(const ParsedArgs& args) {
  StrategySetup s;
  if (args.has("strategy") && !args.has("config")) {
    throw UsageError("--strategy needs --config FILE");
  }
  if (args.has("rules")) {
    // One source of the strategy: the file is all of it (its family, its rule, its axes).
    for (std::string_view other : {"config", "strategy", "family"}) {
      if (args.has(other)) {
        throw UsageError("--rules FILE and --" + std::string(other) +
                         ": the rules file is the whole strategy (use one of --rules FILE or "
                         "--config FILE --strategy NAME)");
      }
    }
    apply_rules_file(args, s);
  }
  if (args.has("config")) apply_config(args, s);

  // Family: from the flag, else the config's; a flag that changes the config's family
  // starts that family's grid afresh (the file's axes belong to the other family).
  if (auto fam = args.text("family")) {
    Family f;
    try {
      f = parse_family(*fam);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--family: ") + e.what());
    }
    // A rules strategy is text in a config (SPEC §5a): no flag writes one.
    if (f == Family::rules && s.spec.grid.family != Family::rules) {
      throw UsageError(
          "--family rules: a rules strategy is written in a config's [strategy.rules]; run it "
          "with --config FILE --strategy NAME --backend cpu_ref" +
          std::string(args.has("config") ? " (this one's family is " +
                                               std::string(to_string(s.spec.grid.family)) + ")"
                                         : ""));
    }
    if (!args.has("config") || f != s.spec.grid.family) {
      s.spec.grid = Grid{};
      s.spec.grid.family = f;
    }
  } else if (!args.has("config") && !args.has("rules")) {
    throw UsageError(
        "--family is required (ma_cross | channel_breakout | bollinger | rsi_reversion), or "
        "--config FILE (which may also hold a rules strategy), or --rules FILE");
  }
  check_family_flags(args, s.spec.grid.family);
  apply_grid_flags(args, s.spec.grid);
  s.spec.grid.validate();

  if (auto v = args.text("csv")) s.csv_path = *v;
  if (s.csv_path.empty()) {
    throw UsageError(args.has("config")
                         ? "--csv is required: the strategy's first symbol has no backfill file"
                         : "--csv FILE is required");
  }

  if (auto v = args.count("window", 1)) s.window = *v;
  if (auto v = args.count("warmup", 0)) s.warmup = *v;
  if (auto v = args.real("cost-bps", 0)) s.spec.costs.commission_bps = *v;
  if (auto v = args.real("slippage-bps", 0)) s.spec.costs.slippage_bps = *v;
  if (auto v = args.real("bars-per-year", 1e-9)) s.spec.bars_per_year = *v;
  s.bars_per_year_given = args.has("bars-per-year");
  s.spec.fill = parse_enum_flag(args, "fill", s.spec.fill, parse_fill);

  s.rank.objective = parse_enum_flag(args, "objective", s.rank.objective, parse_objective);
  if (auto v = args.integer("min-trades", 0)) s.rank.min_trades = *v;
  if (auto v = args.real("max-drawdown", 0)) s.rank.max_drawdown = *v;
  if (auto v = args.real("min-exposure", 0, 1)) s.rank.min_exposure = *v;
  if (auto v = args.count("top", 1)) s.rank.top = *v;

  if (auto v = args.text("backend")) s.backend = *v;
  if (auto v = args.integer("threads", 0, 4096)) s.threads = static_cast<int>(*v);
  std::string warning;
  s.threads = usable_threads(s.threads, static_cast<unsigned>(available_cores()),
                             args.has("threads") ? "--threads" : "the config's threads", &warning);
  if (!warning.empty()) s.warnings.push_back(warning);
  // --memory-budget: a flag of sweep and walk (their own lists), read here with the rest.
  if (auto v = args.integer("memory-budget", 16, int64_t{1} << 30)) {
    s.memory_budget_mib = static_cast<size_t>(*v);
  }
  s.precision = parse_enum_flag(args, "precision", s.precision, parse_precision);
  s.skip_bad_rows = args.has("skip-bad-rows");
  s.range.start = args.text("start");
  s.range.end = args.text("end");
  if (auto v = args.text("columns")) {
    std::string_view text = *v;
    for (size_t start = 0;;) {
      const size_t comma = text.find(',', start);
      const std::string_view name = text.substr(
          start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      if (name.empty())
        throw UsageError("--columns: an empty name in '" + *v +
                         "'; write '_' for a column not used");
      s.columns.emplace_back(name);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  return s;
}

const char* const kStrategyFlagsHelp =
    R"(Strategy (axis values: a scalar 12, a list 5,10,20 or an inclusive range start:stop:step;
enum axes take lists too, e.g. --ma sma,ema; a value listed twice on one axis is an error;
a grid in which no combo is valid, e.g. fast >= slow everywhere, is an error, exit 2):
  --family ma_cross|channel_breakout|bollinger|rsi_reversion   required unless --config
  rules (SPEC §5a):  a strategy written in a config's [strategy.rules]: --config FILE
                     --strategy NAME --backend cpu_ref (cpu, cuda and auto refuse it for
                     now); its axes are the config's [strategy.grid] (the stop flags below
                     replace a stop axis; no family flag applies, --side neither); or in
                     a rules file: --rules FILE --csv FILE --backend cpu_ref (below)
  ma_cross:          --fast AXIS  --slow AXIS  (both required)
                     --ma sma|ema|wma|hma (sma)  --entry state|cross (state)
  channel_breakout:  --n AXIS (required)  --source close|high_low (close)
  bollinger:         --n AXIS --k AXIS (both required; decimal k, e.g. 1.5:3.0:0.5)
                     --style reversion|breakout (reversion)
  rsi_reversion:     --n AXIS --lo AXIS --hi AXIS (all required; levels in (0, 100))
  every family:      --side long_short|long_only (long_short)
  stops (SPEC §5b):  --stop-loss AXIS --take-profit AXIS --trailing-stop AXIS (each optional;
                     fractions, e.g. 0.01:0.05:0.01; 0 = off; stop_loss and trailing_stop in
                     [0, 1), take_profit >= 0, else the combo is skipped). Every backend
                     (cuda and auto on the device too: sweeps, walks, positions)
  vol filter:        --vol-short AXIS --vol-long AXIS --vol-threshold AXIS (all three or none)
  Flags of another family are errors. Invalid combos (fast >= slow; n < 2 or k <= 0;
  n < 2 or lo >= hi; a stop out of its range) keep their ids and are skipped (SPEC §5).

Costs, fills, annualisation:
  --cost-bps X       commission per unit of position change, basis points (0)
  --slippage-bps X   slippage, basis points (0)
  --fill close|next_open                  (close)
  --bars-per-year A  for cagr, sharpe, sortino; without it (or a config's bars_per_year):
                     252 for daily bars, else the rate observed in the file,
                     round((N-1) x 365.25 days / (last - first timestamp)); the plan
                     line, --json and the report say which (bars_per_year_source)
  --warmup N         bars required before the window (3 x the grid's largest period)

Ranking (SPEC §7):
  --objective sharpe|sortino|calmar|total_return|cagr|profit_factor   (sharpe)
  --min-trades N (1)   --max-drawdown X (1)   --min-exposure X (none)   --top K (10)

Data and engine:
  --csv FILE         bars: a header naming timestamp (or date, datetime, time,
                     close_time), open, high, low, close, volume in any case; ',' ';'
                     or tab; ISO-8601 dates or epoch s/ms/us/ns (README "Your data")
                     Also: a MetaTrader 5 export (<DATE> <TIME> <OPEN>... tab-separated,
                     dates 2024.01.02), separate Date and Time columns (Stooq intraday)
  --columns NAMES    the file has no header line (exchange klines): its columns in
                     order, e.g. ts,open,high,low,close,volume,_,_ ('_' skips one; every
                     column named; close_time may name the timestamp)
  --skip-bad-rows    skip and count malformed rows instead of failing
  --backend auto|cpu|cpu_ref|cuda   (auto)
  --threads N        0 = all cores this process may use, its affinity mask (0); more than
                     that is lowered to it with a warning (they would only share them); > 4096
                     is an error. If the system refuses a thread, the run continues on
                     those it has (a warning says so)
  --memory-budget MB the most the run plans to hold (2048): the history, one chunk of
                     indicator rows (a quarter of the budget; larger grids run chunk by
                     chunk, with the same results) and the per-combo arrays of robust
                     selection and --report. Before any work, a line on stderr gives the
                     combos (valid of total), the memory and a rough time; a plan over the
                     budget stops there (exit 2) saying what to change
  --precision exact|fast            (exact)
  --json             one JSON document on stdout instead of the table
  --report DIR       also write a self-contained HTML report (DIR/report.html: equity vs
                     buy-and-hold, folds, parameter stability, objective heatmap and
                     histogram, inputs) with report.json and CSV files; DIR is created

Config file:
  --config FILE [--strategy NAME]
      Takes the strategy (grid, costs, fill, ranking, window, warmup) from the named
      [[strategy]] of a wfod TOML config, or its only one; bars_per_year and the default
      --csv come from the first [[symbol]] it lists; backend, threads and precision from
      [daemon]. Any flag given alongside --config overrides the file's value; an axis flag
      replaces that axis; --family naming the other family starts a fresh grid.
  --rules FILE
      A rules strategy (SPEC §5a) in a file of its own: one [[strategy]]'s keys at the
      top level, the rule as a [rules] table ([strategy.rules]'s keys: params,
      indicators, long_entry, long_exit, short_entry, short_exit, valid) and its axes as
      a [grid] table (one per param, the stops, the vol filter); optional window,
      warmup, every, cost_bps, slippage_bps, fill, objective, top, ...; family defaults
      to "rules", name to the file's name up to its first dot; no symbols (bars from --csv). Errors are
      located FILE:LINE:COL (a rule's, also the column in the rule's text). Flags
      override it as they do a config; not with --config, --strategy or --family.
      Example: config/examples/pullback.rules.toml (docs/rules-files.md).
)";

}  // namespace wfod::cli
