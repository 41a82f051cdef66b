// `wfo indicators`: one SPEC §4 indicator over every bar of a CSV, printed as
// "timestamp,value" CSV (empty value where undefined), or Bollinger bands as
// "timestamp,upper,middle,lower", for checking against other tools.

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "history.hpp"
#include "output.hpp"
#include "wfod/indicators.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kIndicatorsUsage =
    R"(usage: wfo indicators --csv FILE --name sma|ema|wma|hma|std|hh|ll|rsi --period N [options]
       wfo indicators --csv FILE --name bbands --period N --k K [options]

Prints "timestamp,value" for every bar of the CSV: the indicator of SPEC §4 at that bar
(value empty while undefined; %.17g otherwise). bbands prints
"timestamp,upper,middle,lower": SMA(N) +- K*STD(N), the bands bollinger combos trade
(upper = lower = middle where STD(N) <= 1e-10 * SMA(N) counts as 0).

  --csv FILE         bars: a header naming timestamp (or date, datetime, time,
                     close_time), open, high, low, close, volume in any case; ',' ';'
                     or tab; ISO-8601 dates or epoch s/ms/us/ns (README "Your data")
  --name NAME        sma | ema | wma | hma | std (population) | hh | ll (Donchian channel
                     of the previous N bars) | rsi (Wilder; defined from bar N; 50 where
                     nothing moved) | bbands (Bollinger bands)
  --period N         lookback, >= 1 (hma: >= 2; HMA(1) is undefined)
  --k K              band width in standard deviations, > 0; only for bbands (required)
  --source close|high_low   what hh/ll read (close); only for hh and ll
  --skip-bad-rows    skip and count malformed rows instead of failing
)";

// The indicator's definition (SPEC §4) leaves it undefined at every bar for this period:
// then the command refuses, rather than print a column of empty values as if the data were
// short. Every other indicator is defined from period 1 (SMA/WMA/EMA(1) are the close,
// STD(1) is 0, HH/LL(1) the previous bar's); only HMA needs 2.
std::optional<std::string> undefined_everywhere(IndicatorKind kind, int64_t period) {
  if (kind == IndicatorKind::hma && period < 2) {
    return "--period " + std::to_string(period) +
           ": HMA(1) is undefined at every bar: HMA(n) is WMA(floor(sqrt(n))) of "
           "2*WMA(floor(n/2)) - WMA(n), and floor(1/2) = 0 leaves no bar to average; hma "
           "needs --period >= 2";
  }
  return std::nullopt;
}

constexpr std::array kIndicatorsFlags = {FlagSpec{"csv"},    FlagSpec{"name"},
                                         FlagSpec{"period"}, FlagSpec{"source"},
                                         FlagSpec{"k"},      FlagSpec{"skip-bad-rows", false}};

void append_value(std::string& out, double v) {
  if (std::isnan(v)) return;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out += buf;
}

// `--name bbands`: the three bands per bar.
int print_bands(const ParsedArgs& parsed, int64_t period) {
  if (parsed.has("source")) throw UsageError("--source applies only to hh and ll");
  const auto k = parsed.real("k", 0);
  if (!k) throw UsageError("--k K is required for bbands (band width in standard deviations)");
  if (!(*k > 0)) throw UsageError("--k: must be > 0 (SPEC §5: k > 0), got " + *parsed.text("k"));
  feeds::CsvReadResult csv = load_history(*parsed.text("csv"), parsed.has("skip-bad-rows"));
  const HistoryView history = HistoryView::of(csv.series);
  const Bands b = bollinger_bands(history.close, static_cast<int>(period), *k);
  std::string out = "timestamp,upper,middle,lower\n";
  out.reserve(b.middle.size() * 80);
  for (size_t t = 0; t < b.middle.size(); ++t) {
    out += feeds::format_timestamp(history.ts_ns[t]);
    out += ',';
    append_value(out, b.upper[t]);
    out += ',';
    append_value(out, b.middle[t]);
    out += ',';
    append_value(out, b.lower[t]);
    out += '\n';
  }
  print(out);
  return 0;
}

}  // namespace

int run_indicators(Args args) {
  if (wants_help(args)) {
    print(kIndicatorsUsage);
    return 0;
  }
  ParsedArgs parsed = parse_args(args, kIndicatorsFlags);
  auto csv_path = parsed.text("csv");
  if (!csv_path) throw UsageError("--csv FILE is required");
  auto name = parsed.text("name");
  if (!name) throw UsageError("--name is required (sma|ema|wma|hma|std|hh|ll|rsi|bbands)");
  if (*name == "bbands") {
    auto period = parsed.integer("period", 1, 1'000'000'000);
    if (!period) throw UsageError("--period N is required");
    return print_bands(parsed, *period);
  }
  if (parsed.has("k")) throw UsageError("--k applies only to bbands");
  IndicatorKind kind;
  try {
    kind = parse_indicator(*name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--name: ") + e.what() + " or bbands");
  }
  auto period = parsed.integer("period", 1, 1'000'000'000);
  if (!period) throw UsageError("--period N is required");
  if (auto why = undefined_everywhere(kind, *period)) throw UsageError(*why);
  Source source = Source::close;
  if (auto s = parsed.text("source")) {
    if (kind != IndicatorKind::hh && kind != IndicatorKind::ll) {
      throw UsageError("--source applies only to hh and ll");
    }
    try {
      source = parse_source(*s);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--source: ") + e.what());
    }
  }

  feeds::CsvReadResult csv = load_history(*csv_path, parsed.has("skip-bad-rows"));
  const HistoryView history = HistoryView::of(csv.series);
  std::vector<double> values = compute_indicator(kind, static_cast<int>(*period), history, source);

  std::string out = "timestamp,value\n";
  out.reserve(values.size() * 40);
  for (size_t t = 0; t < values.size(); ++t) {
    out += feeds::format_timestamp(history.ts_ns[t]);
    out += ',';
    append_value(out, values[t]);
    out += '\n';
  }
  print(out);
  return 0;
}

}  // namespace wfod::cli
