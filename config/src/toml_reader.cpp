// TableReader: typed, located reads of one TOML table, and the unknown-key check that makes
// a typo an error instead of a silently ignored setting (PROTOCOL §4).
#include "toml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace wfod::config::detail {

void fail_at(std::string_view source, const toml::source_position& where, std::string_view key,
             std::string_view message) {
  // Nodes built by the parser always have a position; 1:1 keeps the format if one did not.
  const auto line = where.line == 0 ? 1u : where.line;
  const auto column = where.column == 0 ? 1u : where.column;
  std::string text = std::string(source) + ":" + std::to_string(line) + ":" +
                     std::to_string(column) + ": key '" + std::string(key) + "': ";
  text += message;
  throw ConfigError(text);
}

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

TableReader::TableReader(const toml::table& table, std::string path, std::string_view source,
                         std::vector<std::string_view> allowed)
    : table_(table), path_(std::move(path)), source_(source), allowed_(std::move(allowed)) {
  reject_unknown();
}

std::string TableReader::key_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::optional<std::string> TableReader::get_string(std::string_view key) {
  const toml::node* node = find(key);
  if (!node) return std::nullopt;
  if (!node->is_string()) fail(key, "expected a string, got " + std::string(type_name(*node)));
  return node->as_string()->get();
}

std::optional<bool> TableReader::get_bool(std::string_view key) {
  const toml::node* node = find(key);
  if (!node) return std::nullopt;
  if (!node->is_boolean()) fail(key, "expected a boolean, got " + std::string(type_name(*node)));
  return node->as_boolean()->get();
}

std::optional<int64_t> TableReader::get_integer(std::string_view key, int64_t min, int64_t max) {
  const toml::node* node = find(key);
  if (!node) return std::nullopt;
  if (!node->is_integer()) fail(key, "expected an integer, got " + std::string(type_name(*node)));
  const int64_t value = node->as_integer()->get();
  if (value < min) {
    fail(key, "must be >= " + std::to_string(min) + " (got " + std::to_string(value) + ")");
  }
  if (value > max) {
    fail(key, "must be <= " + std::to_string(max) + " (got " + std::to_string(value) + ")");
  }
  return value;
}

std::optional<double> TableReader::get_number(std::string_view key) {
  const toml::node* node = find(key);
  if (!node) return std::nullopt;
  double value = 0;
  if (node->is_integer()) {
    value = static_cast<double>(node->as_integer()->get());
  } else if (node->is_floating_point()) {
    value = node->as_floating_point()->get();
  } else {
    fail(key, "expected a number, got " + std::string(type_name(*node)));
  }
  if (!std::isfinite(value)) fail(key, "must be a finite number");
  return value;
}

std::optional<std::vector<std::string>> TableReader::get_string_list(std::string_view key) {
  const toml::node* node = find(key);
  if (!node) return std::nullopt;
  const toml::array* array = node->as_array();
  if (!array) fail(key, "expected an array of strings, got " + std::string(type_name(*node)));
  if (array->empty()) fail(key, "must not be empty");
  std::vector<std::string> out;
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    if (!element.is_string()) {
      fail_node(element, key_path(key) + "[" + std::to_string(i) + "]",
                "expected a string, got " + std::string(type_name(element)));
    }
    out.push_back(element.as_string()->get());
  }
  return out;
}

const toml::table* TableReader::get_table(std::string_view key) {
  const toml::node* node = find(key);
  if (!node) return nullptr;
  if (!node->is_table()) fail(key, "expected a table, got " + std::string(type_name(*node)));
  return node->as_table();
}

std::vector<const toml::table*> TableReader::get_table_array(std::string_view key) {
  std::vector<const toml::table*> out;
  const toml::node* node = find(key);
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (!array) {
    fail(key, "expected an array of tables ([[" + std::string(key) + "]]), got " +
                  std::string(type_name(*node)));
  }
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    if (!element.is_table()) {
      fail_node(element, key_path(key) + "[" + std::to_string(i) + "]",
                "expected a table, got " + std::string(type_name(element)));
    }
    out.push_back(element.as_table());
  }
  return out;
}

std::optional<std::string> TableReader::get_choice(std::string_view key,
                                                   const std::vector<std::string_view>& choices) {
  std::optional<std::string> value = get_string(key);
  if (!value || std::find(choices.begin(), choices.end(), *value) != choices.end()) return value;
  std::string message = "unknown value \"" + *value + "\" (expected one of:";
  for (const std::string_view choice : choices) {
    message += ' ';
    message += choice;  // appended, not "+"-joined: GCC 12 misreports the latter (-Wrestrict)
  }
  fail(key, message + ")");
}

void TableReader::fail(std::string_view key, std::string_view message) const {
  const toml::node* node = table_.get(key);
  fail_at(source_, (node ? node->source() : table_.source()).begin, key_path(key), message);
}

void TableReader::fail_node(const toml::node& node, std::string_view full_key,
                            std::string_view message) const {
  fail_at(source_, node.source().begin, full_key, message);
}

void TableReader::fail_missing(std::string_view key) const {
  fail_at(source_, table_.source().begin, key_path(key), "required key is missing");
}

void TableReader::fail_table(std::string_view message) const {
  fail_at(source_, table_.source().begin, path_.empty() ? "(root)" : path_, message);
}

void TableReader::reject_unknown() const {
  // The table iterates in key order; report the unknown key that comes first in the file.
  const toml::key* first = nullptr;
  const toml::node* first_node = nullptr;
  for (auto&& [key, node] : table_) {
    if (std::find(allowed_.begin(), allowed_.end(), key.str()) != allowed_.end()) continue;
    const auto& pos = key.source().begin;
    if (!first || pos.line < first->source().begin.line ||
        (pos.line == first->source().begin.line && pos.column < first->source().begin.column)) {
      first = &key;
      first_node = &node;
    }
  }
  if (!first) return;
  std::string message =
      first_node->is_table() || first_node->is_array_of_tables() ? "unknown table" : "unknown key";
  if (allowed_.empty()) {
    message += " (this table takes no keys)";
  } else {
    message += " (allowed here:";
    for (const std::string_view k : allowed_) {
      message += ' ';
      message += k;
    }
    message += ")";
  }
  fail_at(source_, first->source().begin, key_path(first->str()), message);
}

}  // namespace wfod::config::detail
