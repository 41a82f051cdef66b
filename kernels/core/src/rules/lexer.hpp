// The tokens of SPEC §5a's rule text (conditions, `valid`, indicator definitions): a
// hand-written lexer over at most kMaxTextBytes bytes, each token with its 1-based column so
// every error can point into the text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wfod/rules/rules.hpp"

namespace wfod::rules::detail {

enum class Tok : uint8_t {
  end,
  number,  // digits [ "." digits ]
  param,   // "$" NAME; text holds the name without '$'
  name,    // NAME, keyword, bar field or KIND (the parser tells them apart)
  lparen,
  rparen,
  comma,
  plus,
  minus,
  star,
  slash,
  greater,
  less,
};

struct Token {
  Tok kind = Tok::end;
  std::string_view text;  // the token as written ("$fast" for a param: see name())
  size_t column = 0;      // 1-based
  std::string_view name() const { return kind == Tok::param ? text.substr(1) : text; }
};

// The token as an error message quotes it: 'close', '$fast', end of text.
std::string describe(const Token&);
// A byte of text as an error quotes it: 'x' when printable ASCII, else byte 0xC3.
std::string describe_byte(unsigned char);

// Splits `text` into tokens ending with one Tok::end at column text.size() + 1; throws
// RuleError(key, column, ...) on a character the grammar has no place for.
std::vector<Token> lex(const std::string& key, std::string_view text);

bool is_name_start(char c);
bool is_name_char(char c);

}  // namespace wfod::rules::detail
