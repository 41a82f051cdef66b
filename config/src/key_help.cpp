// The --help-config listing: the key tables' rows, with the example file's comment on each.
#include "wfod/config/key_help.hpp"

#include <regex>
#include <sstream>

namespace wfod::config {
namespace {

std::string trimmed(std::string s) {
  const size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

// `words` wrapped into lines of at most `width` characters, each starting with `indent`.
std::string wrapped(const std::string& words, std::string_view indent, size_t width) {
  std::istringstream in(words);
  std::string out, line;
  for (std::string word; in >> word;) {
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out.append(indent).append(line).append("\n");
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty()) out.append(indent).append(line).append("\n");
  return out;
}

}  // namespace

std::map<std::string, std::map<std::string, std::string>> example_key_notes(std::string_view text) {
  static const std::regex header(R"(^\s*#?\s*(\[\[?[a-z_.]+\]\]?)\s*(#.*)?$)");
  // A key line, written or commented out; group 3: a comment after the value. Values in the
  // example hold no '#' (endpoints, paths and names do not), so the first '#' after the
  // value starts the comment.
  static const std::regex key(R"(^\s*#?\s*([a-z_]+)\s*=([^#]*)(#(.*))?$)");
  static const std::regex comment(R"(^\s*#\s?(.*)$)");
  std::map<std::string, std::map<std::string, std::string>> notes;
  std::string table = "(top)";
  std::string above;  // the comment lines since the last key, header or blank line
  auto note = [&](const std::string& in_table, const std::string& name, std::string meaning) {
    notes[in_table].try_emplace(name, trimmed(std::move(meaning)));
  };
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      table = m[1];
      notes[table];
      if (const size_t dot = table.rfind('.'); dot != std::string::npos) {
        note("[[" + table.substr(1, dot - 1) + "]]", table.substr(dot + 1, table.size() - dot - 2),
             above);
      }
      above.clear();
    } else if (std::regex_match(line, m, key)) {
      note(table, m[1], m[4].matched ? m[4].str() : above);
      above.clear();
    } else if (std::regex_match(line, m, comment)) {
      if (!above.empty()) above += ' ';
      above += trimmed(m[1]);
    } else {
      above.clear();  // a blank line ends a comment block
    }
  }
  return notes;
}

std::vector<KeyHelp> key_help(std::string_view example_text) {
  const auto notes = example_key_notes(example_text);
  std::vector<KeyHelp> help;
  for (const TableInfo& table : key_tables()) {
    const auto in_table = notes.find(std::string(table.header));
    for (const KeyInfo& k : table.keys) {
      std::string meaning;
      if (in_table != notes.end()) {
        if (const auto found = in_table->second.find(std::string(k.name));
            found != in_table->second.end()) {
          meaning = found->second;
        }
      }
      help.push_back(KeyHelp{table.header, k.name, k.reload, k.required, std::move(meaning)});
    }
  }
  return help;
}

std::string_view reload_text(Reload reload) {
  if (reload == Reload::restart) return "SIGHUP: restart";
  return reload == Reload::live ? "SIGHUP: applied at once"
                                : "SIGHUP: applied at once (the strategy starts over)";
}

std::string key_help_text(std::string_view example_text) {
  std::string out =
      "wfod configuration keys (PROTOCOL.md section 4), table by table: each key, what a SIGHUP\n"
      "reload does with it (docs/operations.md \"Signals and reload\") and what it means (its\n"
      "comment in config/wfod.example.toml, which shows each key with its default). The axes of\n"
      "the [strategy.grid] table depend on the family; the example shows them for each family.\n";
  std::string_view last_header;
  for (const KeyHelp& k : key_help(example_text)) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict) on `"literal" + std::string(...)`.
    if (k.header != last_header) {
      out.append("\n").append(k.header).append("\n");
      last_header = k.header;
    }
    out.append("  ").append(k.name).append("  (").append(reload_text(k.reload));
    out.append(k.required ? "; required)\n" : ")\n");
    out += wrapped(k.meaning, "      ", 96);
  }
  return out;
}

}  // namespace wfod::config
