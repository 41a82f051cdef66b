// Soak (CPU, or CUDA with backend=cuda): a real wfod with N symbols x 2 strategies (ma_cross, 2,000
// combos, and channel_breakout, both W = 10,000) fed one simulated year of minute bars per symbol
// as fast as the daemon takes them (a bounded number of bars in flight, so nothing is dropped by a
// queue). Prints the daemon's RSS every `report_every` bars per symbol, waits until every
// stream has caught up with the feed (published the last bar's window), then stops it with
// SIGTERM, restarts it on the same state directory and, beside it, a daemon on a copy of that
// directory without checkpoints (so it replays from the anchor); both get the same next bars,
// and the bench prints each one's time to its first publications and whether every stream's
// publication is the same (SPEC §9: sums to 1e-9 relative; seq and timings aside).
// With backend=cuda (issue 43 item 10) it also prints the device memory the daemon holds
// (nvidia-smi: the process's, else the device's in use) and fails unless RSS and device memory
// grow less than 10% from 100k bars per symbol to the end: the cuda streams are bounded by
// their window like the cpu ones. WFOD_SOAK_SELECTION=1 gives the ma_cross strategy robust
// selection (`[strategy.selection]`: PBO, plateau), bounded too.
//
// usage: soak_bench WFOD [symbols=10] [bars=525600] [report_every=50000] [every=60]
//                   [backend=cpu]
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "wfod/bar.hpp"
#include "wfod/feeds/bar_codec.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int64_t kBaseTs = 1'500'000'000'000'000'000LL;  // 2017: far from "now"
constexpr int64_t kStepTs = 60'000'000'000LL;             // minute bars

std::string sym_name(size_t s) {
  std::string name = "SK";
  name += std::to_string(s);
  return name;
}

// A seeded random walk per symbol with regime changes, so both families trade.
struct Walk {
  explicit Walk(size_t sym) : state(0x9E3779B97F4A7C15ULL * (sym + 1)) {}
  uint64_t state;
  double price = 100.0, drift = 0.0;
  double uniform() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  }
  wfod::Bar next(size_t t) {
    if (t % 5000 == 0) drift = (uniform() - 0.5) * 4e-4;
    const double open = price;
    price *= std::exp(drift + (uniform() - 0.5) * 2e-3);
    wfod::Bar b;
    b.ts_ns = kBaseTs + static_cast<int64_t>(t) * kStepTs;
    b.open = open;
    b.close = price;
    b.high = std::max(open, price) * (1 + 2e-4 * uniform());
    b.low = std::min(open, price) * (1 - 2e-4 * uniform());
    b.volume = 10 + 100 * uniform();
    b.seq = t + 1;
    return b;
  }
};

struct Paths {
  fs::path dir;
  std::string config, feed, pub, snap;
};

Paths write_config(const fs::path& dir, const fs::path& state, size_t nsym, size_t every,
                   const std::string& tag, const std::string& backend) {
  Paths p;
  p.dir = dir;
  p.feed = "ipc://" + (dir / ("feed" + tag)).string();
  p.pub = "ipc://" + (dir / ("pub" + tag)).string();
  p.snap = "ipc://" + (dir / ("snap" + tag)).string();
  std::ostringstream syms, cfg;
  for (size_t s = 0; s < nsym; ++s) syms << (s ? ", " : "") << '"' << sym_name(s) << '"';
  cfg << "[daemon]\nstate_dir = \"" << state.string() << "\"\nbackend = \"" << backend
      << "\"\nthreads = 0\nlog_level = \"info\"\nfsync = \"batch\"\n\n"
      << "[publish]\nendpoint = \"" << p.pub << "\"\nsnapshot = \"" << p.snap
      << "\"\nhttp = \"\"\n\n[[feed]]\nendpoint = \"" << p.feed << "\"\nformat = \"binary\"\n\n";
  for (size_t s = 0; s < nsym; ++s)
    cfg << "[[symbol]]\nname = \"" << sym_name(s) << "\"\nbars_per_year = 525600\n\n";
  const char* selection_env = std::getenv("WFOD_SOAK_SELECTION");
  const bool selection = selection_env && std::string(selection_env) == "1";
  cfg << "[[strategy]]\nname = \"trend\"\nsymbols = [" << syms.str()
      << "]\nfamily = \"ma_cross\"\nwindow = 10000\nwarmup = 600\nevery = " << every
      << "\ncost_bps = 1.0\ntop = 5\n[strategy.grid]\nfast = \"2:41:1\"\nslow = \"50:540:10\"\n"
      << "ma = \"sma\"\nside = \"long_short\"\n"
      // WFOD_SOAK_SELECTION=1: the trend strategy with robust selection (PBO over 16 blocks and
      // the plateau), which a bounded stream answers from its own window.
      << (selection ? "[strategy.selection]\npbo_blocks = 16\nplateau = true\n" : "")
      << "\n[[strategy]]\nname = \"breakout\"\nsymbols = [" << syms.str()
      << "]\nfamily = \"channel_breakout\"\nwindow = 10000\nevery = " << every
      << "\nobjective = \"calmar\"\nfill = \"next_open\"\ntop = 3\n[strategy.grid]\n"
      << "n = [20, 55, 100, 200]\nsource = \"close,high_low\"\nside = \"long_short\"\n";
  p.config = (dir / ("wfod" + tag + ".toml")).string();
  std::ofstream(p.config) << cfg.str();
  return p;
}

pid_t start_daemon(const std::string& wfod, const Paths& p, const std::string& log) {
  std::vector<char*> args = {const_cast<char*>(wfod.c_str()), const_cast<char*>("--config"),
                             const_cast<char*>(p.config.c_str()), nullptr};
  const pid_t pid = fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the daemon dies with the benchmark
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) ::dup2(fd, 2);
    ::execv(wfod.c_str(), args.data());
    _exit(127);
  }
  return pid;
}

std::optional<json> request(zmq::context_t& ctx, const std::string& ep,
                            const std::vector<std::string>& frames, int timeout_ms = 3000) {
  zmq::socket_t req(ctx, zmq::socket_type::req);
  req.set(zmq::sockopt::linger, 0);
  req.connect(ep);
  for (size_t i = 0; i < frames.size(); ++i)
    req.send(zmq::buffer(frames[i]),
             i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  zmq::pollitem_t item{req.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms)) == 0) return std::nullopt;
  zmq::message_t m;
  (void)req.recv(m);
  json j = json::parse(m.to_string(), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

uint64_t total_bars(const json& h) {
  uint64_t n = 0;
  for (const auto& [name, s] : h["symbols"].items()) n += s["bars"].get<uint64_t>();
  return n;
}

double rss_mb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  return 0;
}

// The device memory the daemon holds, in MB: its process's line of nvidia-smi, else (a PID
// namespace hides it) the whole device's memory in use (the bench's daemon is its only user);
// -1 where nvidia-smi does not answer.
double device_mb(pid_t pid) {
  auto query = [](const char* cmd, auto&& each) {
    FILE* f = ::popen(cmd, "r");
    if (!f) return;
    char line[256];
    while (std::fgets(line, sizeof line, f)) each(line);
    ::pclose(f);
  };
  double mb = -1;
  query(
      "nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits "
      "2>/dev/null",
      [&](const char* line) {
        long p = 0;
        double m = 0;
        if (std::sscanf(line, "%ld, %lf", &p, &m) == 2 && p == static_cast<long>(pid)) mb = m;
      });
  if (mb >= 0) return mb;
  query("nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null",
        [&](const char* line) {
          double m = 0;
          if (std::sscanf(line, "%lf", &m) == 1) mb = std::max(mb, 0.0) + m;
        });
  return mb;
}

std::optional<json> wait_health(zmq::context_t& ctx, const std::string& snap, double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (auto h = request(ctx, snap, {"health"}, 500)) return h;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return std::nullopt;
}

// Sends bars [from, to) of every symbol, round-robin, keeping at most `in_flight` bars
// sent but not yet accepted (health), so no queue between us and the daemon drops any.
bool feed(zmq::context_t& ctx, zmq::socket_t& pub, const Paths& p, std::vector<Walk>& walks,
          std::vector<std::string>& topics, size_t from, size_t to, uint64_t& expected,
          size_t in_flight = 20'000) {
  uint64_t accepted = expected;
  for (size_t t = from; t < to; ++t) {
    for (size_t s = 0; s < walks.size(); ++s) {
      const std::string payload = wfod::feeds::encode_binary(walks[s].next(t));
      pub.send(zmq::buffer(topics[s]), zmq::send_flags::sndmore);
      pub.send(zmq::buffer(payload), zmq::send_flags::none);
      ++expected;
    }
    while (expected - accepted > in_flight) {
      auto h = request(ctx, p.snap, {"health"}, 10'000);
      if (!h) return false;
      accepted = total_bars(*h);
      if (expected - accepted > in_flight)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  for (int i = 0; i < 6000 && accepted < expected; ++i) {
    auto h = request(ctx, p.snap, {"health"}, 10'000);
    if (h) accepted = total_bars(*h);
    if (accepted < expected) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return accepted == expected;
}

// What must equal across daemons: the publication less its bookkeeping (and live_oos and
// changed, which depend on where earlier runs fell).
json comparable(json pubn) {
  for (const char* k :
       {"seq", "published_ns", "elapsed_ms", "config_version", "live_oos", "changed"})
    pubn.erase(k);
  return pubn;
}

// Equal, numbers to 1e-9 relative (SPEC §9: a stream's sums depend on where its runs cut
// the window), everything else exactly.
bool close(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::fabs(x - y) <= std::max(1e-12, 1e-9 * std::max(std::fabs(x), std::fabs(y)));
  }
  if (a.type() != b.type() || a.size() != b.size()) return false;
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!b.contains(it.key()) || !close(it.value(), b[it.key()])) return false;
    return true;
  }
  if (a.is_array()) {
    for (size_t i = 0; i < a.size(); ++i)
      if (!close(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

// Waits until every stream's publication covers the window ending at `want_ts` (`get` over
// the snapshot socket); returns them by stream ("SYM.strategy"), complete or not at the end.
std::map<std::string, json> wait_published(zmq::context_t& ctx, const std::string& snap,
                                           size_t nsym, int64_t want_ts, double seconds) {
  std::map<std::string, json> got;
  const size_t streams = 2 * nsym;
  for (auto until = Clock::now() + std::chrono::duration<double>(seconds);
       Clock::now() < until && got.size() < streams;) {
    for (size_t s = 0; s < nsym; ++s)
      for (const char* st : {"trend", "breakout"}) {
        const std::string key = sym_name(s) + "." + st;
        if (got.count(key)) continue;
        auto g = request(ctx, snap, {"get", sym_name(s), st});
        if (g && g->contains("window") && (*g)["window"]["last_ts"].get<int64_t>() == want_ts)
          got[key] = *g;
      }
    if (got.size() < streams) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return got;
}

struct Restarted {
  pid_t pid = -1;
  Paths paths;
  std::map<std::string, json> first;  // stream -> first publication after the restart
  double first_all_s = -1;            // restart -> every stream published once
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: soak_bench WFOD [symbols] [bars] [report_every] [every]\n");
    return 2;
  }
  const std::string wfod = argv[1];
  const size_t nsym = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 10;
  const size_t bars = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 525'600;
  const size_t report_every = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 50'000;
  const size_t every = argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 60;
  const std::string backend = argc > 6 ? argv[6] : "cpu";
  const bool cuda = backend == "cuda";
  const fs::path dir = fs::temp_directory_path() / ("wfod_soak." + std::to_string(::getpid()));
  fs::create_directories(dir);
  const Paths p = write_config(dir, dir / "state", nsym, every, "", backend);
  const std::string log = (dir / "wfod.log").string();
  std::fprintf(stderr,
               "soak_bench: %zu symbols x 2 strategies, %zu bars each, every %zu, backend %s; %s\n",
               nsym, bars, every, backend.c_str(), dir.c_str());

  zmq::context_t ctx(1);
  pid_t pid = start_daemon(wfod, p, log);
  if (!wait_health(ctx, p.snap, 60)) {
    std::fprintf(stderr, "soak_bench: wfod did not answer; see %s\n", log.c_str());
    return 1;
  }
  zmq::socket_t pub(ctx, zmq::socket_type::pub);
  pub.set(zmq::sockopt::sndhwm, 0);
  pub.bind(p.feed);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::vector<Walk> walks;
  std::vector<std::string> topics;
  for (size_t s = 0; s < nsym; ++s) {
    walks.emplace_back(s);
    topics.push_back(wfod::feeds::encode_topic(sym_name(s)));
  }

  std::printf("%12s %12s %9s %9s %9s %10s %11s\n", "bars/symbol", "bars total", "rss_mb", "dev_mb",
              "elapsed_s", "bars/s", "publications");
  const auto t0 = Clock::now();
  uint64_t expected = 0;
  double rss_at_100k = 0, rss_last = 0, dev_at_100k = -1, dev_last = -1;
  for (size_t done = 0; done < bars;) {
    const size_t next = std::min(bars, done + report_every);
    if (!feed(ctx, pub, p, walks, topics, done, next, expected)) {
      std::fprintf(stderr, "soak_bench: the daemon stopped taking bars; see %s\n", log.c_str());
      kill(pid, SIGKILL);
      return 1;
    }
    done = next;
    uint64_t pubs = 0;
    if (auto list = request(ctx, p.snap, {"list"}))
      for (const auto& s : (*list)["streams"]) pubs += s["seq"].get<uint64_t>();
    const double el = std::chrono::duration<double>(Clock::now() - t0).count();
    rss_last = rss_mb(pid);
    dev_last = cuda ? device_mb(pid) : -1;
    if (done >= 100'000 && rss_at_100k == 0) {
      rss_at_100k = rss_last;
      dev_at_100k = dev_last;
    }
    std::printf("%12zu %12llu %9.1f %9.1f %9.1f %10.0f %11llu\n", done,
                static_cast<unsigned long long>(expected), rss_last, dev_last, el,
                static_cast<double>(expected) / el, static_cast<unsigned long long>(pubs));
    std::fflush(stdout);
  }
  // The feed outran the optimiser (streams catch up from the bar log in few, long runs):
  // wait until every stream has published the window ending at the last bar, the state a
  // daemon keeping up with a live feed is in, before stopping it.
  const auto fed_at = Clock::now();
  const int64_t last_ts = kBaseTs + static_cast<int64_t>(bars - 1) * kStepTs;
  const size_t caught_up = wait_published(ctx, p.snap, nsym, last_ts, 1800).size();
  const double catch_up_s = std::chrono::duration<double>(Clock::now() - fed_at).count();
  const double rss_caught_up = rss_mb(pid);
  std::printf(
      "every stream published the last bar's window %.1f s after the feed ended "
      "(%zu of %zu streams); RSS then %.1f MB\n",
      catch_up_s, caught_up, 2 * nsym, rss_caught_up);
  kill(pid, SIGTERM);
  pub.close();  // the restarted daemons' feed binds the same path
  int status = 0;
  waitpid(pid, &status, 0);
  const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;

  // Two restarts side by side on the same bars: the state directory as left (checkpoints),
  // and a copy of it without checkpoints (a replay from the anchor).
  fs::copy(dir / "state", dir / "replay_state", fs::copy_options::recursive);
  fs::remove_all(dir / "replay_state" / "checkpoints");
  Restarted a, b;
  a.paths = p;
  b.paths = write_config(dir, dir / "replay_state", nsym, every, "_replay", backend);
  const size_t streams = 2 * nsym;
  bool ok = true;
  // One after the other, so neither's start competes with the other's for the cores.
  for (Restarted* r : {&a, &b}) {
    // The feed is bound before the daemon starts, so its SUB connects to this socket.
    zmq::socket_t rpub(ctx, zmq::socket_type::pub);
    rpub.set(zmq::sockopt::sndhwm, 0);
    rpub.bind(r->paths.feed);
    const auto restart_at = Clock::now();
    r->pid = start_daemon(wfod, r->paths,
                          (dir / (r == &a ? "wfod.restart.log" : "wfod.replay.log")).string());
    auto h = wait_health(ctx, r->paths.snap, 600);
    if (!h || total_bars(*h) != expected) {
      std::fprintf(stderr, "soak_bench: a restarted daemon holds %llu bars, expected %llu\n",
                   h ? static_cast<unsigned long long>(total_bars(*h)) : 0ULL,
                   static_cast<unsigned long long>(expected));
      ok = false;
      continue;
    }
    // One more round of `every` bars for every symbol (the same bars for both daemons):
    // each stream runs once more.
    // A subscription reaches the PUB shortly after the connect: give it time.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::vector<Walk> w2 = walks;
    uint64_t exp2 = expected;
    ok = feed(ctx, rpub, r->paths, w2, topics, bars, bars + every, exp2) && ok;
    const int64_t want_ts = kBaseTs + static_cast<int64_t>(bars + every - 1) * kStepTs;
    r->first = wait_published(ctx, r->paths.snap, nsym, want_ts, 600);
    if (r->first.size() == streams)
      r->first_all_s = std::chrono::duration<double>(Clock::now() - restart_at).count();
    kill(r->pid, SIGTERM);
    waitpid(r->pid, &status, 0);
  }
  size_t same = 0;
  for (const auto& [key, pa] : a.first) {
    auto it = b.first.find(key);
    if (it != b.first.end() && close(comparable(pa), comparable(it->second))) ++same;
  }
  std::printf("\nfirst SIGTERM exit: %s\n", clean ? "0 (clean)" : "NOT CLEAN");
  std::printf("RSS 100k -> %zu bars per symbol: %.1f -> %.1f MB (%+.1f%%)\n", bars, rss_at_100k,
              rss_last, 100.0 * (rss_last - rss_at_100k) / std::max(rss_at_100k, 1e-9));
  const double rss_growth = (rss_last - rss_at_100k) / std::max(rss_at_100k, 1e-9);
  const double dev_growth = (dev_last - dev_at_100k) / std::max(dev_at_100k, 1e-9);
  if (cuda)
    std::printf("device memory 100k -> %zu bars per symbol: %.1f -> %.1f MB (%+.1f%%)\n", bars,
                dev_at_100k, dev_last, 100.0 * dev_growth);
  // The cuda run's bound (issue 43 item 10): both grow < 10% (with fewer than 100k bars a
  // symbol there is nothing to compare and the check passes).
  const bool bounded =
      !cuda || rss_at_100k == 0 || (rss_growth < 0.10 && dev_at_100k >= 0 && dev_growth < 0.10);
  if (cuda) std::printf("memory growth < 10%%: %s\n", bounded ? "yes" : "NO");
  std::printf("restart with checkpoints: start -> every stream published: %.2f s\n", a.first_all_s);
  std::printf("restart replaying from the anchor: start -> every stream published: %.2f s\n",
              b.first_all_s);
  std::printf("publications equal (SPEC §9): %zu of %zu streams\n", same, streams);
  const bool pass = ok && clean && same == streams && a.first.size() == streams &&
                    caught_up == streams && bounded;
  if (std::getenv("WFOD_SOAK_KEEP") == nullptr && pass) fs::remove_all(dir);
  return pass ? 0 : 1;
}
