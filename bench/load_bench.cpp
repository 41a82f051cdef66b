// Load test: a real wfod (CPU backend) with N symbols x M strategies, fed binary bars
// round-robin over ipc:// at increasing rates; per rate step it reports bars sent vs
// accepted (zero loss?), publications, and the bar-to-publish latency (the time from sending
// the bar that completes a window to receiving the publication of that window). The highest
// step with zero loss and a bounded p99 is the sustained rate. One table; see
// docs/reliability.md "Load" for the command and the numbers.
//
// usage: load_bench WFOD [symbols=1000] [strategies=10] [step_seconds=8]
//                   [rates=1000,2000,5000,10000,20000,50000] [every=5] [fsync=batch]
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
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
#include "wfod/feeds/csv_reader.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int64_t kBaseTs = 1'600'000'000'000'000'000LL;
constexpr int64_t kStepTs = 60'000'000'000LL;  // one minute per round
constexpr size_t kBackfill = 300;  // rows per symbol at start (> warmup 90 + window 145 + 1)

std::string sym_name(size_t s) {
  std::string name = "S";  // not "S" + ...: GCC 12 -Wrestrict false positive
  name += std::to_string(s);
  return name;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

double price_at(size_t sym, size_t round) {
  // A deterministic wiggle per symbol: trends and reversals, so the grids have trades.
  const double x = static_cast<double>(round) * (0.05 + 0.001 * static_cast<double>(sym % 17));
  return 100.0 + 10.0 * std::sin(x) + 0.01 * static_cast<double>(round % 7);
}

wfod::Bar bar_at(size_t sym, size_t round) {
  wfod::Bar b;
  b.ts_ns = kBaseTs + static_cast<int64_t>(round) * kStepTs;
  b.open = price_at(sym, round == 0 ? 0 : round - 1);
  b.close = price_at(sym, round);
  b.high = std::max(b.open, b.close) * 1.001;
  b.low = std::min(b.open, b.close) * 0.999;
  b.volume = 1000;
  b.seq = round + 1;
  return b;
}

std::string write_setup(const fs::path& dir, size_t nsym, size_t nstrat, size_t every,
                        const std::string& fsync) {
  fs::create_directories(dir / "backfill");
  std::ostringstream syms, cfg;
  for (size_t s = 0; s < nsym; ++s) {
    std::ofstream csv(dir / "backfill" / (sym_name(s) + ".csv"));
    csv << "timestamp,open,high,low,close,volume\n";
    for (size_t r = 0; r < kBackfill; ++r) {
      const wfod::Bar b = bar_at(s, r);
      csv << wfod::feeds::format_timestamp(b.ts_ns) << ',' << b.open << ',' << b.high << ','
          << b.low << ',' << b.close << ",1000\n";
    }
    syms << (s ? ", " : "") << "\"S" << s << "\"";
  }
  cfg << "[daemon]\nstate_dir = \"" << (dir / "state").string()
      << "\"\nbackend = \"cpu\"\nthreads = 1\nlog_level = \"warn\"\nfsync = \"" << fsync << "\"\n\n"
      << "[publish]\nendpoint = \"ipc://" << (dir / "pub").string() << "\"\nsnapshot = \"ipc://"
      << (dir / "snap").string() << "\"\nhttp = \"\"\nsndhwm = 0\n\n[[feed]]\nendpoint = \"ipc://"
      << (dir / "feed").string() << "\"\nformat = \"binary\"\nrcvhwm = 0\n\n";
  for (size_t s = 0; s < nsym; ++s) {
    cfg << "[[symbol]]\nname = \"S" << s << "\"\nbars_per_year = 98280\nbackfill = \"backfill/S"
        << s << ".csv\"\n\n";
  }
  for (size_t k = 0; k < nstrat; ++k) {
    // Small grids (4 combos), windows 100..145, every `every` bars: each strategy differs.
    cfg << "[[strategy]]\nname = \"st" << k << "\"\nsymbols = [" << syms.str()
        << "]\nfamily = \"ma_cross\"\nwindow = " << 100 + 5 * k << "\nevery = " << every
        << "\ncost_bps = 1.0\ntop = 3\n[strategy.grid]\nfast = [5, 10]\nslow = [20, 30]\n\n";
  }
  const fs::path path = dir / "wfod.toml";
  std::ofstream(path) << cfg.str();
  return path.string();
}

std::optional<json> request(zmq::context_t& ctx, const std::string& ep, const char* what) {
  zmq::socket_t req(ctx, zmq::socket_type::req);
  req.set(zmq::sockopt::linger, 0);
  req.connect(ep);
  req.send(zmq::buffer(std::string(what)), zmq::send_flags::none);
  zmq::pollitem_t item{req.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, std::chrono::milliseconds(3000)) == 0) return std::nullopt;
  zmq::message_t m;
  (void)req.recv(m);
  return json::parse(m.to_string(), nullptr, false);
}

struct Receiver {
  std::mutex mutex;
  std::vector<std::vector<int64_t>>* sent = nullptr;  // [symbol][round] send time, ns
  std::vector<double> latencies_ms;                   // since the last take()
  std::atomic<uint64_t> publications{0};
  std::atomic<int64_t> last_recv_ns{0};
  std::atomic<bool> stop{false};

  void run(zmq::context_t& ctx, const std::string& ep) {
    zmq::socket_t sub(ctx, zmq::socket_type::sub);
    sub.set(zmq::sockopt::rcvhwm, 0);
    sub.set(zmq::sockopt::subscribe, "params.");
    sub.set(zmq::sockopt::rcvtimeo, 200);
    sub.connect(ep);
    while (!stop) {
      std::vector<zmq::message_t> parts;
      if (!zmq::recv_multipart(sub, std::back_inserter(parts)) || parts.size() != 2) continue;
      const int64_t t = now_ns();
      ++publications;
      last_recv_ns = t;
      const std::string topic = parts[0].to_string();  // params.S12.st3
      const size_t dot = topic.find('.', 7);
      const size_t sym = std::strtoul(topic.c_str() + 8, nullptr, 10);
      (void)dot;
      const std::string payload = parts[1].to_string();
      const size_t at = payload.find("\"last_ts\":");
      if (at == std::string::npos) continue;
      const int64_t last_ts = std::strtoll(payload.c_str() + at + 10, nullptr, 10);
      const size_t round = static_cast<size_t>((last_ts - kBaseTs) / kStepTs);
      std::lock_guard lock(mutex);
      if (sym < sent->size() && round < (*sent)[sym].size() && (*sent)[sym][round] > 0) {
        latencies_ms.push_back(static_cast<double>(t - (*sent)[sym][round]) / 1e6);
      }
    }
  }
  std::vector<double> take() {
    std::lock_guard lock(mutex);
    std::vector<double> out;
    out.swap(latencies_ms);
    return out;
  }
};

double pct(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

uint64_t total_bars(const json& h) {
  uint64_t n = 0;
  for (const auto& [name, s] : h["symbols"].items()) n += s["bars"].get<uint64_t>();
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: load_bench WFOD [symbols] [strategies] [step_s] [rates,...]\n");
    return 2;
  }
  const std::string wfod = argv[1];
  const size_t nsym = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1000;
  const size_t nstrat = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 10;
  const double step_s = argc > 4 ? std::strtod(argv[4], nullptr) : 8.0;
  std::vector<double> rates = {1000, 2000, 5000, 10000, 20000, 50000};
  if (argc > 5) {
    rates.clear();
    std::stringstream in(argv[5]);
    for (std::string r; std::getline(in, r, ',');) rates.push_back(std::strtod(r.c_str(), nullptr));
  }
  const size_t every = argc > 6 ? std::strtoul(argv[6], nullptr, 10) : 5;
  const std::string fsync = argc > 7 ? argv[7] : "batch";
  const fs::path dir = fs::temp_directory_path() / ("wfod_load." + std::to_string(::getpid()));
  const std::string config = write_setup(dir, nsym, nstrat, every, fsync);
  std::fprintf(stderr, "load_bench: %zu symbols x %zu strategies, every %zu, config %s\n", nsym,
               nstrat, every, config.c_str());

  const std::string log = (dir / "wfod.log").string();
  std::vector<char*> args = {const_cast<char*>(wfod.c_str()), const_cast<char*>("--config"),
                             const_cast<char*>(config.c_str()), nullptr};
  const auto t_start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    // The daemon dies with the benchmark, however the benchmark ends.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) ::dup2(fd, 2);
    ::execv(wfod.c_str(), args.data());
    _exit(127);
  }
  if (pid < 0) {
    std::perror("fork");
    return 1;
  }
  zmq::context_t ctx(1);
  const std::string snap = "ipc://" + (dir / "snap").string();
  std::optional<json> health;
  for (int i = 0; i < 600 && !health; ++i) {
    health = request(ctx, snap, "health");
    if (!health) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (!health) {
    std::fprintf(stderr, "load_bench: wfod did not answer health; see %s\n", log.c_str());
    kill(pid, SIGKILL);
    return 1;
  }
  std::vector<std::vector<int64_t>> sent(nsym);
  Receiver rx;
  rx.sent = &sent;
  std::thread rx_thread([&] { rx.run(ctx, "ipc://" + (dir / "pub").string()); });
  // The first runs of every stream (backfill already covers warmup + window): wait until
  // every stream has published once (they may finish before our SUB is connected).
  for (int i = 0;; ++i) {
    auto list = request(ctx, snap, "list");
    if (list && !list->is_discarded() && (*list)["streams"].size() >= nsym * nstrat) break;
    if (i == 600) {
      std::fprintf(stderr, "load_bench: not every stream published within 5 min; see %s\n",
                   log.c_str());
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  std::fprintf(stderr, "load_bench: started, %zu streams published once, in %.1f s\n",
               nsym * nstrat, std::chrono::duration<double>(Clock::now() - t_start).count());
  (void)rx.take();

  zmq::socket_t pub(ctx, zmq::socket_type::pub);
  pub.set(zmq::sockopt::sndhwm, 0);
  pub.bind("ipc://" + (dir / "feed").string());
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  std::vector<std::string> topics;
  for (size_t s = 0; s < nsym; ++s) topics.push_back(wfod::feeds::encode_topic(sym_name(s)));

  std::printf("%9s %9s %9s %6s %8s %8s %8s %8s %9s %s\n", "rate", "sent", "accepted", "lost",
              "pubs", "p50_ms", "p99_ms", "max_ms", "coalesced", "verdict");
  size_t round = kBackfill;
  uint64_t expected = health->is_discarded() ? 0 : total_bars(*health);
  uint64_t coalesced0 = 0;
  double best_rate = 0, best_p99 = 0;
  for (const double rate : rates) {
    const uint64_t pubs0 = rx.publications;
    // At least two runs per stream in every step, however low the rate.
    const size_t n = std::max(static_cast<size_t>(rate * step_s), 2 * every * nsym);
    const auto t0 = Clock::now();
    for (size_t i = 0; i < n; ++i) {
      const size_t sym = i % nsym;
      if (sym == 0 && i > 0) ++round;
      if (sent[sym].size() <= round) sent[sym].resize(round + 64, 0);
      // Pace: bar i leaves at t0 + i / rate.
      const auto due = t0 + std::chrono::nanoseconds(static_cast<int64_t>(1e9 * i / rate));
      if (Clock::now() < due) std::this_thread::sleep_until(due);
      const std::string payload = wfod::feeds::encode_binary(bar_at(sym, round));
      {
        std::lock_guard lock(rx.mutex);
        sent[sym][round] = now_ns();
      }
      pub.send(zmq::buffer(topics[sym]), zmq::send_flags::sndmore);
      pub.send(zmq::buffer(payload), zmq::send_flags::none);
    }
    ++round;  // the next step starts a fresh round for every symbol
    const double send_s = std::chrono::duration<double>(Clock::now() - t0).count();
    expected += n;
    // Drain: until every bar is accepted and publications stop for 1 s (or 20 s pass).
    uint64_t accepted = 0, coalesced = 0;
    const auto drain_until = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < drain_until) {
      auto h = request(ctx, snap, "health");
      if (h && !h->is_discarded()) {
        accepted = total_bars(*h);
        coalesced = (*h)["coalesced"].get<uint64_t>();
      }
      const bool quiet = now_ns() - rx.last_recv_ns > 1'000'000'000LL;
      if (accepted >= expected && quiet) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    std::vector<double> lat = rx.take();
    const double p50 = pct(lat, 0.50), p99 = pct(lat, 0.99), mx = lat.empty() ? 0 : lat.back();
    const uint64_t lost = expected > accepted ? expected - accepted : 0;
    const bool kept_up = send_s < 1.1 * static_cast<double>(n) / rate;  // the sender kept up
    const bool ok = lost == 0 && kept_up && !lat.empty() && p99 < 1000.0;
    std::printf("%9.0f %9zu %9llu %6llu %8llu %8.1f %8.1f %8.1f %9llu %s\n", rate, n,
                static_cast<unsigned long long>(accepted - (expected - n)),
                static_cast<unsigned long long>(lost),
                static_cast<unsigned long long>(rx.publications - pubs0), p50, p99, mx,
                static_cast<unsigned long long>(coalesced - coalesced0),
                ok ? "sustained" : (lost ? "LOSS" : (!kept_up ? "sender slow" : "LATENCY")));
    std::fflush(stdout);
    coalesced0 = coalesced;
    if (!ok) break;
    best_rate = rate;
    best_p99 = p99;
    expected = accepted;
  }
  std::printf("highest sustained rate: %.0f bars/s (p99 bar-to-publish %.1f ms)\n", best_rate,
              best_p99);
  rx.stop = true;
  rx_thread.join();
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  fs::remove_all(dir);
  return 0;
}
