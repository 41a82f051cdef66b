// Tests of the key tables (wfod/config/config_keys.hpp) against what documents them: every
// key of every table is mentioned in config/wfod.example.toml under its table (commented
// out counts) and every key the example writes is in a table; docs/operations.md's reload
// table names every key in a row of its table whose "on SIGHUP" column matches the key's
// reload class; and each live or restart key is compared by the reload plan.
#include "wfod/config/config_keys.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace wfod::config {
namespace {

namespace fs = std::filesystem;

const fs::path kExample = fs::path(WFOD_SOURCE_DIR) / "config" / "wfod.example.toml";
const fs::path kOperations = fs::path(WFOD_SOURCE_DIR) / "docs" / "operations.md";

// Table headers whose keys are in no key table: the grid's axes depend on the family.
const std::set<std::string> kUntabled = {"[strategy.grid]"};

std::string read_keys_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The keys an example file mentions, by table header: `key = ...` lines, written or
// commented out (`# key = ...`), under the last `[table]` / `[[table]]` header above them
// (a commented-out header, `# [curve]`, counts too); a `[a.b]` header mentions key b of
// `[[a]]`.
std::map<std::string, std::set<std::string>> example_keys(const std::string& text) {
  static const std::regex header(R"(^\s*#?\s*(\[\[?[a-z_.]+\]\]?)\s*(#.*)?$)");
  static const std::regex key(R"(^\s*#?\s*([a-z_]+)\s*=)");
  std::map<std::string, std::set<std::string>> keys;
  std::string table = "(top)";
  for (const std::string& line : lines_of(text)) {
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      table = m[1];
      keys[table];
      // [strategy.grid] also mentions the key grid of [[strategy]].
      if (const size_t dot = table.rfind('.'); dot != std::string::npos) {
        keys["[[" + table.substr(1, dot - 1) + "]]"].insert(
            table.substr(dot + 1, table.size() - dot - 2));
      }
    } else if (std::regex_search(line, m, key)) {
      keys[table].insert(m[1]);
    }
  }
  return keys;
}

// What an example text gets wrong against the key tables, one line each; empty = nothing.
std::vector<std::string> example_problems(const std::string& text) {
  std::vector<std::string> problems;
  const auto mentioned = example_keys(text);
  std::map<std::string, std::set<std::string>> tabled;
  for (const TableInfo& table : key_tables()) {
    std::set<std::string>& names = tabled[std::string(table.header)];
    const auto found = mentioned.find(std::string(table.header));
    for (const KeyInfo& k : table.keys) {
      names.insert(std::string(k.name));
      if (found == mentioned.end() || !found->second.count(std::string(k.name))) {
        problems.push_back(std::string(table.header) + " " + std::string(k.name) +
                           ": in the key table, not in the example");
      }
    }
  }
  for (const auto& [header, keys] : mentioned) {
    if (kUntabled.count(header)) continue;
    const auto table = tabled.find(header);
    for (const std::string& k : keys) {
      if (table == tabled.end() || !table->second.count(k)) {
        problems.push_back(header + " " + k + ": in the example, in no key table");
      }
    }
  }
  return problems;
}

// What docs/operations.md's reload table gets wrong: each key must be named (`key` or
// `[table] key`) in a row whose first cell names its table and whose second cell says
// "restart" for a restart key and "applied at once" for the others.
std::vector<std::string> docs_problems(const std::string& text) {
  std::vector<std::string> rows;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("| `[", 0) == 0) rows.push_back(line);
  }
  std::vector<std::string> problems;
  for (const TableInfo& table : key_tables()) {
    const std::string header(table.header);
    for (const KeyInfo& k : table.keys) {
      const std::string name(k.name);
      const std::string expected = k.reload == Reload::restart ? "restart" : "applied at once";
      bool named = false;
      for (const std::string& row : rows) {
        const size_t second = row.find(" | ", 2);
        if (second == std::string::npos) continue;
        const std::string first = row.substr(2, second - 2);
        if (first.find("`" + header) == std::string::npos) continue;
        if (first.find("`" + name + "`") == std::string::npos &&
            first.find("`" + header + " " + name + "`") == std::string::npos) {
          continue;
        }
        named = true;
        if (row.compare(second + 3, expected.size(), expected) != 0) {
          problems.push_back(header + " " + name + ": its row does not say \"" + expected + "\"");
        }
      }
      if (!named) problems.push_back(header + " " + name + ": not named in the reload table");
    }
  }
  return problems;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

TEST(ConfigKeys, ExampleMentionsEveryKeyAndNoOther) {
  const std::vector<std::string> problems = example_problems(read_keys_file(kExample));
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(ConfigKeys, OperationsDocNamesEveryKeyWithItsReloadClass) {
  const std::vector<std::string> problems = docs_problems(read_keys_file(kOperations));
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

// The checks above can fail: the example with one key taken out, or one key too many.
TEST(ConfigKeys, ExampleCheckCatchesAMissingOrUnknownKey) {
  const std::string text = read_keys_file(kExample);
  const std::string without = std::regex_replace(text, std::regex("\nrcvhwm = "), "\nrcv_hwm = ");
  ASSERT_NE(without, text);
  EXPECT_EQ(joined(example_problems(without)),
            "[[feed]] rcvhwm: in the key table, not in the example\n"
            "[[feed]] rcv_hwm: in the example, in no key table\n");
}

TEST(ConfigKeys, DocsCheckCatchesAKeyUnderTheWrongReloadClass) {
  std::string text = read_keys_file(kOperations);
  const std::string live = "| `[daemon] log_level` | applied at once";
  const size_t at = text.find(live);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, live.size(), "| `[daemon] log_level` | restart");
  EXPECT_EQ(joined(docs_problems(text)),
            "[daemon] log_level: its row does not say \"applied at once\"\n");
}

// The reload plan compares every live and restart key; a [[strategy]] key restarts its
// streams instead, and every key is read by its row.
TEST(ConfigKeys, EveryRowReadsAndEveryNonStrategyRowCompares) {
  auto check = [](const auto& keys, bool compared) {
    for (const auto& k : keys) {
      EXPECT_TRUE(static_cast<bool>(k.read)) << k.name;
      if (compared) {
        EXPECT_NE(k.reload, Reload::stream) << k.name;
        EXPECT_TRUE(static_cast<bool>(k.differs)) << k.name;
      } else {
        EXPECT_EQ(k.reload, Reload::stream) << k.name;
      }
    }
  };
  check(daemon_keys(), true);
  check(publish_keys(), true);
  check(curve_keys(), true);
  check(feed_keys(), true);
  check(symbol_keys(), true);
  check(strategy_keys(), false);
  check(selection_keys(), false);
  check(rules_keys(), false);
}

}  // namespace
}  // namespace wfod::config
