// `wfod --help-config` (wfod/config/key_help.hpp) against the key tables: the listing names
// every key of every table, in its table, with the reload class the table gives it and in the
// words docs/operations.md's reload table uses, and no key the tables do not have; each key
// has a meaning in config/wfod.example.toml; and the example's comments are read as written
// (after the value, or the lines above; commented-out keys; a `[a.b]` header).
#include "wfod/config/key_help.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace wfod::config {
namespace {

namespace fs = std::filesystem;

std::string example_text() {
  std::ifstream in(fs::path(WFOD_SOURCE_DIR) / "config" / "wfod.example.toml", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// (header, key, the parenthesised reload/required note) of each key line of a listing.
std::set<std::string> listed_keys(const std::string& listing) {
  std::set<std::string> keys;
  std::string header;
  std::istringstream in(listing);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("[", 0) == 0) header = line;
    if (line.rfind("  ", 0) == 0 && line.rfind("   ", 0) != 0)
      keys.insert(header + " " + line.substr(2));
  }
  return keys;
}

TEST(KeyHelp, ListsEveryTableKeyWithItsReloadClassAndNoOther) {
  std::set<std::string> expected;
  for (const TableInfo& table : key_tables()) {
    for (const KeyInfo& k : table.keys) {
      expected.insert(std::string(table.header) + " " + std::string(k.name) + "  (" +
                      std::string(reload_text(k.reload)) + (k.required ? "; required" : "") + ")");
    }
  }
  ASSERT_GT(expected.size(), 40u);
  EXPECT_EQ(listed_keys(key_help_text(example_text())), expected);
}

// docs/operations.md's reload table says "restart" or "applied at once" (config_keys_test.cpp
// checks each key's row); the listing uses the same words.
TEST(KeyHelp, ReloadWordsAreTheDocsOnes) {
  EXPECT_EQ(reload_text(Reload::restart), "SIGHUP: restart");
  EXPECT_EQ(reload_text(Reload::live).find("SIGHUP: applied at once"), 0u);
  EXPECT_EQ(reload_text(Reload::stream).find("SIGHUP: applied at once"), 0u);
}

TEST(KeyHelp, EveryKeyHasAMeaningInTheExample) {
  for (const KeyHelp& k : key_help(example_text())) {
    EXPECT_FALSE(k.meaning.empty()) << k.header << " " << k.name;
  }
  // Spot checks: a trailing comment, a comment block above, a commented-out key, a header.
  const auto notes = example_key_notes(example_text());
  EXPECT_EQ(notes.at("[daemon]").at("threads"),
            "CPU worker threads, 0 = all cores (its CPU affinity). Default 0");
  EXPECT_EQ(notes.at("[daemon]").at("state_dir"),
            "Persisted bars and publication sequence numbers. Default \"/var/lib/wfod\".");
  EXPECT_EQ(notes.at("[curve]").at("key_file"), "this daemon's keypair: `wfod --keygen FILE`");
  EXPECT_EQ(notes.at("[[strategy]]").at("selection").rfind("Robust selection", 0), 0u);
}

TEST(KeyHelp, ReadsCommentsAsWritten) {
  const auto notes = example_key_notes(
      "# not a key's\n"
      "\n"
      "[[t]]\n"
      "a = 1   # after the value\n"
      "# above,\n"
      "#   two lines\n"
      "b = \"x\"\n"
      "# commented out, above\n"
      "# c = 2\n"
      "d = 3\n"
      "# e = 4  # after a commented-out value\n"
      "\n"
      "# the sub-table\n"
      "[t.sub]\n"
      "[[t]]\n"
      "a = 5   # a second table's: not used\n");
  const std::map<std::string, std::string> expected = {{"a", "after the value"},
                                                       {"b", "above, two lines"},
                                                       {"c", "commented out, above"},
                                                       {"d", ""},
                                                       {"e", "after a commented-out value"},
                                                       {"sub", "the sub-table"}};
  EXPECT_EQ(notes.at("[[t]]"), expected);
  EXPECT_TRUE(notes.at("[t.sub]").empty());
}

TEST(KeyHelp, WrapsTheMeaningUnderItsKey) {
  const std::string listing = key_help_text(example_text());
  std::istringstream in(listing);
  for (std::string line; std::getline(in, line);) EXPECT_LE(line.size(), 96u) << line;
  EXPECT_NE(listing.find("\n[daemon]\n  state_dir  (SIGHUP: restart)\n      Persisted bars and "
                         "publication sequence numbers. Default \"/var/lib/wfod\".\n"),
            std::string::npos);
}

}  // namespace
}  // namespace wfod::config
