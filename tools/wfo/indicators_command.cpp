// `wfo indicators`: one SPEC §4 indicator over every bar of a CSV, printed as
// "timestamp,value" CSV (empty value where undefined), for checking against other tools.

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "history.hpp"
#include "output.hpp"
#include "wfod/indicators.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kUsage =
    R"(usage: wfo indicators --csv FILE --name sma|ema|wma|hma|std|hh|ll --period N [options]

Prints "timestamp,value" for every bar of the CSV: the indicator of SPEC §4 at that bar
(value empty while undefined; %.17g otherwise).

  --csv FILE         bars (timestamp,open,high,low,close,volume)
  --name NAME        sma | ema | wma | hma | std (population) | hh | ll (Donchian channel
                     of the previous N bars)
  --period N         lookback, >= 1
  --source close|high_low   what hh/ll read (close); only for hh and ll
  --skip-bad-rows    skip and count malformed rows instead of failing
)";

constexpr std::array kFlags = {FlagSpec{"csv"}, FlagSpec{"name"}, FlagSpec{"period"},
                               FlagSpec{"source"}, FlagSpec{"skip-bad-rows", false}};

}  // namespace

int run_indicators(Args args) {
  if (wants_help(args)) {
    print(kUsage);
    return 0;
  }
  ParsedArgs parsed = parse_args(args, kFlags);
  auto csv_path = parsed.text("csv");
  if (!csv_path) throw UsageError("--csv FILE is required");
  auto name = parsed.text("name");
  if (!name) throw UsageError("--name is required (sma|ema|wma|hma|std|hh|ll)");
  IndicatorKind kind;
  try {
    kind = parse_indicator(*name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--name: ") + e.what());
  }
  auto period = parsed.integer("period", 1, 1'000'000'000);
  if (!period) throw UsageError("--period N is required");
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
  char buf[40];
  for (size_t t = 0; t < values.size(); ++t) {
    out += feeds::format_timestamp(history.ts_ns[t]);
    out += ',';
    if (!std::isnan(values[t])) {
      std::snprintf(buf, sizeof buf, "%.17g", values[t]);
      out += buf;
    }
    out += '\n';
  }
  print(out);
  return 0;
}

}  // namespace wfod::cli
