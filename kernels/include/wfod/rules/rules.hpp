// User-written strategies (SPEC §5a, the `rules` family): the text a user writes, the
// compiled program every backend evaluates, and the errors and limits of compiling it.
// Rule text is untrusted input, so every size the compiler accepts is bounded here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wfod::rules {

// Limits on what one strategy may hold. The compiler refuses more with a RuleError, so a
// hostile text costs at most O(kMaxTextBytes) work and O(kMaxNodes) memory per condition.
inline constexpr size_t kMaxTextBytes = 8192;  // one condition, `valid` or indicator text
inline constexpr size_t kMaxDepth = 64;        // nesting of parentheses and `not`
inline constexpr size_t kMaxIndicators = 64;   // declared in `indicators`
inline constexpr size_t kMaxParams = 64;       // names in `params`
inline constexpr size_t kMaxNodes = 4096;      // nodes of all five conditions together
inline constexpr size_t kMaxNameBytes = 64;    // a parameter or indicator name

// A compile error: `key` is where the text came from ("rules.long_entry",
// "rules.indicators.f", "rules.params"), `column` the 1-based byte offset inside that text
// (text.size() + 1 for "end of text"), `message` what was expected. what() is
// "key:column: message"; the caller prefixes file:line:col and the strategy.
class RuleError : public std::runtime_error {
 public:
  RuleError(std::string key, size_t column, const std::string& message)
      : std::runtime_error(key + ":" + std::to_string(column) + ": " + message),
        key_(std::move(key)),
        column_(column),
        message_(message) {}
  const std::string& key() const { return key_; }
  size_t column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string key_;
  size_t column_;
  std::string message_;
};

// The `[strategy.rules]` table as text (PROTOCOL §4), before compiling.
struct RulesText {
  std::vector<std::string> params;
  std::vector<std::pair<std::string, std::string>> indicators;  // name, "KIND(args)"
  std::optional<std::string> long_entry, long_exit, short_entry, short_exit;
  std::optional<std::string> valid;
};

// The four conditions, in the order of RulesText and Program::conditions.
enum class Slot : uint8_t { long_entry, long_exit, short_entry, short_exit };
inline constexpr size_t kSlots = 4;
std::string_view slot_key(Slot);  // "rules.long_entry", ...

// SPEC §5a's KINDs. bb_mid is sma under another name.
enum class Kind : uint8_t { sma, ema, wma, hma, std, rsi, hh, ll, bb_upper, bb_lower, bb_mid };
std::string_view to_string(Kind);

enum class Field : uint8_t { open, high, low, close, volume };
std::string_view to_string(Field);

// An indicator argument: a literal or a parameter (index into Program::params).
struct Arg {
  bool is_param = false;
  uint32_t param = 0;
  double value = 0;     // the literal, when !is_param
  uint32_t column = 0;  // where it stands in the indicator's text
};

struct Indicator {
  std::string name;
  Kind kind = Kind::sma;
  Arg period;
  std::optional<Arg> width;  // bb_upper, bb_lower
  bool high_low = false;     // hh, ll: the high/low channel (SPEC §4 source high_low)
  bool used = false;         // named by one of the four conditions (SPEC §5a: only those count)
};

// One node of a condition. A condition is a flat postorder program: every node follows its
// operands, so it is evaluated left to right with a value stack (no recursion, whatever the
// text's shape), and each operand of a cross is the contiguous range it occupies.
enum class Op : uint8_t {
  number,     // literal: value
  param,      // $name: index
  field,      // open/high/low/close/volume: index = Field
  indicator,  // index into Program::indicators
  add,
  sub,
  mul,
  div,
  greater,        // a > b: a ≻ b (dead band unless `exact`)
  less,           // a < b: a ≺ b
  crosses_above,  // operands [lhs_begin, rhs_begin) and [rhs_begin, this)
  crosses_below,
  both,    // and
  either,  // or
  negate,  // not
};

struct Node {
  Op op = Op::number;
  bool exact = false;  // comparison/cross of two raw prices or channel levels (no dead band)
  uint32_t index = 0;
  uint32_t lhs_begin = 0;  // crosses: where each operand's nodes begin
  uint32_t rhs_begin = 0;
  uint32_t column = 0;  // 1-based, in the condition's text
  double value = 0;
};

struct Condition {
  std::vector<Node> nodes;  // empty: the condition is absent (false)
  bool present() const { return !nodes.empty(); }
};

struct Program {
  std::vector<std::string> params;
  std::vector<Indicator> indicators;
  std::array<Condition, kSlots> conditions;
  Condition valid;  // absent: every combo is valid
  bool uses_volume = false;
  const Condition& condition(Slot s) const { return conditions[static_cast<size_t>(s)]; }
};

// Compiles the text; throws RuleError on the first error met (params, then indicators in
// order, then long_entry, long_exit, short_entry, short_exit, valid).
Program compile(const RulesText&);

// SPEC §5a `valid` for one combo (`values` in `params` order): comparisons exact, arithmetic
// rounded once per operation. True when `valid` is absent.
bool combo_valid(const Program&, const std::vector<double>& values);

// The period (an integer >= 1) and width (> 0) of every declared indicator for one combo;
// throws RuleError (key "rules.indicators.NAME", the argument's column) otherwise. SPEC §5a
// makes such a grid an error, whether or not `valid` accepts the combo.
void check_arguments(const Program&, const std::vector<double>& values);
// check_arguments for one parameter's value alone: every declared indicator's period or width
// written `$param` (an index into params) must accept `value`. An argument is one literal
// (checked when compiled) or one parameter, so checking every value of every axis this way
// checks every combo of a grid, in the time of its axes' values rather than of its combos.
void check_parameter_value(const Program&, uint32_t param, double value);
// An argument's value for a combo.
double arg_value(const Arg&, const std::vector<double>& values);

}  // namespace wfod::rules
