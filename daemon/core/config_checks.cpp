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
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/config/endpoint.hpp"
#include "wfod/daemon/core/backend_fit.hpp"
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

// SPEC §5b's stops run on the cpu backend (and on auto, which sends a strategy with stops to
// cpu, its streams included) and on cpu_ref; the cuda backend runs them in sweeps but not in
// streams, which a daemon's every run opens, so a cuda daemon's config is refused at the first
// stop key the strategy gives.
void check_stops(Findings& f, const config::StrategyConfig& s, const std::string& at) {
  if (f.config.daemon.backend != "cuda") return;
  const Grid& g = s.spec.grid;
  const std::pair<const char*, const std::vector<double>*> stops[] = {
      {"stop_loss", &g.stop_loss},
      {"take_profit", &g.take_profit},
      {"trailing_stop", &g.trailing_stop}};
  for (const auto& [key, values] : stops) {
    if (values->empty()) continue;
    f.error(at + ".grid." + key,
            "strategy '" + s.name +
                "' has stops (SPEC §5b), which the cuda backend does not run in streams yet; set "
                "[daemon] backend = \"cpu\" or \"auto\" (auto runs them on the cpu backend)");
    return;
  }
}

// Whether the configured backend runs the strategy's streams, asked through the seam
// (backend_fit.hpp): a rules strategy (SPEC §5a) runs on a backend that sweeps it and gives
// its positions (cpu_ref today); cpu, cuda and auto refuse it in their own words. At the
// family key: the kind of strategy is what the backend refuses. True when it reported.
bool check_backend_runs(Findings& f, const config::StrategyConfig& s, const std::string& at,
                        const CheckEnvironment& env) {
  if (!env.backend_refusal) return false;
  const std::string why = env.backend_refusal(s.spec, s.has_selection);
  if (why.empty()) return false;
  f.error(at + ".family", "strategy \"" + s.name + "\": [daemon] backend = \"" +
                              f.config.daemon.backend + "\" cannot run its streams: " + why +
                              " (set [daemon] backend to one that runs it)");
  return true;
}

void check_grid(Findings& f, const config::StrategyConfig& s, const std::string& at,
                const CheckEnvironment& env) {
  const Grid& g = s.spec.grid;
  if (!check_backend_runs(f, s, at, env)) check_stops(f, s, at);
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
    if (c.stop_out_of_range > 0) {
      why += std::string(why.empty() ? "" : ", ") + std::to_string(c.stop_out_of_range) +
             " have a stop outside its range";
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

// The process beside its streams: code, libraries, ZeroMQ's and spdlog's threads and buffers,
// the bar logs' write buffers (measured: a daemon with one tiny stream holds ~40 MiB RSS).
constexpr uint64_t kProcessBytes = 64ull << 20;
// A symbol's bars in memory (ts, OHLCV) and each stream's publication, trackers and job state.
constexpr uint64_t kBarBytes = 48;
constexpr uint64_t kStreamOverheadBytes = 1ull << 20;

std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

StreamSpec stream_spec_for(const config::StrategyConfig& s) {
  StreamSpec spec;
  spec.strategy = s.spec;
  spec.window = s.window;
  spec.warmup = s.warmup ? *s.warmup : default_warmup(s.spec.grid);
  spec.rank = s.rank;
  return spec;
}

uint64_t saturating_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

// How many combos of strategy `s` would fit in `room` bytes per stream: its plan is affine in
// the grid's size (per-combo caches plus a part set by the window), measured from the size
// query at two grid sizes would need two grids; the slope is taken from the whole grid instead.
uint64_t combos_fitting(uint64_t room, uint64_t stream_bytes, uint64_t combos) {
  if (combos == 0 || stream_bytes == 0) return 0;
  const double per_combo = static_cast<double>(stream_bytes) / static_cast<double>(combos);
  return static_cast<uint64_t>(static_cast<double>(room) / per_combo);
}

// One side of the plan (host or device) over its budget: the error at the biggest stream's
// strategy, naming what it needs, the total against the budget and how many combos fit.
void refuse_plan_side(Findings& f, const MemoryPlan& plan, uint64_t MemoryPlanLine::*bytes,
                      uint64_t total, uint64_t budget, const std::string& budget_source,
                      bool device) {
  const Config& c = f.config;
  if (plan.streams.empty()) return;
  size_t biggest = 0;
  for (size_t i = 1; i < plan.streams.size(); ++i)
    if (plan.streams[i].*bytes > plan.streams[biggest].*bytes) biggest = i;
  const MemoryPlanLine& big = plan.streams[biggest];
  size_t strategy_index = 0;
  size_t streams_of_it = 0;
  for (size_t i = 0; i < c.strategies.size(); ++i)
    if (c.strategies[i].name == big.strategy) strategy_index = i;
  for (const MemoryPlanLine& line : plan.streams) streams_of_it += line.strategy == big.strategy;
  const uint64_t others = total - big.*bytes * streams_of_it;
  const uint64_t room =
      budget > others ? (budget - others) / std::max<size_t>(1, streams_of_it) : 0;
  const uint64_t fits = combos_fitting(room, big.*bytes, big.combos);
  const std::string at = "strategy[" + std::to_string(strategy_index) + "]";
  const std::string what = device ? "the device memory plan" : "the memory plan";
  const std::string rest = device ? "the other streams" : "the symbols' bars and the process";
  f.error(
      at + ".grid",
      what + " does not fit: stream " + big.symbol + "/" + big.strategy + " (" +
          grouped(big.combos) + " combos, window " +
          std::to_string(c.strategies[strategy_index].window) + ") needs " +
          bytes_text(static_cast<double>(big.*bytes)) + (device ? " of device memory" : "") +
          (streams_of_it > 1 ? " (x" + std::to_string(streams_of_it) + " symbols)" : "") + "; " +
          std::to_string(plan.streams.size()) + " stream(s)" +
          (device ? "" : ", the symbols' bars and the process") + " need " +
          bytes_text(static_cast<double>(total)) + " against a budget of " +
          bytes_text(static_cast<double>(budget)) + " (" + budget_source + "). " +
          (fits > 0 ? "About " + grouped(fits) + " combos of this strategy fit per stream" +
                          (device ? " on the device" : "")
                    : "No stream of this strategy fits beside " + rest + " (" +
                          bytes_text(static_cast<double>(others)) + ")") +
          ": a smaller grid or window, fewer symbols" +
          (device ? ", or [daemon] backend = \"cpu\"" : ", or a larger [daemon] memory_budget_mb"));
}

void check_memory_plan(Findings& f, const CheckEnvironment& env) {
  if (!env.stream_memory && !env.device_stream_memory) return;
  MemoryPlan plan;
  try {
    plan = plan_memory(f.config, env);
  } catch (const std::exception&) {
    return;  // a grid or window the other checks refuse
  }
  if (plan.budget_bytes > 0 && plan.total() > plan.budget_bytes)
    refuse_plan_side(f, plan, &MemoryPlanLine::host_bytes, plan.total(), plan.budget_bytes,
                     plan.budget_source, false);
  if (plan.device_budget_bytes > 0 && plan.device_total() > plan.device_budget_bytes)
    refuse_plan_side(f, plan, &MemoryPlanLine::device_bytes, plan.device_total(),
                     plan.device_budget_bytes, plan.device_budget_source, true);
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
    check_grid(f, config.strategies[i], at, env);
  }
  check_endpoints(f, env);
  if (f.errors.empty()) check_memory_plan(f, env);
  std::vector<ConfigFinding> out = std::move(f.errors);
  out.insert(out.end(), f.warnings.begin(), f.warnings.end());
  return out;
}

CheckEnvironment system_check_environment(const std::string& backend) {
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
  // The cpu backend's size query whatever [daemon] backend says: a cuda daemon whose device
  // fails runs every stream on the cpu backend (docs/operations.md "Backend fallback"), so
  // the host must hold them; a cuda stream's device memory is checked when it opens.
  // A strategy the cpu backend's streams do not run runs as a re-sweeping stream
  // (EngineSlot::open): the seam's default size query is that stream's. Rules strategies
  // (SPEC §5a) have the cpu backend's bounded rules stream (cpu/rules_stream.hpp) and its plan.
  env.stream_memory = [cpu =
                           std::shared_ptr<Backend>(make_backend("cpu"))](const StreamSpec& spec) {
    return cpu->supports(Work::stream, spec.strategy).ok() ? cpu->stream_memory(spec)
                                                           : cpu->Backend::stream_memory(spec);
  };
  if (!backend.empty()) {
    // One backend, made on the first question (none when nothing asks): the daemon's own
    // choice, so a cuda daemon's streams are planned on its device.
    const std::function<Backend*()> made = lazy_backend(backend);
    env.backend_refusal = [made](const StrategySpec& spec, bool selection) {
      Backend* b = made();
      return b ? stream_refusal(*b, spec, selection) : std::string();
    };
    env.device_stream_memory = [made](const StreamSpec& spec) {
      Backend* b = made();
      return b && b->runs_on_device() ? b->stream_memory(spec) : StreamMemory{};
    };
    env.device_free_bytes = [made]() -> uint64_t {
      Backend* b = made();
      return b && b->runs_on_device() ? b->device_memory_free() : 0;
    };
  }
  return env;
}

uint64_t MemoryPlan::device_total() const {
  uint64_t sum = 0;
  for (const MemoryPlanLine& line : streams) sum = saturating_add(sum, line.device_bytes);
  return sum;
}

uint64_t MemoryPlan::total() const {
  uint64_t sum = saturating_add(symbols_bytes, process_bytes);
  for (const MemoryPlanLine& line : streams) sum = saturating_add(sum, line.host_bytes);
  return sum;
}

MemoryPlan plan_memory(const Config& config, const CheckEnvironment& env) {
  MemoryPlan plan;
  plan.process_bytes = kProcessBytes;
  if (config.daemon.memory_budget_mb > 0) {
    plan.budget_bytes = static_cast<uint64_t>(config.daemon.memory_budget_mb) << 20;
    plan.budget_source =
        "[daemon] memory_budget_mb = " + std::to_string(config.daemon.memory_budget_mb);
  } else if (env.memory_bytes > 0) {
    plan.budget_bytes =
        static_cast<uint64_t>(static_cast<double>(env.memory_bytes) * kDefaultMemoryBudgetShare);
    plan.budget_source = "[daemon] memory_budget_mb = 0: 80% of " +
                         bytes_text(static_cast<double>(env.memory_bytes)) +
                         " (cgroup memory.max, else RAM)";
  }
  if (!env.stream_memory && !env.device_stream_memory) return plan;
  if (env.device_stream_memory && env.device_free_bytes) {
    if (const uint64_t free = env.device_free_bytes(); free > 0) {
      plan.device_budget_bytes =
          static_cast<uint64_t>(static_cast<double>(free) * kDeviceMemoryPlanShare);
      plan.device_budget_source =
          "90% of the device memory free now, " + bytes_text(static_cast<double>(free));
    }
  }
  std::map<std::string, uint64_t> keep_of_symbol;
  for (const config::StrategyConfig& s : config.strategies) {
    const StreamSpec spec = stream_spec_for(s);
    const StreamMemory m = env.stream_memory ? env.stream_memory(spec) : StreamMemory{};
    const uint64_t device =
        plan.device_budget_bytes > 0 ? env.device_stream_memory(spec).device_bytes : 0;
    for (const std::string& symbol : s.symbols) {
      plan.streams.push_back({symbol, s.name, s.spec.grid.size(),
                              saturating_add(m.host_bytes, kStreamOverheadBytes), device});
      uint64_t& keep = keep_of_symbol[symbol];
      keep = std::max<uint64_t>(keep, spec.window + spec.warmup + 2);
    }
  }
  for (const auto& [symbol, keep] : keep_of_symbol)
    plan.symbols_bytes = saturating_add(plan.symbols_bytes, keep * kBarBytes);
  return plan;
}

std::string memory_plan_text(const MemoryPlan& plan) {
  uint64_t streams = 0;
  const MemoryPlanLine* largest = nullptr;
  for (const MemoryPlanLine& line : plan.streams) {
    streams = saturating_add(streams, line.host_bytes);
    if (!largest || line.host_bytes > largest->host_bytes) largest = &line;
  }
  std::string text = "memory plan: " + std::to_string(plan.streams.size()) + " stream(s) " +
                     bytes_text(static_cast<double>(streams));
  if (largest) {
    text += " (largest " + largest->symbol + "/" + largest->strategy + " " +
            bytes_text(static_cast<double>(largest->host_bytes)) + ")";
  }
  text += ", symbols' bars " + bytes_text(static_cast<double>(plan.symbols_bytes)) + ", process " +
          bytes_text(static_cast<double>(plan.process_bytes)) + ": " +
          bytes_text(static_cast<double>(plan.total()));
  if (plan.budget_bytes > 0) {
    text += " of a " + bytes_text(static_cast<double>(plan.budget_bytes)) + " budget (" +
            plan.budget_source + ")";
  } else {
    text += " (no budget: memory unknown and [daemon] memory_budget_mb = 0)";
  }
  if (plan.device_budget_bytes > 0) {
    const MemoryPlanLine* most = nullptr;
    for (const MemoryPlanLine& line : plan.streams)
      if (!most || line.device_bytes > most->device_bytes) most = &line;
    text += "; device: " + bytes_text(static_cast<double>(plan.device_total()));
    if (most && most->device_bytes > 0) {
      text += " (largest " + most->symbol + "/" + most->strategy + " " +
              bytes_text(static_cast<double>(most->device_bytes)) + ")";
    }
    text += " of a " + bytes_text(static_cast<double>(plan.device_budget_bytes)) + " budget (" +
            plan.device_budget_source + ")";
  }
  return text;
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
