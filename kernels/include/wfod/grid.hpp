// Strategy families, parameter grids and mixed-radix combo ids (SPEC §5, §5a).
// A Grid lists every axis's values; combo id i decodes with the first axis varying fastest.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/rules/rules.hpp"

namespace wfod {

// rules: a strategy written by the user (SPEC §5a), its axes named by its own params.
enum class Family { ma_cross, channel_breakout, bollinger, rsi_reversion, rules };
enum class MaType { sma, ema, wma, hma };
enum class Side { long_short, long_only };
enum class Entry { state, cross };
enum class Source { close, high_low };
enum class Fill { close, next_open };
// bollinger's style (SPEC §5): fade a close beyond a band, or follow it.
enum class Style { reversion, breakout };

std::string_view to_string(Family);
std::string_view to_string(MaType);
std::string_view to_string(Side);
std::string_view to_string(Entry);
std::string_view to_string(Source);
std::string_view to_string(Fill);
std::string_view to_string(Style);

// Parse an enum value by its SPEC name; throws std::invalid_argument naming the choices.
Family parse_family(std::string_view);
MaType parse_ma(std::string_view);
Side parse_side(std::string_view);
Entry parse_entry(std::string_view);
Source parse_source(std::string_view);
Fill parse_fill(std::string_view);
Style parse_style(std::string_view);

// One point of a grid: every parameter of the family (and the filter, when present).
struct Combo {
  uint64_t id = 0;
  Family family = Family::ma_cross;
  // ma_cross
  int fast = 0, slow = 0;
  MaType ma = MaType::sma;
  Entry entry = Entry::state;
  // channel_breakout, bollinger and rsi_reversion: the period
  int n = 0;
  // channel_breakout
  Source source = Source::close;
  // bollinger: band width in standard deviations, and the style
  double k = 0;
  Style style = Style::reversion;
  // rsi_reversion: the levels
  double lo = 0, hi = 0;
  // every family
  Side side = Side::long_short;
  // stops (SPEC §5b): fractions, 0 = that stop off. has_stops: the grid gave stop axes (so
  // the combo's params list them); the values alone say which stops act.
  bool has_stops = false;
  double stop_loss = 0, take_profit = 0, trailing_stop = 0;
  // vol_filter (only meaningful when has_vol)
  bool has_vol = false;
  int vol_short = 0, vol_long = 0;
  double vol_threshold = 0;
  // rules (SPEC §5a): the compiled program, shared with the grid the combo came from (never
  // modified), and the combo's value of each of program->params, in that order. Empty for the
  // built-in families, so copying their combos costs what it did.
  std::shared_ptr<const rules::Program> program;
  std::vector<double> rule_values;

  // SPEC §5 validity: fast < slow (ma_cross), n >= 2 and k > 0 (bollinger), n >= 2 and
  // lo < hi (rsi_reversion), the program's `valid` (rules, SPEC §5a), vol_short < vol_long
  // (filter), periods >= 1; and §5b's: each stop in its range (stops_valid).
  bool valid() const;
  // Whether the family's own rule holds (the filter's and the stops' aside).
  bool family_valid() const;
  // SPEC §5b: stop_loss and trailing_stop in [0, 1), take_profit >= 0.
  bool stops_valid() const;
  // Whether any stop acts (a value other than 0): positions then differ from the family's r_t.
  bool stops_on() const { return stop_loss != 0 || take_profit != 0 || trailing_stop != 0; }
};

// SPEC §5b's ranges, per axis value (count_combos and Combo::stops_valid share them).
bool stop_loss_in_range(double v);      // [0, 1)
bool take_profit_in_range(double v);    // >= 0
bool trailing_stop_in_range(double v);  // [0, 1)

// Name and size of one axis, in canonical order.
struct AxisInfo {
  std::string name;
  size_t size;
};

// A value one axis lists more than once: the axis's name ("fast") and the value as text.
struct RepeatedValue {
  std::string axis;
  std::string value;
  // "lists 5 more than once (...)": the reason, for messages that name the axis themselves.
  std::string message() const;
};

// A strategy family's parameter grid. Empty vol_* vectors = no vol_filter. Empty stop vectors
// = no stops: the grid's axes, ids and params are then exactly those of a grid without §5b.
struct Grid {
  Family family = Family::ma_cross;
  std::vector<int> fast, slow;
  std::vector<MaType> ma{MaType::sma};
  std::vector<Side> side{Side::long_short};
  std::vector<Entry> entry{Entry::state};
  std::vector<int> n;
  std::vector<Source> source{Source::close};
  std::vector<double> k;
  std::vector<Style> style{Style::reversion};
  std::vector<double> lo, hi;
  // Stops (SPEC §5b), decimal fractions. When any is given, all three are axes (in this order,
  // after the family's and before the filter's, SPEC §5's canonical order); one not given is
  // the size-1 axis {0} (off), which changes no id.
  std::vector<double> stop_loss, take_profit, trailing_stop;
  std::vector<int> vol_short, vol_long;
  std::vector<double> vol_threshold;
  // rules (SPEC §5a): the compiled program, shared by the grid's copies and its combos (never
  // modified), and one axis of numbers per program->params name, in that order: the family's
  // axes (ids mixed-radix over them, then the stops', then the filter's). The built-in
  // families' axes above stay empty (ma, side, ... keep their unused defaults).
  std::shared_ptr<const rules::Program> program;
  std::vector<std::vector<double>> rule_axes;

  bool has_vol_filter() const {
    return !vol_short.empty() || !vol_long.empty() || !vol_threshold.empty();
  }
  bool has_stops() const {
    return !stop_loss.empty() || !take_profit.empty() || !trailing_stop.empty();
  }
  // Axes in canonical order (family parameters as listed in SPEC §5, then the stops' when
  // given, then the filter's).
  std::vector<AxisInfo> axes() const;
  // Number of combos (product of axis sizes).
  uint64_t size() const;
  // Mixed-radix decode, first axis fastest. Requires id < size().
  Combo decode(uint64_t id) const;
  // Largest indicator period any combo uses (for the default warm-up, SPEC §3); for rules,
  // the largest any indicator the four conditions name can have.
  int max_period() const;
  // The first repeated value, axes in canonical order; nullopt when every value is listed
  // once. A repeat would be evaluated twice and count twice among the DSR's trials.
  std::optional<RepeatedValue> repeated_value() const;
  // Throws std::invalid_argument if an axis needed by the family is empty, a period < 1,
  // an axis lists a value twice, or the filter is only partly given; for rules, also when the
  // program is missing, the axes do not match its params, or a value is not a period or width
  // its indicators can take (rules_argument_error).
  void validate() const;
};

// SPEC §5a "a period argument must be an integer >= 1 (a band width > 0) for every combo of
// the grid, else the grid is an error": the first value, axes in order, that a declared
// indicator cannot take; `axis` indexes Grid::rule_axes, `error` is the compiler's (key
// "rules.indicators.NAME", the argument's column). Checked per axis value
// (rules::check_parameter_value), so a grid of 10^7 combos checks in the time of its axes.
// nullopt when every value fits, or the grid is not a rules grid.
struct RulesArgumentError {
  size_t axis = 0;
  rules::RuleError error;
};
std::optional<RulesArgumentError> rules_argument_error(const Grid&);

// A grid's combos by validity (SPEC §5), counted from the axes without decoding every id.
// Invalid combos by reason; one combo may fail both. Assumes every period >= 1 (validate()).
struct ComboCount {
  uint64_t total = 0, valid = 0;
  // combos failing the family's rule (family_rule_text); for rules, its `valid`, which is
  // evaluated once per combination of the axes it reads (not per combo of the grid).
  uint64_t family_rule = 0;
  uint64_t vol_short_not_below_long = 0;  // filter combos with vol_short >= vol_long
  uint64_t stop_out_of_range = 0;         // combos with a stop outside its range (SPEC §5b)
  uint64_t invalid() const { return total - valid; }
};
ComboCount count_combos(const Grid&);
// The family's validity rule as an invalid combo breaks it ("fast >= slow"; rules: "rules.valid
// false"); empty for channel_breakout, whose combos are all valid.
std::string_view family_rule_text(Family);

// Distinct indicator series (SPEC §4) the grid's combos read over the history: one per
// (ma, period) of ma_cross, two (upper, lower) per (source, n) of channel_breakout, an SMA
// and a STD per n of bollinger, one RSI per n of rsi_reversion, one per (kind, period, source)
// the rules' used indicators can take (a band: an SMA and a STD), one per vol period. What a
// sweep that held every row at once would hold.
uint64_t indicator_series(const Grid&);

// Axis text: a scalar "12", a list "5,10,20" or an inclusive range "start:stop:step".
// Decimal ranges are exact in decimal ("0.6:1.2:0.2" -> 0.6, 0.8, 1.0, 1.2).
// Throws std::invalid_argument with a message naming the problem.
std::vector<int> parse_int_axis(std::string_view text);
std::vector<double> parse_real_axis(std::string_view text);

}  // namespace wfod
