// Reading a universe (universe.hpp): a CSV list of symbols and files, a folder of CSV files
// or a glob, and --shard I/N.

#include "universe.hpp"

#include <glob.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "args.hpp"

namespace wfod::cli {

namespace {

namespace fs = std::filesystem;

// A universe line names a symbol, a path and a number: far below this. A longer one is not a
// universe file (binary data, or a device such as /dev/zero that never ends a line).
constexpr size_t kMaxUniverseLine = 16 << 10;

// The next line of `in` into `line`, false at the end of the file; a line past
// kMaxUniverseLine is an error naming it (std::getline would read it whole, without bound).
bool next_universe_line(std::istream& in, std::string& line, const std::string& where) {
  line.clear();
  int c = 0;
  while ((c = in.get()) != std::char_traits<char>::eof() && c != '\n') {
    if (line.size() == kMaxUniverseLine)
      throw InputError(where + ": a line longer than 16 KiB: not a universe file");
    line.push_back(static_cast<char>(c));
  }
  return c != std::char_traits<char>::eof() || !line.empty();
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return std::string(s.substr(first, last - first + 1));
}

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    cells.push_back(trim(std::string_view(line).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cells;
}

// A symbol names files, tables and JSON keys: no space, comma, quote or slash in it.
void check_symbol(const std::string& symbol, const std::string& where) {
  if (symbol.empty()) throw InputError(where + ": empty symbol");
  for (const char c : symbol) {
    if (c == ' ' || c == '\t' || c == ',' || c == '"' || c == '/' || c == '\\' ||
        static_cast<unsigned char>(c) < 0x20)
      throw InputError(where + ": symbol '" + symbol +
                       "' has a character that a symbol cannot have (space, comma, quote, "
                       "slash or control)");
  }
}

// Symbols named by the file stems of `paths` (already in order); a stem twice is an error.
Universe from_paths(const std::string& arg, const std::vector<std::string>& paths) {
  Universe u;
  u.source = arg;
  std::map<std::string, std::string> seen;
  for (const std::string& p : paths) {
    const std::string symbol = fs::path(p).stem().string();
    check_symbol(symbol, p);
    if (auto it = seen.find(symbol); it != seen.end())
      throw InputError(arg + ": symbol '" + symbol + "' listed twice (" + it->second + " and " + p +
                       ")");
    seen.emplace(symbol, p);
    u.symbols.push_back({symbol, p, std::nullopt});
  }
  return u;
}

Universe from_folder(const std::string& arg) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (fs::directory_iterator it(arg, ec), end; !ec && it != end; it.increment(ec)) {
    std::string ext = it->path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".csv" && it->is_regular_file()) paths.push_back(it->path().string());
  }
  if (ec) throw InputError(arg + ": cannot list the folder: " + ec.message());
  if (paths.empty()) throw InputError(arg + ": a folder without .csv files");
  std::sort(paths.begin(), paths.end());
  return from_paths(arg, paths);
}

Universe from_glob(const std::string& arg) {
  glob_t g{};
  const int rc = ::glob(arg.c_str(), 0, nullptr, &g);
  std::vector<std::string> paths;
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) paths.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  if (rc == GLOB_NOMATCH || (rc == 0 && paths.empty()))
    throw InputError(arg + ": no file matches the pattern");
  if (rc != 0) throw InputError(arg + ": cannot expand the pattern");
  std::sort(paths.begin(), paths.end());  // glob sorts too, by the locale: name order here
  return from_paths(arg, paths);
}

Universe from_list(const std::string& arg) {
  std::ifstream in(arg);
  if (!in) throw InputError(arg + ": cannot open the universe file");
  Universe u;
  u.source = arg;
  const fs::path dir = fs::path(arg).parent_path();
  std::map<std::string, size_t> seen;  // symbol -> line
  std::string line;
  size_t line_no = 0;
  size_t columns = 0;  // from the header: 2 or 3
  while (next_universe_line(in, line, arg + ":" + std::to_string(line_no + 1))) {
    ++line_no;
    const std::string text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const std::string where = arg + ":" + std::to_string(line_no);
    const std::vector<std::string> cells = split_cells(text);
    if (columns == 0) {
      if ((cells.size() == 2 || cells.size() == 3) && cells[0] == "symbol" && cells[1] == "path" &&
          (cells.size() == 2 || cells[2] == "bars_per_year")) {
        columns = cells.size();
        continue;
      }
      throw InputError(where + ": the header must be symbol,path or symbol,path,bars_per_year");
    }
    if (cells.size() != columns && !(columns == 3 && cells.size() == 2))
      throw InputError(where + ": " + std::to_string(cells.size()) + " cells, the header has " +
                       std::to_string(columns));
    UniverseSymbol s;
    s.symbol = cells[0];
    check_symbol(s.symbol, where);
    if (cells[1].empty()) throw InputError(where + ": empty path");
    const fs::path p(cells[1]);
    s.path = p.is_absolute() || dir.empty() ? p.string() : (dir / p).string();
    if (cells.size() == 3 && !cells[2].empty()) {
      double v = 0;
      const char* end = cells[2].data() + cells[2].size();
      auto [ptr, ec] = std::from_chars(cells[2].data(), end, v);
      if (ec != std::errc{} || ptr != end || !std::isfinite(v) || v <= 0)
        throw InputError(where + ": bars_per_year must be a positive number, got '" + cells[2] +
                         "'");
      s.bars_per_year = v;
    }
    if (auto it = seen.find(s.symbol); it != seen.end())
      throw InputError(where + ": symbol '" + s.symbol + "' listed twice (first at line " +
                       std::to_string(it->second) + ")");
    seen.emplace(s.symbol, line_no);
    u.symbols.push_back(std::move(s));
  }
  if (in.bad()) throw InputError(arg + ": read error");
  if (columns == 0) throw InputError(arg + ": empty universe file (no header)");
  if (u.symbols.empty()) throw InputError(arg + ": the universe lists no symbol");
  return u;
}

}  // namespace

Universe read_universe(const std::string& arg) {
  std::error_code ec;
  if (fs::is_directory(arg, ec)) return from_folder(arg);
  if (!fs::exists(arg, ec) && arg.find_first_of("*?[") != std::string::npos) return from_glob(arg);
  return from_list(arg);
}

Shard parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos)
    throw UsageError("--shard: expected I/N (0 <= I < N), got '" + std::string(text) + "'");
  Shard s;
  s.count = static_cast<size_t>(parse_integer(text.substr(slash + 1), "shard", 1, 1'000'000));
  s.index = static_cast<size_t>(
      parse_integer(text.substr(0, slash), "shard", 0, static_cast<int64_t>(s.count) - 1));
  return s;
}

}  // namespace wfod::cli
