// SPEC §5a's tokens: numbers without sign or exponent, $params, names, parentheses, commas,
// the four operators and the two comparisons; everything else (>=, ==, '.5', '1e3', non-ASCII
// bytes) is refused here with a message naming what the grammar allows instead.
#include "lexer.hpp"

#include <cstdio>

namespace wfod::rules::detail {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

std::string describe_byte(unsigned char c) {
  if (c >= 0x21 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", static_cast<unsigned>(c));
  return buf;
}

std::string describe(const Token& t) {
  if (t.kind == Tok::end) return "end of text";
  // Appended piece by piece: GCC 12's -Wrestrict misfires on "'" + std::string(...) at -O3.
  std::string out(1, '\'');
  out.append(t.text);
  out += '\'';
  return out;
}

std::vector<Token> lex(const std::string& key, std::string_view text) {
  std::vector<Token> out;
  size_t i = 0;
  auto push = [&](Tok kind, size_t begin, size_t end) {
    out.push_back(Token{kind, text.substr(begin, end - begin), begin + 1});
  };
  while (i < text.size()) {
    const char c = text[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    const size_t begin = i;
    if (is_digit(c)) {
      while (i < text.size() && is_digit(text[i])) ++i;
      if (i < text.size() && text[i] == '.') {
        ++i;
        if (i == text.size() || !is_digit(text[i]))
          throw RuleError(key, i + 1, "expected a digit after '.' in a number");
        while (i < text.size() && is_digit(text[i])) ++i;
      }
      // "1e5", "2.5.1", "10x": SPEC §5a numbers have no exponent and no suffix.
      if (i < text.size() && (is_name_char(text[i]) || text[i] == '.'))
        throw RuleError(key, i + 1,
                        "malformed number: a number is digits [. digits], without exponent or "
                        "suffix");
      push(Tok::number, begin, i);
      continue;
    }
    if (c == '$') {
      ++i;
      if (i == text.size() || !is_name_start(text[i]))
        throw RuleError(key, i + 1, "expected a parameter name after '$'");
      while (i < text.size() && is_name_char(text[i])) ++i;
      push(Tok::param, begin, i);
      continue;
    }
    if (is_name_start(c)) {
      while (i < text.size() && is_name_char(text[i])) ++i;
      push(Tok::name, begin, i);
      continue;
    }
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (c) {
      case '(':
        push(Tok::lparen, i, i + 1);
        break;
      case ')':
        push(Tok::rparen, i, i + 1);
        break;
      case ',':
        push(Tok::comma, i, i + 1);
        break;
      case '+':
        push(Tok::plus, i, i + 1);
        break;
      case '-':
        push(Tok::minus, i, i + 1);
        break;
      case '*':
        push(Tok::star, i, i + 1);
        break;
      case '/':
        push(Tok::slash, i, i + 1);
        break;
      case '>':
      case '<':
        if (next == '=')
          throw RuleError(key, begin + 1,
                          c == '>' ? "'>=' is not in the grammar: comparisons are '>' and '<' "
                                     "(write 'not (a < b)')"
                                   : "'<=' is not in the grammar: comparisons are '>' and '<' "
                                     "(write 'not (a > b)')");
        push(c == '>' ? Tok::greater : Tok::less, i, i + 1);
        break;
      case '=':
      case '!':
        throw RuleError(key, begin + 1,
                        std::string(text.substr(begin, next == '=' ? 2 : 1)).insert(0, "'") +
                            "' is not in the grammar: comparisons are '>' and '<'");
      case '.':
        throw RuleError(key, begin + 1, "a number starts with a digit (write 0.5, not .5)");
      default:
        throw RuleError(key, begin + 1,
                        "unexpected " + describe_byte(static_cast<unsigned char>(c)));
    }
    ++i;
  }
  out.push_back(Token{Tok::end, text.substr(text.size()), text.size() + 1});
  return out;
}

}  // namespace wfod::rules::detail
