// The daemon's whole-configuration checks (wfod/daemon/core/config_checks.hpp): each a
// small function adding findings at the key it is about (issue 43 items 1 and 5).
#include "wfod/daemon/core/config_checks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include "wfod/backend.hpp"
#include "wfod/config/endpoint.hpp"
#include "wfod/grid.hpp"

namespace wfod::daemon {
namespace {

using config::Config;

struct Findings {
  const Config& config;
  std::vector<ConfigFinding> errors, warnings;

  void error(std::string_view key, std::string_view message) {
    errors.push_back({true, config.located(key, message)});
  }
  void warn(std::string_view key, std::string_view message) {
    warnings.push_back({false, config.located(key, message)});
  }
  // "FILE:LINE" of a key, for a message that points at a second place.
  std::string line_of(std::string_view key) const {
    const auto it = config.positions.find(key);
    return config.source + ":" + std::to_string(it == config.positions.end() ? 1 : it->second.line);
  }
};

std::string bytes_text(double bytes) {
  char buf[32];
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  size_t u = 0;
  while (bytes >= 1024 && u + 1 < std::size(units)) {
    bytes /= 1024;
    ++u;
  }
  std::snprintf(buf, sizeof buf, "%.1f %s", bytes, units[u]);
  return buf;
}

// Nothing to run is a mistake, never a request: an empty or truncated file (a SIGHUP after
// `: > wfod.toml`, a half-copied file) would otherwise stop every stream.
void check_something_to_run(Findings& f) {
  const Config& c = f.config;
  constexpr std::string_view kHint =
      ": wfod needs at least one [[symbol]] and one [[strategy]] that runs on it (an empty or "
      "truncated file is refused; start from wfod.example.toml, `wfod --help-config` lists "
      "every key)";
  if (c.symbols.empty()) f.error("symbol", std::string("no [[symbol]] table") + std::string(kHint));
  if (c.strategies.empty()) {
    f.error("strategy", std::string("no [[strategy]] table") + std::string(kHint));
  }
}

// A window's bars alone, held in memory: ts, open, high, low, close and volume, 8 bytes each.
// The engine's own state per bar and combo comes on top; this is the floor no plan beats.
constexpr uint64_t kWindowBarBytes = 48;
// More bars than a century of one-second bars (3.2e9) is a typo whatever the machine.
constexpr uint64_t kMaxWindowBars = 4'000'000'000;

void check_window(Findings& f, const config::StrategyConfig& s, const std::string& at,
                  const CheckEnvironment& env) {
  const std::string key = at + ".window";
  const uint64_t w = s.window;
  if (w > kMaxWindowBars) {
    f.error(key, "window = " + std::to_string(w) + " bars is more than " +
                     std::to_string(kMaxWindowBars) +
                     " (a century of one-second bars is 3.2e9): a unit mistake? Its bars alone "
                     "would need " +
                     bytes_text(static_cast<double>(w) * kWindowBarBytes));
    return;
  }
  if (env.memory_bytes > 0 && w * kWindowBarBytes > env.memory_bytes) {
    f.error(key, "window = " + std::to_string(w) + " bars cannot fit: its bars alone need " +
                     bytes_text(static_cast<double>(w) * kWindowBarBytes) + " (" +
                     std::to_string(kWindowBarBytes) + " bytes a bar), and wfod may use " +
                     bytes_text(static_cast<double>(env.memory_bytes)) +
                     " (cgroup memory.max, else RAM)");
    return;
  }
  if (w == 1) {
    f.warn(key,
           "window = 1: each run ranks the grid on one bar's return (Sharpe, drawdown and "
           "trades mean nothing on a single bar)");
  }
  if (s.every > s.window) {
    f.warn(at + ".every", "every = " + std::to_string(s.every) + " > window = " +
                              std::to_string(s.window) + ": " + std::to_string(s.every - s.window) +
                              " bars between runs are in no run's window (never optimised over)");
  }
}

void check_grid(Findings& f, const config::StrategyConfig& s, const std::string& at) {
  const Grid& g = s.spec.grid;
  const ComboCount c = count_combos(g);
  if (c.valid == 0) {
    std::string why;
    if (c.family_rule > 0) {
      why += std::to_string(c.family_rule) + " have " + std::string(family_rule_text(g.family));
    }
    if (c.vol_short_not_below_long > 0) {
      why += std::string(why.empty() ? "" : ", ") + std::to_string(c.vol_short_not_below_long) +
             " have vol_short >= vol_long";
    }
    f.error(at + ".grid", "no valid combo: of its " + std::to_string(c.total) + " combos " + why +
                              " (SPEC §5); the stream would run forever and never publish");
  }
  const int longest = g.max_period();
  if (s.warmup && *s.warmup < static_cast<size_t>(longest)) {
    f.warn(at + ".warmup",
           "warmup = " + std::to_string(*s.warmup) + " is shorter than the grid's longest period " +
               std::to_string(longest) +
               ": combos with longer periods are judged on indicators that have not warmed up "
               "(SPEC §3; the default is " +
               std::to_string(default_warmup(g)) + ")");
  }
}

// Where a ZeroMQ endpoint or the http address points, for comparing two of them.
struct Place {
  std::string key;        // "publish.endpoint", "feed[1].endpoint"
  std::string written;    // as in the file
  bool bind = true;       // bind (publish, snapshot, http) or connect (feeds)
  std::string transport;  // tcp | ipc | inproc
  std::string host;       // tcp: lower-case, no brackets; ipc / inproc: the path / name
  std::string port;       // tcp only; "*" = an ephemeral port
};

std::optional<Place> place_of(std::string key, const std::string& endpoint, bool bind) {
  Place p{std::move(key), endpoint, bind, "", "", ""};
  const size_t sep = endpoint.find("://");
  if (sep == std::string::npos) return std::nullopt;
  p.transport = endpoint.substr(0, sep);
  std::string address = endpoint.substr(sep + 3);
  if (p.transport != "tcp") {
    p.host =
        p.transport == "ipc" ? std::filesystem::path(address).lexically_normal().string() : address;
    return p;
  }
  if (const size_t semi = address.rfind(';'); !bind && semi != std::string::npos) {
    address = address.substr(semi + 1);  // tcp://SOURCE;HOST:PORT
  }
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  p.host = address.substr(0, colon);
  p.port = address.substr(colon + 1);
  if (p.host.size() > 2 && p.host.front() == '[') p.host = p.host.substr(1, p.host.size() - 2);
  std::transform(p.host.begin(), p.host.end(), p.host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return p;
}

bool wildcard(const std::string& host) { return host == "*" || host == "0.0.0.0" || host == "::"; }
bool loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// Whether two places may be the same socket address.
bool same_place(const Place& a, const Place& b) {
  if (a.transport != b.transport) return false;
  if (a.transport != "tcp") return a.host == b.host && a.host != "*";
  if (a.port == "*" || b.port == "*" || a.port != b.port) return false;
  if (a.host == b.host || (loopback(a.host) && loopback(b.host))) return true;
  // A bind on every interface takes the port on all of them: another bind anywhere clashes,
  // and a feed reaches it through any local address.
  if (a.bind && b.bind) return wildcard(a.host) || wildcard(b.host);
  const Place& bound = a.bind ? a : b;
  const Place& other = a.bind ? b : a;
  if (!bound.bind || !wildcard(bound.host)) return false;
  return loopback(other.host) || wildcard(other.host);
}

void check_endpoints(Findings& f, const CheckEnvironment& env) {
  const Config& c = f.config;
  std::vector<Place> places;
  auto add = [&places](std::string key, const std::string& endpoint, bool bind) {
    if (auto p = place_of(std::move(key), endpoint, bind)) places.push_back(std::move(*p));
  };
  add("publish.endpoint", c.publish.endpoint, true);
  add("publish.snapshot", c.publish.snapshot, true);
  if (!c.publish.http.empty()) add("publish.http", "tcp://" + c.publish.http, true);
  for (size_t i = 0; i < c.feeds.size(); ++i) {
    add("feed[" + std::to_string(i) + "].endpoint", c.feeds[i].endpoint, false);
  }
  for (size_t i = 0; i < places.size(); ++i) {
    const Place& p = places[i];
    for (size_t j = 0; j < i; ++j) {
      const Place& q = places[j];
      if (!same_place(p, q)) continue;
      const std::string also = "\"" + p.written + "\" is also " + q.key + " (\"" + q.written +
                               "\", " + f.line_of(q.key) + ")";
      if (p.bind && q.bind) {
        f.error(p.key, also + ": the daemon cannot bind one address twice");
      } else if (!p.bind && !q.bind) {
        f.error(p.key, also + ": the same feed twice (every bar would arrive twice)");
      } else {
        const Place& own = p.bind ? p : q;
        f.error(p.key,
                also + ": a feed on this daemon's own " + own.key +
                    (own.key == "publish.endpoint" ? " (it would subscribe to its own publications)"
                                                   : " (not a bar feed)"));
      }
      break;
    }
    if (p.transport == "ipc" && p.host != "*" && env.directory_exists) {
      std::string folder = std::filesystem::path(p.host).parent_path().string();
      if (folder.empty()) folder = ".";
      // A bind fails without the folder; a feed connects once its publisher has created
      // the socket (wfod.example.toml's ipc feed under /run/wfod), so there it is a warning.
      if (!env.directory_exists(folder) && p.bind) {
        f.error(p.key, "\"" + p.written + "\": the folder " + folder +
                           " does not exist, so ZeroMQ cannot bind the socket there (create it "
                           "first, e.g. systemd's RuntimeDirectory=)");
      } else if (!env.directory_exists(folder)) {
        f.warn(p.key, "\"" + p.written + "\": the folder " + folder +
                          " does not exist (yet): the feed stays silent until its publisher "
                          "creates the socket there");
      }
    }
  }
}

uint64_t read_number_file(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty() ||
      !std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return 0;  // absent, "max" (no limit) or unreadable
  }
  return std::stoull(text);
}

}  // namespace

std::vector<ConfigFinding> check_daemon_config(const Config& config, const CheckEnvironment& env) {
  Findings f{config, {}, {}};
  check_something_to_run(f);
  for (size_t i = 0; i < config.strategies.size(); ++i) {
    const std::string at = "strategy[" + std::to_string(i) + "]";
    check_window(f, config.strategies[i], at, env);
    check_grid(f, config.strategies[i], at);
  }
  check_endpoints(f, env);
  std::vector<ConfigFinding> out = std::move(f.errors);
  out.insert(out.end(), f.warnings.begin(), f.warnings.end());
  return out;
}

CheckEnvironment system_check_environment() {
  CheckEnvironment env;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0)
    env.memory_bytes = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
  // cgroup v2: the service's limit, where it is lower than the machine's RAM.
  if (const uint64_t limit = read_number_file("/sys/fs/cgroup/memory.max");
      limit > 0 && (env.memory_bytes == 0 || limit < env.memory_bytes)) {
    env.memory_bytes = limit;
  }
  env.directory_exists = [](const std::string& dir) {
    struct stat st {};
    return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  };
  return env;
}

std::vector<std::string> enforce_daemon_config(const Config& config, const CheckEnvironment& env) {
  std::string errors;
  std::vector<std::string> warnings;
  for (const ConfigFinding& finding : check_daemon_config(config, env)) {
    if (finding.error) {
      errors += (errors.empty() ? "" : "\n") + finding.text;
    } else {
      warnings.push_back(finding.text);
    }
  }
  if (!errors.empty()) throw config::ConfigError(errors);
  return warnings;
}

}  // namespace wfod::daemon
