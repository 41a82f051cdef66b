// Live wfod daemons on loopback for the C++ client's tests: the C++ side of
// clients/python/tests/harness.py (the same config shape, window and grid, so both clients are
// tested on the same streams): a config on fixed free ports, start / kill -9 / restart on the
// same endpoints and state, a bar feed (a PUB the daemons' SUB connects to, encoded by
// wfod_feeds), snapshot requests with timeouts. The daemon's path comes from WFOD, the bars'
// (daily CSV) from WFOD_CSV, each else compiled in by CMake.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "wfod/feeds/bar_codec.hpp"
#include "wfod/feeds/csv_reader.hpp"

extern char** environ;

namespace wfod::client_test {

using namespace std::chrono_literals;
inline constexpr int kWindow = 60, kEvery = 5;  // first run at 60 + 60 + 1 bars
inline constexpr size_t kFirstRun = 121;

// A path from the environment (`name`), else the one compiled in; "" when neither is set.
inline std::string setting(const char* name, const char* compiled_in) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : compiled_in;
}
inline std::string wfod_path() { return setting("WFOD", WFOD_CPP_CLIENT_DAEMON); }
inline std::string csv_path() { return setting("WFOD_CSV", WFOD_CPP_CLIENT_CSV); }
inline std::string follow_path() { return setting("CPP_FOLLOW", WFOD_CPP_CLIENT_FOLLOW); }

inline std::vector<Bar> load_bars(const std::string& path) {
  const Series s = feeds::read_csv(path).series;
  std::vector<Bar> out;
  for (size_t i = 0; i < s.size(); ++i) {
    out.push_back(Bar{s.ts_ns[i], s.open[i], s.high[i], s.low[i], s.close[i], s.volume[i], 0});
  }
  return out;
}

// A loopback port nothing listens on, below the kernel's ephemeral range (so no outgoing
// connection holds it when a daemon binds it again after a restart).
inline int free_port() {
  int low = 32768;
  if (std::ifstream f("/proc/sys/net/ipv4/ip_local_port_range"); f) f >> low;
  const int span = std::max(low - 20000, 1000);
  static std::mt19937 rng(std::random_device{}());
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = 20000 + static_cast<int>(rng() % static_cast<unsigned>(span));
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    if (ok) return port;
  }
  throw std::runtime_error("no free loopback port");
}

// A small ma_cross strategy (window 60, every 5) on `symbols`.
inline std::string strategy_toml(const std::string& name, const std::vector<std::string>& symbols) {
  std::string syms;
  for (const auto& s : symbols) syms += (syms.empty() ? "" : ", ") + nlohmann::json(s).dump();
  return "\n[[strategy]]\nname = \"" + name + "\"\nsymbols = [" + syms +
         "]\nfamily = \"ma_cross\"\nwindow = " + std::to_string(kWindow) +
         "\nevery = " + std::to_string(kEvery) +
         "\ncost_bps = 1.0\ntop = 2\n[strategy.grid]\nfast = [3, 5]\nslow = [10, 20]\n"
         "ma = [\"sma\", \"ema\"]\nentry = [\"state\", \"cross\"]\n";
}

// A bar publisher (PROTOCOL §1, json) bound on an ephemeral loopback port.
class Feed {
 public:
  explicit Feed(zmq::context_t& ctx) : socket_(ctx, zmq::socket_type::pub) {
    socket_.set(zmq::sockopt::linger, 0);
    socket_.set(zmq::sockopt::sndhwm, 0);
    socket_.bind("tcp://127.0.0.1:*");
    endpoint_ = socket_.get(zmq::sockopt::last_endpoint);
  }
  const std::string& endpoint() const { return endpoint_; }
  void send(const std::string& symbol, const Bar& bar) {
    const std::string topic = feeds::encode_topic(symbol);
    const std::string payload = feeds::encode_json(bar);
    socket_.send(zmq::buffer(topic), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(payload), zmq::send_flags::none);
  }

 private:
  zmq::socket_t socket_;
  std::string endpoint_;
};

// Starts `args` (args[0]: the program's path) with stdout and stderr appended to `log`.
inline pid_t spawn(std::vector<std::string> args, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("posix_spawn " + args[0] + ": " + std::strerror(rc));
  return pid;
}

// Waits for `pid` to exit within `timeout`: its exit status, or nullopt (then killed).
inline std::optional<int> wait_exit(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(20ms);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// One daemon: a config on fixed free ports, its state dir and log in `workdir`.
class Wfod {
 public:
  Wfod(zmq::context_t& ctx, const std::string& workdir, const Feed& feed,
       const std::vector<std::string>& symbols, const std::string& strategies)
      : ctx_(&ctx),
        workdir_(workdir),
        pub_("tcp://127.0.0.1:" + std::to_string(free_port())),
        snapshot_("tcp://127.0.0.1:" + std::to_string(free_port())),
        config_(workdir + "/wfod.toml"),
        log_(workdir + "/wfod.log") {
    std::ofstream f(config_);
    f << "[daemon]\nstate_dir = \"" << workdir << "/state\"\nbackend = \"cpu\"\nthreads = 1\n"
      << "checkpoint_every_s = 0\n\n[publish]\nendpoint = \"" << pub_ << "\"\nsnapshot = \""
      << snapshot_ << "\"\nhttp = \"\"\n\n[[feed]]\nendpoint = \"" << feed.endpoint()
      << "\"\nformat = \"json\"\n\n";
    for (const auto& s : symbols)
      f << "[[symbol]]\nname = \"" << s << "\"\nbars_per_year = 252\n\n";
    f << strategies;
  }
  Wfod(const Wfod&) = delete;
  Wfod& operator=(const Wfod&) = delete;
  ~Wfod() { stop(); }

  const std::string& pub() const { return pub_; }
  const std::string& snapshot() const { return snapshot_; }

  // Starts it and waits until it answers health (20 s at most).
  void start() {
    const std::string exe = wfod_path();
    if (exe.empty()) throw std::runtime_error("no wfod to run (WFOD is not set)");
    pid_ = spawn({exe, "--config", config_}, log_);
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("wfod exited at start: " + tail());
      }
      if (request({"health"}, 300ms)) return;
    }
    throw std::runtime_error("wfod did not answer health within 20 s: " + tail());
  }

  void kill9() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + 15s;
    while (::waitpid(pid_, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill9();
        return;
      }
      std::this_thread::sleep_for(20ms);
    }
    pid_ = -1;
  }

  std::string tail() const {
    std::ifstream f(log_);
    std::vector<std::string> lines;
    for (std::string l; std::getline(f, l);) lines.push_back(l);
    std::string out;
    for (size_t i = lines.size() > 20 ? lines.size() - 20 : 0; i < lines.size(); ++i) {
      out += lines[i] + "\n";
    }
    return out.empty() ? "(no log)" : out;
  }

  // One snapshot request on a fresh REQ socket; nullopt without a reply in time.
  std::optional<nlohmann::json> request(const std::vector<std::string>& frames,
                                        std::chrono::milliseconds timeout = 2000ms) const {
    zmq::socket_t sock(*ctx_, zmq::socket_type::req);
    sock.set(zmq::sockopt::linger, 0);
    sock.connect(snapshot_);
    for (size_t i = 0; i < frames.size(); ++i) {
      sock.send(zmq::buffer(frames[i]),
                i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    }
    std::vector<zmq::pollitem_t> items{{sock.handle(), 0, ZMQ_POLLIN, 0}};
    if (zmq::poll(items, timeout) == 0) return std::nullopt;
    zmq::message_t m;
    if (!sock.recv(m)) return std::nullopt;
    return nlohmann::json::parse(m.to_string_view());
  }

  int64_t bars(const std::string& symbol) const {
    const auto h = request({"health"});
    if (!h) return -1;
    const auto& syms = h->value("symbols", nlohmann::json::object());
    if (!syms.contains(symbol)) return -1;
    return syms[symbol].value("bars", int64_t{-1});
  }

  int64_t get_seq(const std::string& symbol, const std::string& strategy) const {
    const auto r = request({"get", symbol, strategy});
    return r ? r->value("seq", int64_t{0}) : 0;
  }

 private:
  zmq::context_t* ctx_;
  std::string workdir_, pub_, snapshot_, config_, log_;
  pid_t pid_ = -1;
};

// Bars [first, end) of `symbol` into every daemon of `daemons`, waiting until each holds
// them. The first is sent until a daemon counts it (its SUB may join late: a repeat is a
// duplicate, dropped and counted).
inline void feed_bars(Feed& feed, const std::vector<const Wfod*>& daemons,
                      const std::string& symbol, const std::vector<Bar>& bars, size_t first,
                      size_t end) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  auto all_have = [&](size_t n) {
    for (const Wfod* d : daemons) {
      if (d->bars(symbol) < static_cast<int64_t>(n)) return false;
    }
    return true;
  };
  feed.send(symbol, bars[first]);
  while (!all_have(first + 1)) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error(symbol + ": bar " + std::to_string(first) + " never arrived");
    }
    std::this_thread::sleep_for(50ms);
    feed.send(symbol, bars[first]);
  }
  for (size_t i = first + 1; i < end; ++i) feed.send(symbol, bars[i]);
  while (!all_have(end)) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error(symbol + ": " + std::to_string(end) + " bars never arrived");
    }
    std::this_thread::sleep_for(50ms);
  }
}

// Waits until the stream's seq stays the same for `quiet`; returns it.
inline int64_t settle(const Wfod& d, const std::string& symbol, const std::string& strategy,
                      std::chrono::milliseconds quiet = 600ms) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  int64_t prev = -1;
  while (std::chrono::steady_clock::now() < deadline) {
    const int64_t seq = d.get_seq(symbol, strategy);
    if (seq == prev && seq > 0) return seq;
    prev = seq;
    std::this_thread::sleep_for(quiet);
  }
  throw std::runtime_error(symbol + "." + strategy + " did not settle");
}

}  // namespace wfod::client_test
