// Fuzzes the SPEC §5a rule compiler (rules::compile: lexer, parser, indicator definitions,
// `valid`) behind every `[strategy.rules]` table, and runs what it accepts through cpu_ref's
// evaluator. The first byte picks where the rest goes (mode % 6): 0-3 the four conditions,
// 4 `valid`, 5 a fifth indicator's definition. Beyond "no crash, no leak, no UB" it asserts:
// - only RuleError escapes compile, naming that key, at a column within the text (1 to
//   size + 1, the last meaning "end of text");
// - an accepted program respects the limits (nodes) and its crosses' operand ranges are in
//   order; evaluated on a fixed series its positions are -1, 0 or +1, one per bar.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../kernels/cpu_ref/ref_rules.hpp"
#include "fuzz_check.hpp"
#include "wfod/bar.hpp"
#include "wfod/rules/rules.hpp"

namespace {

using wfod::rules::RulesText;

RulesText base() {
  RulesText r;
  r.params = {"fast", "slow", "lvl"};
  r.indicators = {{"f", "ema($fast)"},
                  {"s", "sma($slow)"},
                  {"r", "rsi(14)"},
                  {"c", "hh(5, high_low)"},
                  {"u", "bb_upper($slow, 2.5)"}};
  return r;
}

// 64 bars of a deterministic zigzag walk (with flat stretches, where the bands collapse).
const wfod::Series& series() {
  static const wfod::Series s = [] {
    wfod::Series out;
    double close = 100;
    for (int t = 0; t < 64; ++t) {
      wfod::Bar b;
      b.ts_ns = (t + 1) * int64_t{60'000'000'000};
      b.open = close;
      if (t % 16 < 12) close *= 1 + 0.01 * ((t * 7) % 5 - 2);
      b.close = close;
      b.high = std::fmax(b.open, b.close) * 1.001;
      b.low = std::fmin(b.open, b.close) * 0.999;
      b.volume = t % 3;
      out.push_back(b);
    }
    return out;
  }();
  return s;
}

void check_program(const wfod::rules::Program& p) {
  size_t nodes = p.valid.nodes.size();
  for (const auto& c : p.conditions) {
    nodes += c.nodes.size();
    for (size_t i = 0; i < c.nodes.size(); ++i) {
      const auto& n = c.nodes[i];
      if (n.op == wfod::rules::Op::crosses_above || n.op == wfod::rules::Op::crosses_below)
        WFOD_FUZZ_CHECK(n.lhs_begin < n.rhs_begin && n.rhs_begin < i,
                        "a cross's operands are two non-empty ranges before it");
    }
  }
  WFOD_FUZZ_CHECK(nodes <= wfod::rules::kMaxNodes, "at most kMaxNodes nodes");
  const std::vector<double> values{3, 10, 40};
  (void)wfod::rules::combo_valid(p, values);
  wfod::ref::IndicatorCache cache(wfod::HistoryView::of(series()));
  const std::vector<int8_t> pos =
      wfod::ref::rules_positions(cache, p, values, nullptr, series().volume);
  WFOD_FUZZ_CHECK(pos.size() == series().size(), "one position per bar");
  for (const int8_t x : pos) WFOD_FUZZ_CHECK(x >= -1 && x <= 1, "positions are -1, 0, +1");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned mode = data[0] % 6;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  RulesText r = base();
  std::string key;
  switch (mode) {
    case 0:
      r.long_entry = text, key = "rules.long_entry";
      break;
    case 1:
      r.long_exit = text, key = "rules.long_exit";
      break;
    case 2:
      r.short_entry = text, key = "rules.short_entry";
      break;
    case 3:
      r.short_exit = text, key = "rules.short_exit";
      break;
    case 4:
      r.long_entry = "f > s", r.valid = text, key = "rules.valid";
      break;
    default:
      r.indicators.emplace_back("g", text), key = "rules.indicators.g";
      r.long_entry = "g > 0 or f > s";
  }
  try {
    check_program(wfod::rules::compile(r));
  } catch (const wfod::rules::RuleError& e) {
    WFOD_FUZZ_CHECK(e.key() == key, "the error names the key whose text was fuzzed");
    WFOD_FUZZ_CHECK(e.column() >= 1 && e.column() <= text.size() + 1,
                    "the column lies within the text (or just past it)");
    WFOD_FUZZ_CHECK(!e.message().empty(), "the error says what was expected");
  }
  return 0;
}
