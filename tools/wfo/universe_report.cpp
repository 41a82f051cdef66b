// The universe report's folders and files (universe_report.hpp).

#include "universe_report.hpp"

#include <filesystem>
#include <set>
#include <system_error>

#include "args.hpp"
#include "report_writer.hpp"

namespace wfod::cli {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxDirName = 64;
// DIR's own files: a symbol's folder must not take their names.
constexpr const char* kUniverseFiles[] = {"index.html", "universe.json"};

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::string safe_name(const std::string& symbol) {
  std::string out;
  for (const char c : symbol.substr(0, kMaxDirName)) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    out += keep ? c : '_';
  }
  bool reserved = out.empty() || out.front() == '.';
  for (const char* f : kUniverseFiles) reserved = reserved || lower(out) == f;
  return reserved ? "_" + out : out;
}

}  // namespace

std::vector<std::string> symbol_dir_names(const std::vector<std::string>& symbols) {
  std::vector<std::string> names;
  std::set<std::string> taken;  // lower case
  for (const std::string& symbol : symbols) {
    const std::string base = safe_name(symbol);
    std::string name = base;
    for (size_t k = 2; !taken.insert(lower(name)).second; ++k)
      name = base + "~" + std::to_string(k);
    names.push_back(std::move(name));
  }
  return names;
}

std::string write_universe_report(const std::string& dir, const Json& page,
                                  const std::vector<std::pair<std::string, const Json*>>& symbols) {
  for (const auto& [name, report] : symbols) {
    const fs::path sub = fs::path(dir) / name;
    std::error_code ec;
    fs::create_directory(sub, ec);
    if (ec)
      throw InputError("--report " + dir + ": cannot create " + sub.string() + ": " + ec.message());
    write_report_files(sub.string(), *report);
  }
  write_page_file(dir, "universe.json",
                  page.dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
  write_page_file(dir, "index.html", render_universe_html(page));
  return (fs::path(dir) / "index.html").string();
}

}  // namespace wfod::cli
