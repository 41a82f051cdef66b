// A minimal trading loop on wfod in C++ (clients/cpp, header only): follows one stream's
// per-bar signals (PROTOCOL §2a) and prints the position changes a trading system would make,
// in units of --size. The twin of examples/python_follow.py, same output.
//
// It starts from the snapshot's position (what the published combo holds), then trades each
// signal whose position differs from what it holds. When the daemon goes stale it says so (a
// real system would stop opening positions, or flatten); when a publication changes the combo
// it prints the new parameters. Stop with Ctrl-C (or --seconds).
//
// usage: cpp_follow SYMBOL STRATEGY [--pub EP] [--snapshot EP] [--size N] [--seconds S]
// build: built in the tree (target cpp_follow); elsewhere find_package(wfod_client) and link
// wfod_client::wfod_client.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <wfod/client.hpp>

namespace {

std::atomic<bool> g_stop{false};

std::string when(int64_t ts_ns) {
  const std::time_t t = static_cast<std::time_t>(ts_ns / 1000000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "cpp_follow: %s\nusage: cpp_follow SYMBOL STRATEGY [--pub EP] [--snapshot EP] "
               "[--size N] [--seconds S]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string symbol, strategy;
  std::string pub = "tcp://127.0.0.1:5560", snapshot = "tcp://127.0.0.1:5561";
  double size = 1.0, seconds = 0.0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf(
          "usage: cpp_follow SYMBOL STRATEGY [--pub EP] [--snapshot EP] [--size N] "
          "[--seconds S]\n");
      return 0;
    }
    if (a.substr(0, 2) == "--") {
      if (i + 1 >= argc) return usage("a flag needs a value");
      const char* v = argv[++i];
      char* end = nullptr;
      if (a == "--pub") {
        pub = v;
      } else if (a == "--snapshot") {
        snapshot = v;
      } else if (a == "--size" || a == "--seconds") {
        const double x = std::strtod(v, &end);
        if (end == v || *end != '\0' || x < 0) return usage("--size / --seconds: a number >= 0");
        (a == "--size" ? size : seconds) = x;
      } else {
        return usage("unknown flag");
      }
    } else if (symbol.empty()) {
      symbol = a;
    } else if (strategy.empty()) {
      strategy = a;
    } else {
      return usage("too many arguments");
    }
  }
  if (strategy.empty()) return usage("SYMBOL and STRATEGY are required");

  std::optional<int> held;  // the position this system holds, in steps (-1, 0, +1)
  auto trade = [&](int target, int64_t ts, const std::string& why) {
    if (held && *held == target) return;
    const int before = held.value_or(0);
    std::printf("%s %s: %s %g (%+d -> %+d, %s)\n", when(ts).c_str(), symbol.c_str(),
                target > before ? "BUY" : "SELL", std::abs(target - before) * size, before, target,
                why.c_str());
    std::fflush(stdout);
    held = target;
  };

  namespace wc = wfod::client;
  wc::Options options;
  options.on_publication = [&](const wc::Publication& p) {
    std::printf("publication seq %lld%s: combo %lld %s\n", static_cast<long long>(p.seq),
                p.from_snapshot ? " (snapshot)" : "", static_cast<long long>(p.id),
                p.params.dump().c_str());
    std::fflush(stdout);
    if (!held && p.position && p.position_ts) {
      trade(*p.position, *p.position_ts, "snapshot of seq " + std::to_string(p.seq));
    }
  };
  options.on_signal = [&](const wc::Signal& s) {
    trade(s.position, s.ts,
          "signal of combo " + std::to_string(s.id) + ", seq " + std::to_string(s.params_seq));
  };
  options.on_stale = [](const wc::StreamKey& key, bool stale) {
    std::printf("%s: %s\n", key.name().c_str(),
                stale ? "STALE: no word from the daemon" : "fresh again");
    std::fflush(stdout);
  };

  std::signal(SIGINT, [](int) { g_stop = true; });
  std::signal(SIGTERM, [](int) { g_stop = true; });
  wc::Client client({{pub, snapshot}}, std::vector<wc::StreamKey>{{symbol, strategy}}, options);
  const auto end = seconds > 0 ? wc::Clock::now() + std::chrono::duration_cast<wc::Clock::duration>(
                                                        std::chrono::duration<double>(seconds))
                               : wc::Clock::time_point::max();
  while (!g_stop && wc::Clock::now() < end) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - wc::Clock::now());
    client.poll(std::min(left, std::chrono::milliseconds(1000)));
  }
  return 0;
}
