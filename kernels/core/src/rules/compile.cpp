// Compiles SPEC §5a's rule text into a Program: names checked, indicators declared, and each
// condition parsed by recursive descent into a flat postorder node list. The parser reads
// one generic grammar (conditions and numbers alike) and checks types as it goes, so
// "(a + b) > c" and "(a > b) and c > d" need no backtracking and each error points at the
// token where the text stopped making sense.
#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <string>
#include <string_view>

#include "lexer.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::rules {
namespace {

using detail::describe;
using detail::Tok;
using detail::Token;

constexpr std::string_view kKeywords[] = {"and", "or", "not", "crosses_above", "crosses_below"};
constexpr std::string_view kFields[] = {"open", "high", "low", "close", "volume"};
constexpr std::string_view kKinds[] = {"sma", "ema", "wma",      "hma",      "std",   "rsi",
                                       "hh",  "ll",  "bb_upper", "bb_lower", "bb_mid"};
// The grid axes every family has besides its own (SPEC §5b, §5): a parameter of that name
// would be two axes at once.
constexpr std::string_view kFamilyAxes[] = {"stop_loss", "take_profit", "trailing_stop",
                                            "vol_short", "vol_long",    "vol_threshold"};

template <size_t N>
std::optional<size_t> find_word(const std::string_view (&words)[N], std::string_view w) {
  for (size_t i = 0; i < N; ++i) {
    if (words[i] == w) return i;
  }
  return std::nullopt;
}

bool is_keyword(std::string_view w) { return find_word(kKeywords, w).has_value(); }

// A name as a message quotes it, bytes the key grammar would not allow escaped.
std::string quoted(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\'') {
      out += c;
    } else {
      out += detail::describe_byte(u);
    }
  }
  return out + "'";
}

// What a name may not be (SPEC §5a): a keyword, a bar field or a KIND; and, for wfod, a
// well-formed identifier of at most kMaxNameBytes bytes. Empty string when it is fine.
std::string name_problem(std::string_view name) {
  if (name.empty()) return "a name cannot be empty";
  if (name.size() > kMaxNameBytes)
    return "name " + quoted(name.substr(0, 16)) + "... is longer than " +
           std::to_string(kMaxNameBytes) + " bytes";
  if (!detail::is_name_start(name[0]) ||
      !std::all_of(name.begin(), name.end(), detail::is_name_char))
    return quoted(name) + " is not a name: letters, digits and '_', not starting with a digit";
  if (is_keyword(name)) return quoted(name) + " is a keyword, not a name";
  if (find_word(kFields, name)) return quoted(name) + " is a bar field, not a name";
  if (find_word(kKinds, name)) return quoted(name) + " is an indicator KIND, not a name";
  return {};
}

void check_text_size(const std::string& key, std::string_view text) {
  if (text.size() > kMaxTextBytes)
    throw RuleError(key, kMaxTextBytes + 1,
                    "text is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                        std::to_string(kMaxTextBytes));
}

// The nearest float64 of digits[.digits] (from_chars rounds correctly; it refuses a value
// beyond the largest double, and one below the smallest subnormal, which is 0).
double number_value(const std::string& key, const Token& t) {
  double v = 0;
  const auto [ptr, ec] =
      std::from_chars(t.text.data(), t.text.data() + t.text.size(), v, std::chars_format::fixed);
  if (ec == std::errc::result_out_of_range) {
    const bool integer_part_nonzero = t.text.find_first_not_of('0') < t.text.find('.');
    if (integer_part_nonzero)
      throw RuleError(key, t.column, "number " + describe(t) + " is too large");
    return 0.0;
  }
  if (ec != std::errc() || ptr != t.text.data() + t.text.size() || !std::isfinite(v))
    throw RuleError(key, t.column, "number " + describe(t) + " is too large");
  return v;
}

class ParamTable {
 public:
  explicit ParamTable(const std::vector<std::string>& names) : names_(names) {}
  std::optional<uint32_t> find(std::string_view name) const {
    for (size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == name) return static_cast<uint32_t>(i);
    }
    return std::nullopt;
  }

 private:
  const std::vector<std::string>& names_;
};

// --- Indicators ---------------------------------------------------------------------------

Arg parse_arg(const std::string& key, const Token& t, const ParamTable& params) {
  Arg a;
  a.column = static_cast<uint32_t>(t.column);
  if (t.kind == Tok::number) {
    a.value = number_value(key, t);
  } else if (t.kind == Tok::param) {
    const auto p = params.find(t.name());
    if (!p) throw RuleError(key, t.column, "unknown parameter " + describe(t));
    a.is_param = true;
    a.param = *p;
  } else {
    throw RuleError(key, t.column,
                    "expected a number or a $parameter as argument, found " + describe(t));
  }
  return a;
}

bool valid_period(double v) { return v >= 1 && v <= INT_MAX && v == std::floor(v); }

Indicator parse_indicator(const std::string& key, std::string name, std::string_view text,
                          const ParamTable& params) {
  check_text_size(key, text);
  const std::vector<Token> toks = detail::lex(key, text);
  Indicator ind;
  ind.name = std::move(name);
  size_t i = 0;
  const Token& head = toks[i++];
  const auto kind = head.kind == Tok::name ? find_word(kKinds, head.text) : std::nullopt;
  if (!kind)
    throw RuleError(key, head.column,
                    "expected an indicator KIND (sma, ema, wma, hma, std, rsi, hh, ll, "
                    "bb_upper, bb_lower, bb_mid), found " +
                        describe(head));
  ind.kind = static_cast<Kind>(*kind);
  if (toks[i].kind != Tok::lparen)
    throw RuleError(key, toks[i].column, "expected '(' after " + describe(head));
  ++i;
  // Arguments: number or $param, except hh/ll's optional second one, `high_low`.
  std::vector<Token> args;
  bool high_low = false;
  while (true) {
    const Token& t = toks[i];
    if (t.kind == Tok::name && t.text == "high_low" && args.size() == 1 &&
        (ind.kind == Kind::hh || ind.kind == Kind::ll) && !high_low) {
      high_low = true;
    } else if (t.kind == Tok::number || t.kind == Tok::param) {
      if (high_low) throw RuleError(key, t.column, "expected ')' after 'high_low'");
      args.push_back(t);
    } else {
      throw RuleError(key, t.column,
                      "expected a number or a $parameter as argument, found " + describe(t));
    }
    ++i;
    if (toks[i].kind == Tok::comma) {
      const bool banded_or_channel = ind.kind == Kind::bb_upper || ind.kind == Kind::bb_lower ||
                                     ind.kind == Kind::hh || ind.kind == Kind::ll;
      if (args.size() + (high_low ? 1 : 0) >= (banded_or_channel ? 2u : 1u))
        throw RuleError(
            key, toks[i].column,
            "too many arguments: " + std::string(to_string(ind.kind)) + " takes " +
                (ind.kind == Kind::bb_upper || ind.kind == Kind::bb_lower ? "a period and a width"
                 : ind.kind == Kind::hh || ind.kind == Kind::ll ? "a period and optionally high_low"
                                                                : "one period"));
      ++i;
      continue;
    }
    if (toks[i].kind != Tok::rparen)
      throw RuleError(key, toks[i].column, "expected ',' or ')' after " + describe(toks[i - 1]));
    break;
  }
  const Token& close = toks[i++];
  if (toks[i].kind != Tok::end)
    throw RuleError(key, toks[i].column, "unexpected " + describe(toks[i]) + " after ')'");
  const bool banded = ind.kind == Kind::bb_upper || ind.kind == Kind::bb_lower;
  if (banded && args.size() != 2)
    throw RuleError(key, close.column,
                    std::string(to_string(ind.kind)) + " takes a period and a width");
  if (!banded && args.size() != 1)
    throw RuleError(
        key, args.size() > 1 ? args[1].column : close.column,
        std::string(to_string(ind.kind)) + " takes one period" +
            (ind.kind == Kind::hh || ind.kind == Kind::ll ? " and optionally high_low" : ""));
  ind.period = parse_arg(key, args[0], params);
  if (!ind.period.is_param && !valid_period(ind.period.value))
    throw RuleError(key, args[0].column,
                    "a period must be an integer >= 1, found " + describe(args[0]));
  if (banded) {
    ind.width = parse_arg(key, args[1], params);
    if (!ind.width->is_param && !(ind.width->value > 0))
      throw RuleError(key, args[1].column, "a band width must be > 0, found " + describe(args[1]));
  }
  ind.high_low = high_low;
  return ind;
}

// --- Conditions ----------------------------------------------------------------------------

enum class Type : uint8_t { number, condition };

struct Parsed {
  Type type = Type::number;
  uint32_t begin = 0;       // its first node
  bool price_leaf = false;  // a lone open/high/low/close/hh/ll: compared exactly (SPEC §5a)
};

enum class Mode : uint8_t { bars, valid };

class Parser {
 public:
  Parser(std::string key, std::string_view text, Mode mode, Program& program, size_t& total_nodes)
      : key_(std::move(key)), mode_(mode), program_(program), total_nodes_(total_nodes) {
    check_text_size(key_, text);
    toks_ = detail::lex(key_, text);
  }

  Condition parse() {
    if (peek().kind == Tok::end)
      throw RuleError(key_, peek().column, "expected a condition, found end of text");
    const Parsed p = parse_or(0);
    require_condition(p);
    if (peek().kind != Tok::end)
      throw RuleError(key_, peek().column,
                      "unexpected " + describe(peek()) + " after " + describe(previous()) +
                          " (conditions join with 'and' / 'or')");
    return std::move(out_);
  }

 private:
  const Token& peek() const { return toks_[pos_]; }
  const Token& previous() const { return toks_[pos_ == 0 ? 0 : pos_ - 1]; }
  const Token& advance() { return toks_[pos_++]; }
  bool at_word(std::string_view w) const { return peek().kind == Tok::name && peek().text == w; }
  uint32_t here() const { return static_cast<uint32_t>(out_.nodes.size()); }

  void emit(Node n) {
    if (total_nodes_ >= kMaxNodes)
      throw RuleError(
          key_, n.column,
          "the strategy's conditions need more than " + std::to_string(kMaxNodes) + " nodes");
    ++total_nodes_;
    out_.nodes.push_back(n);
  }
  Node node(Op op, const Token& at) const {
    Node n;
    n.op = op;
    n.column = static_cast<uint32_t>(at.column);
    return n;
  }

  void enter(size_t depth) const {
    if (depth > kMaxDepth)
      throw RuleError(
          key_, peek().column,
          "nested deeper than " + std::to_string(kMaxDepth) + " (parentheses and 'not')");
  }

  // A number where a condition must stand: the text lacks its comparison.
  void require_condition(const Parsed& p) const {
    if (p.type == Type::condition) return;
    throw RuleError(key_, peek().column,
                    "expected '>' or '<' after " + describe(previous()) +
                        (peek().kind == Tok::end ? "" : ", found " + describe(peek())));
  }
  // An operator's operand that is a condition; `column` points at that operand.
  void require_number(const Parsed& p, const Token& op, size_t column, bool left) const {
    if (p.type == Type::number) return;
    throw RuleError(
        key_, column,
        describe(op) + " needs a number on its " + (left ? "left" : "right") + ", not a condition");
  }

  Parsed parse_or(size_t depth) {
    enter(depth);
    Parsed lhs = parse_and(depth);
    while (at_word("or")) {
      require_condition(lhs);
      const Token& op = advance();
      const Parsed rhs = parse_and(depth);
      require_condition(rhs);
      emit(node(Op::either, op));
      lhs = Parsed{Type::condition, lhs.begin, false};
    }
    return lhs;
  }

  Parsed parse_and(size_t depth) {
    Parsed lhs = parse_not(depth);
    while (at_word("and")) {
      require_condition(lhs);
      const Token& op = advance();
      const Parsed rhs = parse_not(depth);
      require_condition(rhs);
      emit(node(Op::both, op));
      lhs = Parsed{Type::condition, lhs.begin, false};
    }
    return lhs;
  }

  Parsed parse_not(size_t depth) {
    if (!at_word("not")) return parse_comparison(depth);
    const Token& op = advance();
    enter(depth + 1);
    const uint32_t begin = here();
    const Parsed inner = parse_not(depth + 1);
    require_condition(inner);
    emit(node(Op::negate, op));
    return Parsed{Type::condition, begin, false};
  }

  Parsed parse_comparison(size_t depth) {
    const Parsed lhs = parse_sum(depth);
    if (peek().kind != Tok::greater && peek().kind != Tok::less) return lhs;
    const Token& op = advance();
    require_number(lhs, op, op.column, true);
    const size_t rhs_column = peek().column;
    const Parsed rhs = parse_sum(depth);
    require_number(rhs, op, rhs_column, false);
    if (peek().kind == Tok::greater || peek().kind == Tok::less)
      throw RuleError(key_, peek().column,
                      "one comparison per atom: join comparisons with 'and' (found " +
                          describe(peek()) + " after " + describe(previous()) + ")");
    Node n = node(op.kind == Tok::greater ? Op::greater : Op::less, op);
    n.exact = mode_ == Mode::valid || (lhs.price_leaf && rhs.price_leaf);
    emit(n);
    return Parsed{Type::condition, lhs.begin, false};
  }

  Parsed parse_sum(size_t depth) {
    Parsed lhs = parse_term(depth);
    while (peek().kind == Tok::plus || peek().kind == Tok::minus) {
      const Token& op = advance();
      require_number(lhs, op, op.column, true);
      const size_t rhs_column = peek().column;
      const Parsed rhs = parse_term(depth);
      require_number(rhs, op, rhs_column, false);
      emit(node(op.kind == Tok::plus ? Op::add : Op::sub, op));
      lhs = Parsed{Type::number, lhs.begin, false};
    }
    return lhs;
  }

  Parsed parse_term(size_t depth) {
    Parsed lhs = parse_factor(depth);
    while (peek().kind == Tok::star || peek().kind == Tok::slash) {
      const Token& op = advance();
      require_number(lhs, op, op.column, true);
      const size_t rhs_column = peek().column;
      const Parsed rhs = parse_factor(depth);
      require_number(rhs, op, rhs_column, false);
      emit(node(op.kind == Tok::star ? Op::mul : Op::div, op));
      lhs = Parsed{Type::number, lhs.begin, false};
    }
    return lhs;
  }

  void only_in_bars(const Token& t) const {
    if (mode_ == Mode::valid)
      throw RuleError(key_, t.column,
                      describe(t) + " cannot appear in valid: only $parameters and numbers");
  }

  Parsed parse_factor(size_t depth) {
    const Token& t = peek();
    const uint32_t begin = here();
    switch (t.kind) {
      case Tok::number: {
        advance();
        Node n = node(Op::number, t);
        n.value = number_value(key_, t);
        emit(n);
        return Parsed{Type::number, begin, false};
      }
      case Tok::param: {
        const auto p = ParamTable(program_.params).find(t.name());
        if (!p) throw RuleError(key_, t.column, "unknown parameter " + describe(t));
        advance();
        Node n = node(Op::param, t);
        n.index = *p;
        emit(n);
        return Parsed{Type::number, begin, false};
      }
      case Tok::lparen: {
        advance();
        enter(depth + 1);
        const Parsed inner = parse_or(depth + 1);
        if (peek().kind != Tok::rparen)
          throw RuleError(key_, peek().column,
                          "expected ')' after " + describe(previous()) +
                              (peek().kind == Tok::end ? "" : ", found " + describe(peek())));
        advance();
        // Parentheses group; they are not arithmetic, so "(close)" stays a price.
        return inner;
      }
      case Tok::minus:
        throw RuleError(key_, t.column, "unary minus is not in the grammar (write 0 - x)");
      case Tok::name:
        return parse_name(depth);
      default:
        break;
    }
    throw RuleError(key_, t.column,
                    "expected a number, a name, a $parameter or '(' after " +
                        (pos_ == 0 ? std::string("the start") : describe(previous())) + ", found " +
                        describe(t));
  }

  Parsed parse_name(size_t depth) {
    const Token& t = peek();
    const uint32_t begin = here();
    if (t.text == "crosses_above" || t.text == "crosses_below") {
      only_in_bars(t);
      return parse_cross(depth);
    }
    if (is_keyword(t.text))
      throw RuleError(key_, t.column,
                      "expected a number, a name, a $parameter or '(' after " +
                          (pos_ == 0 ? std::string("the start") : describe(previous())) +
                          ", found the keyword " + describe(t));
    if (const auto f = find_word(kFields, t.text)) {
      only_in_bars(t);
      advance();
      Node n = node(Op::field, t);
      n.index = static_cast<uint32_t>(*f);
      emit(n);
      if (static_cast<Field>(*f) == Field::volume) program_.uses_volume = true;
      return Parsed{Type::number, begin, static_cast<Field>(*f) != Field::volume};
    }
    if (find_word(kKinds, t.text))
      throw RuleError(key_, t.column,
                      describe(t) +
                          " is an indicator KIND: declare it in rules.indicators (e.g. m = " +
                          std::string(t.text) + "(20)) and use its name");
    only_in_bars(t);
    for (size_t i = 0; i < program_.indicators.size(); ++i) {
      Indicator& ind = program_.indicators[i];
      if (ind.name != t.text) continue;
      advance();
      Node n = node(Op::indicator, t);
      n.index = static_cast<uint32_t>(i);
      emit(n);
      ind.used = true;
      return Parsed{Type::number, begin, ind.kind == Kind::hh || ind.kind == Kind::ll};
    }
    throw RuleError(key_, t.column,
                    "unknown indicator " + describe(t) + " (not declared in rules.indicators)");
  }

  Parsed parse_cross(size_t depth) {
    const Token& name = advance();
    const uint32_t begin = here();
    if (peek().kind != Tok::lparen)
      throw RuleError(key_, peek().column, "expected '(' after " + describe(name));
    advance();
    enter(depth + 1);
    const Parsed a = parse_sum(depth + 1);
    if (a.type != Type::number)
      throw RuleError(key_, toks_[pos_ - 1].column,
                      describe(name) + " compares numbers, not conditions");
    if (peek().kind != Tok::comma)
      throw RuleError(key_, peek().column, "expected ',' after " + describe(previous()));
    advance();
    const uint32_t rhs_begin = here();
    const Parsed b = parse_sum(depth + 1);
    if (b.type != Type::number)
      throw RuleError(key_, toks_[pos_ - 1].column,
                      describe(name) + " compares numbers, not conditions");
    if (peek().kind != Tok::rparen)
      throw RuleError(key_, peek().column,
                      "expected ')' after " + describe(previous()) +
                          (peek().kind == Tok::end ? "" : ", found " + describe(peek())));
    advance();
    Node n = node(name.text == "crosses_above" ? Op::crosses_above : Op::crosses_below, name);
    n.lhs_begin = begin;
    n.rhs_begin = rhs_begin;
    n.exact = a.price_leaf && b.price_leaf;
    emit(n);
    return Parsed{Type::condition, begin, false};
  }

  std::string key_;
  Mode mode_;
  Program& program_;
  size_t& total_nodes_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  Condition out_;
};

const std::optional<std::string>& slot_text(const RulesText& text, Slot s) {
  switch (s) {
    case Slot::long_entry:
      return text.long_entry;
    case Slot::long_exit:
      return text.long_exit;
    case Slot::short_entry:
      return text.short_entry;
    case Slot::short_exit:
      return text.short_exit;
  }
  return text.valid;  // unreachable
}

}  // namespace

std::string_view slot_key(Slot s) {
  switch (s) {
    case Slot::long_entry:
      return "rules.long_entry";
    case Slot::long_exit:
      return "rules.long_exit";
    case Slot::short_entry:
      return "rules.short_entry";
    case Slot::short_exit:
      return "rules.short_exit";
  }
  return "rules";
}

std::string_view to_string(Kind k) { return kKinds[static_cast<size_t>(k)]; }
std::string_view to_string(Field f) { return kFields[static_cast<size_t>(f)]; }

Program compile(const RulesText& text) {
  Program program;
  if (text.params.size() > kMaxParams)
    throw RuleError("rules.params", 1,
                    std::to_string(text.params.size()) + " parameters, more than the limit of " +
                        std::to_string(kMaxParams));
  for (const std::string& name : text.params) {
    std::string problem = name_problem(name);
    if (problem.empty() && find_word(kFamilyAxes, name))
      problem = quoted(name) + " is an axis of every family (SPEC §5b, §5), not a parameter name";
    if (problem.empty() &&
        std::find(program.params.begin(), program.params.end(), name) != program.params.end())
      problem = "parameter " + quoted(name) + " is listed twice";
    if (!problem.empty()) throw RuleError("rules.params", 1, problem);
    program.params.push_back(name);
  }
  if (text.indicators.size() > kMaxIndicators)
    throw RuleError("rules.indicators", 1,
                    std::to_string(text.indicators.size()) +
                        " indicators, more than the limit of " + std::to_string(kMaxIndicators));
  const ParamTable params(program.params);
  for (const auto& [name, definition] : text.indicators) {
    // The name is checked first, so the key below is printable.
    const std::string problem = name_problem(name);
    if (!problem.empty()) throw RuleError("rules.indicators", 1, problem);
    const std::string key = "rules.indicators." + name;
    for (const Indicator& other : program.indicators) {
      if (other.name == name)
        throw RuleError(key, 1, "indicator " + quoted(name) + " is declared twice");
    }
    program.indicators.push_back(parse_indicator(key, name, definition, params));
  }
  size_t total_nodes = 0;
  for (size_t s = 0; s < kSlots; ++s) {
    const auto& t = slot_text(text, static_cast<Slot>(s));
    if (!t) continue;
    program.conditions[s] =
        Parser(std::string(slot_key(static_cast<Slot>(s))), *t, Mode::bars, program, total_nodes)
            .parse();
  }
  if (text.valid)
    program.valid = Parser("rules.valid", *text.valid, Mode::valid, program, total_nodes).parse();
  return program;
}

double arg_value(const Arg& a, const std::vector<double>& values) {
  return a.is_param ? values.at(a.param) : a.value;
}

namespace {
// A parameter's value as an error quotes it: the shortest text that reads back exactly.
std::string shortest(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}
}  // namespace

namespace {
// One indicator's period and width for these values (SPEC §5a), by check_arguments and
// check_parameter_value alike, so both say the same thing about the same value.
void check_indicator(const Program& program, const Indicator& ind, double n,
                     std::optional<double> k) {
  const std::string key = "rules.indicators." + ind.name;
  if (!valid_period(n))
    throw RuleError(key, ind.period.column,
                    "a period must be an integer >= 1, but $" + program.params[ind.period.param] +
                        " is " + shortest(n));
  if (k && (!(*k > 0) || !std::isfinite(*k)))
    throw RuleError(key, ind.width->column,
                    "a band width must be > 0, but $" + program.params[ind.width->param] + " is " +
                        shortest(*k));
}
}  // namespace

void check_arguments(const Program& program, const std::vector<double>& values) {
  if (values.size() != program.params.size())
    throw std::invalid_argument("rules: " + std::to_string(values.size()) + " values for " +
                                std::to_string(program.params.size()) + " parameters");
  for (const Indicator& ind : program.indicators) {
    std::optional<double> k;
    if (ind.width) k = arg_value(*ind.width, values);
    check_indicator(program, ind, arg_value(ind.period, values), k);
  }
}

void check_parameter_value(const Program& program, uint32_t param, double value) {
  for (const Indicator& ind : program.indicators) {
    const bool period = ind.period.is_param && ind.period.param == param;
    const bool width = ind.width && ind.width->is_param && ind.width->param == param;
    if (!period && !width) continue;
    // The other argument is a literal (already checked) or another parameter (checked on its
    // own axis): 1 stands for it, a valid period and width.
    check_indicator(program, ind, period ? value : 1.0,
                    ind.width ? std::optional<double>(width ? value : 1.0) : std::nullopt);
  }
}

bool combo_valid(const Program& program, const std::vector<double>& values) {
  if (!program.valid.present()) return true;
  // Numbers and truth values on one stack (truth as 0/1): `valid` has no bars, no crosses.
  std::vector<double> stack;
  stack.reserve(program.valid.nodes.size());
  auto pop = [&] {
    const double v = stack.back();
    stack.pop_back();
    return v;
  };
  for (const Node& n : program.valid.nodes) {
    switch (n.op) {
      case Op::number:
        stack.push_back(n.value);
        break;
      case Op::param:
        stack.push_back(values.at(n.index));
        break;
      case Op::add:
      case Op::sub:
      case Op::mul:
      case Op::div: {
        const double b = pop(), a = pop();
        stack.push_back(n.op == Op::add   ? a + b
                        : n.op == Op::sub ? a - b
                        : n.op == Op::mul ? a * b
                                          : a / b);
        break;
      }
      case Op::greater:
      case Op::less: {
        const double b = pop(), a = pop();
        // Exact, as the grid's values; a non-finite operand makes it false (SPEC §5a).
        const bool finite = std::isfinite(a) && std::isfinite(b);
        stack.push_back(finite && (n.op == Op::greater ? a > b : a < b) ? 1.0 : 0.0);
        break;
      }
      case Op::both: {
        const double b = pop(), a = pop();
        stack.push_back(a != 0 && b != 0 ? 1.0 : 0.0);
        break;
      }
      case Op::either: {
        const double b = pop(), a = pop();
        stack.push_back(a != 0 || b != 0 ? 1.0 : 0.0);
        break;
      }
      case Op::negate:
        stack.push_back(pop() != 0 ? 0.0 : 1.0);
        break;
      default:
        throw std::logic_error("rules: a bar-dependent node in valid");
    }
  }
  return stack.back() != 0;
}

}  // namespace wfod::rules
