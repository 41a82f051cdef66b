// toml_file.hpp: a TOML file's bytes and its parsed table, with the errors that name it.
#include "toml_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "wfod/config/config.hpp"

namespace wfod::config::detail {

std::string read_file_text(const std::string& path) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  const std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw ConfigError(path + ": cannot read: " + std::strerror(errno));
  std::string text;
  char buf[1 << 14];
  size_t n = 0;
  // Configurations and rule files are kilobytes; past this the path names something else
  // (a data file, or a device such as /dev/zero that would be read until memory ran out).
  constexpr size_t kMaxConfigBytes = size_t{16} << 20;
  while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxConfigBytes)
      throw ConfigError(path + ": larger than 16 MiB: not a configuration file");
  }
  if (std::ferror(file.get())) throw ConfigError(path + ": cannot read: " + std::strerror(errno));
  return text;
}

toml::table parse_toml(std::string_view text, std::string_view source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const toml::source_position& where = e.source().begin;
    throw ConfigError(std::string(source) + ":" + std::to_string(where.line) + ":" +
                      std::to_string(where.column) +
                      ": TOML syntax error: " + std::string(e.description()));
  }
}

}  // namespace wfod::config::detail
