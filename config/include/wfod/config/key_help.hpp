// `wfod --help-config`: every key of the key tables (config_keys.hpp), in their order, with
// its table, whether it is required, what a SIGHUP does with it, and what it means. The
// meaning is the comment config/wfod.example.toml writes for the key (the example documents
// every key; tests/unit/config/config_keys_test.cpp checks that it names each one), so the listing
// declares no key and no meaning of its own: names and reload classes come from the tables.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/config/config_keys.hpp"

namespace wfod::config {

// What an example file says about each key it mentions, by table header ("[daemon]",
// "[[feed]]") and key: the comment after the key on its line, else the comment lines right
// above it, joined into one line. Keys written and keys commented out (`# key = ...`) count,
// under the last header above them (a commented-out `# [curve]` too); a `[a.b]` header
// mentions key b of `[[a]]` (its meaning: the comment above the header). The first mention of
// a key in a table wins (a second [[feed]] table repeats the keys).
std::map<std::string, std::map<std::string, std::string>> example_key_notes(std::string_view text);

struct KeyHelp {
  std::string_view header;  // "[daemon]", "[[feed]]", ...
  std::string_view name;
  Reload reload;
  bool required;
  std::string meaning;  // "" when the example says nothing about the key
};

// One entry per key of key_tables(), in table order, with its meaning from `example_text`.
std::vector<KeyHelp> key_help(std::string_view example_text);

// What a SIGHUP does with a key of this class, in the words of docs/operations.md's table.
std::string_view reload_text(Reload reload);

// The listing `wfod --help-config` prints: a heading per table, a line per key with its reload
// class and "required" where it is, and its meaning below it, wrapped at 96 columns.
std::string key_help_text(std::string_view example_text);

}  // namespace wfod::config
