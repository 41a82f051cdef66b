// Typed, located access to one TOML table: every read names its key path, every error is
// "FILE:LINE:COL: key 'a.b': message", and keys nobody asked for are reported as unknown.
// Internal to wfod_config.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/config/config.hpp"

namespace wfod::config::detail {

// Throws ConfigError("SOURCE:LINE:COL: key 'KEY': MESSAGE").
[[noreturn]] void fail_at(std::string_view source, const toml::source_position& where,
                          std::string_view key, std::string_view message);

// "integer", "string", "array", ... for "expected X, got Y" messages.
std::string_view type_name(const toml::node& node);

class TableReader {
 public:
  // `path` is the table's key path ("" for the root, "strategy[0]", "strategy[0].grid");
  // `allowed` its keys. Throws at once for a key not allowed, so that a misspelt key is
  // reported as such rather than as the required key it was meant to be.
  TableReader(const toml::table& table, std::string path, std::string_view source,
              std::vector<std::string_view> allowed);

  const std::string& path() const { return path_; }
  std::string_view source() const { return source_; }
  // The full key path of one of this table's keys.
  std::string key_path(std::string_view key) const;

  // The value of `key`, or nullptr when absent.
  const toml::node* find(std::string_view key) const { return table_.get(key); }
  bool has(std::string_view key) const { return table_.contains(key); }

  std::optional<std::string> get_string(std::string_view key);
  std::optional<bool> get_bool(std::string_view key);
  // An integer in [min, max].
  std::optional<int64_t> get_integer(std::string_view key,
                                     int64_t min = std::numeric_limits<int64_t>::min(),
                                     int64_t max = std::numeric_limits<int64_t>::max());
  // A finite number (TOML integer or float).
  std::optional<double> get_number(std::string_view key);
  // A non-empty array of strings.
  std::optional<std::vector<std::string>> get_string_list(std::string_view key);
  // A sub-table (`[a.b]` or `b = {...}`).
  const toml::table* get_table(std::string_view key);
  // An array of tables (`[[b]]`); an empty list when absent.
  std::vector<const toml::table*> get_table_array(std::string_view key);

  // A string value passed through `parse` (e.g. wfod::parse_fill); std::invalid_argument
  // from it becomes a ConfigError at the value.
  template <class Parse>
  auto get_parsed(std::string_view key, Parse parse) -> std::optional<decltype(parse(""))> {
    const std::optional<std::string> text = get_string(key);
    if (!text) return std::nullopt;
    try {
      return parse(*text);
    } catch (const std::invalid_argument& e) {
      fail(key, e.what());
    }
  }
  // A string that must be one of `choices`.
  std::optional<std::string> get_choice(std::string_view key,
                                        const std::vector<std::string_view>& choices);

  // Errors at the value of `key` (or at this table when the key is absent).
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  // Errors at an arbitrary node (an array element), naming `key_path` in full.
  [[noreturn]] void fail_node(const toml::node& node, std::string_view full_key,
                              std::string_view message) const;
  // A required key is absent: reported at this table.
  [[noreturn]] void fail_missing(std::string_view key) const;
  // Errors about the table as a whole.
  [[noreturn]] void fail_table(std::string_view message) const;

 private:
  // Throws for the first key, in document order, that is not allowed.
  void reject_unknown() const;

  const toml::table& table_;
  std::string path_;
  std::string_view source_;
  std::vector<std::string_view> allowed_;
};

}  // namespace wfod::config::detail
