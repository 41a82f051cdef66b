// [strategy.rules] -> a compiled rules::Program (SPEC §5a, PROTOCOL §4), every compile error
// placed in the file: "FILE:LINE:COL: strategy "NAME": rules.KEY:COLUMN: MESSAGE", LINE:COL
// being where the error's column falls inside the TOML string (rule_text_position).
// Internal to wfod_config.
#pragma once

#include <toml++/toml.h>

#include <memory>
#include <string>
#include <string_view>

#include "wfod/rules/rules.hpp"

namespace wfod::config::detail {

// Reads the table at key path `path` ("strategy[1].rules") through rules_keys() and compiles
// it; `strategy` is the strategy's name for messages. Throws ConfigError.
std::shared_ptr<const rules::Program> read_rules(const toml::table& table, const std::string& path,
                                                 std::string_view source,
                                                 std::string_view strategy);

// Where byte `column` (1-based; text.size() + 1 = just past the end) of the string `node`
// holds lies in the file. Exact where the value is written on one line with one delimiter
// byte each side and no escape ("..." or '...' whose source spans exactly text.size() + 2
// columns: then file column = the opening quote's column + column); otherwise (escapes,
// multi-line strings, non-ASCII text, whose TOML++ columns count code points) the value's
// own start, the message's column still pointing inside the text.
toml::source_position rule_text_position(const toml::node& node, size_t column);

}  // namespace wfod::config::detail
