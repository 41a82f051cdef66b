// TOML text or file -> Config (PROTOCOL §4): the [daemon], [publish], [curve], [[feed]] and
// [[symbol]] tables read through their key tables (service_keys.cpp), checks between keys
// and tables, and file reading with backfill paths made relative to the config file and,
// when asked, checked. [[strategy]] tables are read by strategy_config.cpp.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "key_rows.hpp"
#include "sha256.hpp"
#include "strategy_config.hpp"
#include "toml_file.hpp"
#include "toml_reader.hpp"
#include "wfod/config/config.hpp"
#include "wfod/config/config_keys.hpp"
#include "wfod/config/credentials.hpp"

namespace wfod::config {
namespace {

using detail::TableReader;

// What load_config adds to parse_config: the file's folder (relative paths) and the checks
// of the files the values name.
struct FileContext {
  std::filesystem::path folder;
  const FileChecks* checks = nullptr;
};

// A relative path written in the file means "next to this file", wherever wfod runs from.
void resolve_beside(const FileContext& files, std::string& p) {
  if (!p.empty() && std::filesystem::path(p).is_relative() && !files.folder.empty()) {
    p = (files.folder / p).lexically_normal().string();
  }
}

// Runs one FileChecks hook, turning what it throws into an error at `key`.
template <class Hook>
void run_check(const Hook& hook, const std::string& value, TableReader& t, std::string_view key) {
  if (!hook) return;
  try {
    hook(value);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    t.fail(key, e.what());
  }
}

// One table read through its key table (config_keys.hpp).
template <class Struct>
Struct read_table(TableReader& t, const KeyTable<Struct>& keys) {
  Struct s;
  detail::read_keys(t, keys, s);
  return s;
}

DaemonConfig read_daemon(const toml::table& table, std::string_view source) {
  TableReader t(table, "daemon", source, detail::key_names(daemon_keys()));
  return read_table(t, daemon_keys());
}

PublishConfig read_publish(const toml::table& table, std::string_view source) {
  TableReader t(table, "publish", source, detail::key_names(publish_keys()));
  return read_table(t, publish_keys());
}

CurveConfig read_curve(const toml::table& table, std::string_view source) {
  TableReader t(table, "curve", source, detail::key_names(curve_keys()));
  const CurveConfig c = read_table(t, curve_keys());
  if (c.key_file.empty() != c.clients_file.empty()) {
    t.fail(c.key_file.empty() ? "clients_file" : "key_file",
           "key_file and clients_file go together (the server admits only listed clients)");
  }
  return c;
}

FeedConfig read_feed(const toml::table& table, size_t index, std::string_view source) {
  TableReader t(table, "feed[" + std::to_string(index) + "]", source,
                detail::key_names(feed_keys()));
  return read_table(t, feed_keys());
}

// A file the daemon reads at start: it must exist, be a regular file and be readable, or the
// config is invalid now rather than the daemon failing later. `written` is the file's text.
void check_readable_file(TableReader& t, std::string_view key, const std::string& written,
                         const std::string& resolved) {
  const std::string where =
      "\"" + written + "\"" + (written == resolved ? "" : " (resolved as " + resolved + ")");
  struct stat st {};
  if (::stat(resolved.c_str(), &st) != 0) t.fail(key, where + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) t.fail(key, where + ": not a regular file");
  if (::access(resolved.c_str(), R_OK) != 0) t.fail(key, where + ": " + std::strerror(errno));
}

SymbolConfig read_symbol(const toml::table& table, size_t index, std::string_view source,
                         const FileContext* files) {
  TableReader t(table, "symbol[" + std::to_string(index) + "]", source,
                detail::key_names(symbol_keys()));
  SymbolConfig s = read_table(t, symbol_keys());
  if (files != nullptr && !s.backfill.empty()) {
    const std::string written = s.backfill;
    resolve_beside(*files, s.backfill);
    if (files->checks->backfill_exists) check_readable_file(t, "backfill", written, s.backfill);
    run_check(files->checks->backfill, s.backfill, t, "backfill");
  }
  return s;
}

// Records where every key and table of `table` is, under `prefix` (Config::positions).
void record_positions(const toml::table& table, const std::string& prefix, Config& config) {
  for (const auto& [k, node] : table) {
    const std::string path =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    const toml::source_position at = node.source().begin;
    config.positions[path] =
        SourcePosition{at.line == 0 ? 1u : at.line, at.column == 0 ? 1u : at.column};
    if (const toml::table* sub = node.as_table()) {
      record_positions(*sub, path, config);
    } else if (const toml::array* items = node.as_array(); items && items->is_array_of_tables()) {
      for (size_t i = 0; i < items->size(); ++i) {
        const toml::table& item = *items->get(i)->as_table();
        const std::string item_path = path + "[" + std::to_string(i) + "]";
        const toml::source_position item_at = item.source().begin;
        config.positions[item_path] = SourcePosition{item_at.line == 0 ? 1u : item_at.line,
                                                     item_at.column == 0 ? 1u : item_at.column};
        record_positions(item, item_path, config);
      }
    }
  }
}

// A second table with the same name: reported at the second one's name.
template <class Item>
void reject_duplicate_names(const std::vector<Item>& items,
                            const std::vector<const toml::table*>& tables, std::string_view kind,
                            std::string_view source) {
  for (size_t i = 0; i < items.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (items[i].name != items[j].name) continue;
      detail::fail_at(source, tables[i]->get("name")->source().begin,
                      std::string(kind) + "[" + std::to_string(i) + "].name",
                      "duplicate " + std::string(kind) + " name '" + items[i].name + "' (also " +
                          std::string(kind) + "[" + std::to_string(j) + "])");
    }
  }
}

void check_not_world_readable(const std::string& file, std::string_view what,
                              std::string_view hint = "") {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    throw ConfigError(file + ": cannot stat: " + std::strerror(errno) + " (it " +
                      std::string(what) + ")");
  }
  if ((st.st_mode & S_IROTH) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw ConfigError(file + ": is world-readable (mode " + mode + ") and " + std::string(what) +
                      "; refusing it: chmod o-rwx " + file + std::string(hint));
  }
}

// The [daemon] state_dir hook, reported at the key, or at [daemon] / the file's start when
// the default is in force.
void check_state_dir(const toml::table& root, const Config& config, const FileContext& files,
                     std::string_view source) {
  if (files.checks == nullptr || !files.checks->state_dir) return;
  try {
    files.checks->state_dir(config.daemon.state_dir);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    toml::source_position where{1, 1};
    if (const toml::node* daemon = root.get("daemon")) {
      where = daemon->source().begin;
      if (const toml::node* dir =
              daemon->as_table() ? daemon->as_table()->get("state_dir") : nullptr) {
        where = dir->source().begin;
      }
    }
    detail::fail_at(source, where, "daemon.state_dir",
                    "\"" + config.daemon.state_dir + "\": " + e.what());
  }
}

Config parse(std::string_view toml_text, std::string_view source_name, const FileContext* files) {
  const toml::table root = detail::parse_toml(toml_text, source_name);

  Config config;
  config.source = std::string(source_name);
  config.sha256 = sha256_hex(toml_text);
  record_positions(root, "", config);
  TableReader t(root, "", source_name,
                {"daemon", "publish", "curve", "feed", "symbol", "strategy"});
  if (const toml::table* daemon = t.get_table("daemon")) {
    config.daemon = read_daemon(*daemon, source_name);
  }
  if (const toml::table* publish = t.get_table("publish")) {
    config.publish = read_publish(*publish, source_name);
  }
  if (const toml::table* curve = t.get_table("curve")) {
    config.curve = read_curve(*curve, source_name);
  }
  const auto feeds = t.get_table_array("feed");
  for (size_t i = 0; i < feeds.size(); ++i) {
    config.feeds.push_back(read_feed(*feeds[i], i, source_name));
    if (!config.feeds.back().curve_server_key_file.empty() && !config.curve.enabled()) {
      detail::fail_at(source_name, feeds[i]->get("curve_server_key_file")->source().begin,
                      "feed[" + std::to_string(i) + "].curve_server_key_file",
                      "needs [curve] key_file (the daemon's own keypair for the handshake)");
    }
  }
  const auto symbols = t.get_table_array("symbol");
  for (size_t i = 0; i < symbols.size(); ++i) {
    config.symbols.push_back(read_symbol(*symbols[i], i, source_name, files));
  }
  reject_duplicate_names(config.symbols, symbols, "symbol", source_name);

  std::vector<std::string> symbol_names;
  for (const SymbolConfig& s : config.symbols) symbol_names.push_back(s.name);
  const auto strategies = t.get_table_array("strategy");
  for (size_t i = 0; i < strategies.size(); ++i) {
    config.strategies.push_back(
        detail::read_strategy(*strategies[i], i, source_name, symbol_names));
  }
  reject_duplicate_names(config.strategies, strategies, "strategy", source_name);
  if (files != nullptr) check_state_dir(root, config, *files, source_name);
  return config;
}

}  // namespace

Config parse_config(std::string_view toml_text, std::string_view source_name) {
  return parse(toml_text, source_name, nullptr);
}

Config load_config(const std::string& path, const FileChecks& checks) {
  const std::string text = detail::read_file_text(path);

  // Relative paths (backfill here, checked as they are read; the [curve] files below) mean
  // "next to this file", wherever wfod runs from; a relative [curve] file is first looked
  // up among systemd's credentials (LoadCredential=), when wfod runs with them.
  const FileContext files{std::filesystem::path(path).parent_path(), &checks};
  Config config = parse(text, path, &files);
  const std::string credentials = credentials_directory();
  const std::string folder = files.folder.string();
  for (std::string* curve_file : {&config.curve.key_file, &config.curve.clients_file}) {
    *curve_file = resolve_curve_file(*curve_file, folder, credentials);
  }
  for (FeedConfig& f : config.feeds) {
    f.curve_server_key_file = resolve_curve_file(f.curve_server_key_file, folder, credentials);
  }
  if (config.curve.enabled()) {
    // A secret key readable by everyone is no secret, and neither is a config that says
    // where it lives: refuse both rather than run with a key that may be compromised. A key
    // handed over as a credential is readable by this service alone, wherever that is
    // written, and under DynamicUser= the config must be readable by a user it cannot be
    // given to (docs/spec-notes.md 24): then only the key's own mode is checked.
    if (!inside_directory(config.curve.key_file, credentials)) {
      check_not_world_readable(path, "names a secret key file ([curve] key_file)",
                               " (under systemd's DynamicUser=, whose user must read the "
                               "config, hand the key over with LoadCredential= instead: "
                               "docs/operations.md \"CURVE keys under systemd\")");
    }
    check_not_world_readable(config.curve.key_file, "is a CURVE secret key ([curve] key_file)");
  }
  return config;
}

}  // namespace wfod::config
