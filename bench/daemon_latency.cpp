// End-to-end latency through the daemon: a feed publisher and a parameter
// subscriber in one process on loopback. Each bar is sent (binary codec, PROTOCOL §1) and the
// clock runs until the publication whose window ends at that bar arrives (PROTOCOL §2);
// then the next bar. Prints one table of latency percentiles.
//   daemon_latency csv FILE BARS SEED            write the backfill: BARS synthetic bars
//   daemon_latency run FEED_ENDPOINT PUB_ENDPOINT SYMBOL STRATEGY FROM COUNT SEED
//   daemon_latency stages SNAPSHOT_ENDPOINT      the daemon's own split (health latency_ms)
//   daemon_latency universe-csv DIR SYMBOLS BARS SEED   one daily backfill per symbol, S000...
//   daemon_latency universe FEED PUB SYMBOLS STRATEGY FROM BATCHES SEED
//     issue 47 item 4: each batch is bar t of every symbol sent back to back (daily bars
//     arriving together at the close); the clock runs from the batch's last bar sent to the
//     last of the SYMBOLS publications whose window ends at t.
// WFOD_LATENCY_CLIENT_SPIN=1: the subscriber polls without sleeping (a trading system's
// busy loop), so the figures leave out this process's own wake-up.
// `run` binds FEED_ENDPOINT (the daemon's [[feed]] connects to it), connects to the
// daemon's PUB, and sends bars FROM .. FROM+COUNT-1 of the same seeded series.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "wfod/bar.hpp"
#include "wfod/feeds/bar_codec.hpp"

using namespace wfod;

namespace {

constexpr int64_t kMinuteNs = 60'000'000'000;
constexpr int64_t kDayNs = 86'400 * int64_t{1'000'000'000};
constexpr size_t kWarmBars = 5;  // bars not timed: the first runs open the daemon's stream

// The seeded walk both modes share: bar t is the same in the CSV and on the wire. One bar a
// `step_ns` from 2020-01-01T00:00Z on (minutes), or from 1990-01-01 (days: ten thousand of
// them stay in the past).
std::vector<Bar> walk(size_t bars, uint64_t seed, int64_t step_ns = kMinuteNs) {
  const int64_t start_ns =
      step_ns >= kDayNs ? 631'152'000'000'000'000LL : 1'577'836'800'000'000'000LL;
  std::vector<Bar> out;
  out.reserve(bars);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> step(0.0002, 0.01);
  double close = 100;
  for (size_t t = 0; t < bars; ++t) {
    const double open = std::round(close * std::exp(step(rng) * 0.2) * 1e4) / 1e4;
    const double next = std::round(close * std::exp(step(rng)) * 1e4) / 1e4;
    const double high = std::max(open, next) + 0.01, low = std::min(open, next) - 0.01;
    out.push_back(
        Bar{start_ns + static_cast<int64_t>(t + 1) * step_ns, open, high, low, next, 1000, t + 1});
    close = next;
  }
  return out;
}

int write_csv(const std::string& path, size_t bars, uint64_t seed, int64_t step_ns = kMinuteNs) {
  std::ofstream f(path);
  f << "timestamp,open,high,low,close,volume\n";
  f.precision(10);
  for (const Bar& b : walk(bars, seed, step_ns)) {
    const std::time_t secs = static_cast<std::time_t>(b.ts_ns / 1'000'000'000);
    char ts[32];
    std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&secs));
    f << ts << ',' << b.open << ',' << b.high << ',' << b.low << ',' << b.close << ',' << b.volume
      << '\n';
  }
  return f ? 0 : 1;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(i == 0 ? 0 : i - 1, v.size() - 1)];
}

// Waits up to 5 s for a message. `spin`: polls without sleeping, as a latency-sensitive
// subscriber would, so the clock does not include this process being woken up.
bool wait_readable(zmq::socket_t& in, bool spin) {
  zmq::pollitem_t item{in.handle(), 0, ZMQ_POLLIN, 0};
  if (!spin) return zmq::poll(&item, 1, std::chrono::milliseconds(5000)) > 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < until)
    if (zmq::poll(&item, 1, std::chrono::milliseconds(0)) > 0) return true;
  return false;
}

int run(const std::string& feed, const std::string& pub, const std::string& symbol,
        const std::string& strategy, size_t from, size_t count, uint64_t seed) {
  const std::vector<Bar> bars = walk(from + count, seed);
  const char* spin_env = std::getenv("WFOD_LATENCY_CLIENT_SPIN");
  const bool spin = spin_env && std::string_view(spin_env) == "1";
  zmq::context_t ctx;
  zmq::socket_t out(ctx, zmq::socket_type::pub), in(ctx, zmq::socket_type::sub);
  out.bind(feed);
  const std::string topic = "params." + symbol + "." + strategy;
  in.set(zmq::sockopt::subscribe, topic);
  in.connect(pub);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // both subscriptions propagate
  const std::string bar_topic = "bars." + symbol;
  std::vector<double> latency_ms;
  size_t lost = 0;
  for (size_t t = from; t < from + count; ++t) {
    const std::string payload = feeds::encode_binary(bars[t]);
    const auto sent = std::chrono::steady_clock::now();
    out.send(zmq::buffer(bar_topic), zmq::send_flags::sndmore);
    out.send(zmq::buffer(payload), zmq::send_flags::none);
    bool got = false;
    // The clock stops when the publication is received; parsing it (to see which bar it
    // covers) is the subscriber's own work, not the daemon's latency.
    auto received = sent;
    while (!got) {
      if (!wait_readable(in, spin)) break;
      std::vector<zmq::message_t> parts;
      if (!zmq::recv_multipart(in, std::back_inserter(parts))) break;
      received = std::chrono::steady_clock::now();
      if (parts.size() != 2) continue;
      const auto j = nlohmann::json::parse(parts[1].to_string_view(), nullptr, false);
      if (j.is_discarded() || !j.contains("window")) continue;
      got = j["window"].value("last_ts", int64_t{0}) == bars[t].ts_ns;
    }
    if (!got) {
      ++lost;
      continue;
    }
    // The first bars open the daemon's stream (history upload, caches): not steady state.
    if (t >= from + kWarmBars)
      latency_ms.push_back(std::chrono::duration<double, std::milli>(received - sent).count());
  }
  if (latency_ms.empty()) {
    std::printf("no publication received for any of %zu bars\n", count);
    return 1;
  }
  std::printf("| bars sent | timed (first %zu not) | lost | p50 ms | p90 ms | p99 ms | max ms |\n",
              kWarmBars);
  std::printf("|---|---|---|---|---|---|---|\n");
  std::printf("| %zu | %zu | %zu | %.3f | %.3f | %.3f | %.3f |\n", count, latency_ms.size(), lost,
              percentile(latency_ms, 0.5), percentile(latency_ms, 0.9),
              percentile(latency_ms, 0.99), percentile(latency_ms, 1.0));
  return lost == 0 ? 0 : 1;
}

std::string symbol_name(size_t k) {
  char name[32];
  std::snprintf(name, sizeof name, "S%03zu", k);
  return name;
}

int write_universe(const std::string& dir, size_t symbols, size_t bars, uint64_t seed) {
  for (size_t k = 0; k < symbols; ++k)
    if (write_csv(dir + "/" + symbol_name(k) + ".csv", bars, seed + k, kDayNs) != 0) return 1;
  return 0;
}

int universe(const std::string& feed, const std::string& pub, size_t symbols,
             const std::string& strategy, size_t from, size_t batches, uint64_t seed) {
  std::vector<std::vector<Bar>> bars(symbols);
  for (size_t k = 0; k < symbols; ++k) bars[k] = walk(from + batches, seed + k, kDayNs);
  zmq::context_t ctx;
  zmq::socket_t out(ctx, zmq::socket_type::pub), in(ctx, zmq::socket_type::sub);
  // A batch is SYMBOLS messages at once and as many publications back: no high-water mark
  // may drop one.
  out.set(zmq::sockopt::sndhwm, 0);
  in.set(zmq::sockopt::rcvhwm, 0);
  out.bind(feed);
  in.set(zmq::sockopt::subscribe, "params.");
  in.connect(pub);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // both subscriptions propagate
  const std::string suffix = "." + strategy;
  std::vector<double> last_ms, first_ms;
  size_t lost = 0;
  for (size_t t = from; t < from + batches; ++t) {
    for (size_t k = 0; k < symbols; ++k) {
      const std::string topic = "bars." + symbol_name(k);
      const std::string payload = feeds::encode_binary(bars[k][t]);
      out.send(zmq::buffer(topic), zmq::send_flags::sndmore);
      out.send(zmq::buffer(payload), zmq::send_flags::none);
    }
    const auto sent = std::chrono::steady_clock::now();
    const int64_t ts = bars[0][t].ts_ns;
    std::vector<bool> seen(symbols, false);
    size_t got = 0;
    auto first = sent, last = sent;
    // Up to 5 s of silence per publication (wait_readable); the batch's SYMBOLS publications
    // are counted by symbol, once each.
    while (got < symbols && wait_readable(in, false)) {
      std::vector<zmq::message_t> parts;
      if (!zmq::recv_multipart(in, std::back_inserter(parts))) break;
      const auto now = std::chrono::steady_clock::now();
      if (parts.size() != 2) continue;
      const std::string_view topic = parts[0].to_string_view();
      if (topic.size() <= suffix.size() || !topic.ends_with(suffix)) continue;
      const auto j = nlohmann::json::parse(parts[1].to_string_view(), nullptr, false);
      if (j.is_discarded() || !j.contains("window") ||
          j["window"].value("last_ts", int64_t{0}) != ts)
        continue;
      const std::string sym = j.value("symbol", std::string());
      if (sym.size() < 2 || sym[0] != 'S') continue;
      const size_t k = std::strtoull(sym.c_str() + 1, nullptr, 10);
      if (k >= symbols || seen[k]) continue;
      seen[k] = true;
      if (got++ == 0) first = now;
      last = now;
    }
    if (got < symbols) {
      std::printf("batch %zu: %zu of %zu publications\n", t, got, symbols);
      ++lost;
      continue;
    }
    // The first batches open the daemon's streams' caches: not steady state.
    if (t >= from + 2) {
      first_ms.push_back(std::chrono::duration<double, std::milli>(first - sent).count());
      last_ms.push_back(std::chrono::duration<double, std::milli>(last - sent).count());
    }
  }
  if (last_ms.empty()) {
    std::printf("no complete batch of %zu publications\n", symbols);
    return 1;
  }
  std::printf(
      "| symbols | batches timed (first 2 not) | incomplete | to the first publication p50 ms | to "
      "the last p50 ms | p90 ms | p99 ms | max ms |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  std::printf("| %zu | %zu | %zu | %.1f | %.1f | %.1f | %.1f | %.1f |\n", symbols, last_ms.size(),
              lost, percentile(first_ms, 0.5), percentile(last_ms, 0.5), percentile(last_ms, 0.9),
              percentile(last_ms, 0.99), percentile(last_ms, 1.0));
  return lost == 0 ? 0 : 1;
}

// The daemon's per-stage timings of its latest publications (health `latency_ms`): where
// the end-to-end time goes between the loop waking with a bar and the publication's send.
int stages(const std::string& snapshot) {
  zmq::context_t ctx;
  zmq::socket_t req(ctx, zmq::socket_type::req);
  req.set(zmq::sockopt::rcvtimeo, 5000);
  req.connect(snapshot);
  req.send(zmq::buffer(std::string("health")), zmq::send_flags::none);
  zmq::message_t reply;
  if (!req.recv(reply)) {
    std::printf("no health reply from %s\n", snapshot.c_str());
    return 1;
  }
  const auto j = nlohmann::json::parse(reply.to_string_view(), nullptr, false);
  if (j.is_discarded() || !j.contains("latency_ms")) {
    std::printf("health reply without latency_ms\n");
    return 1;
  }
  const auto& l = j["latency_ms"];
  std::printf("\ninside the daemon, its last %d publications (health latency_ms):\n\n",
              l.value("samples", 0));
  std::printf("| stage | p50 ms | p99 ms | max ms |\n|---|---|---|---|\n");
  for (const char* stage : {"ingest", "handoff", "job", "result", "publish", "bar_to_send"}) {
    const auto& e = l[stage];
    std::printf("| %s | %.3f | %.3f | %.3f |\n", stage, e.value("p50", 0.0), e.value("p99", 0.0),
                e.value("max", 0.0));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "csv" && argc == 5)
    return write_csv(argv[2], std::strtoull(argv[3], nullptr, 10),
                     std::strtoull(argv[4], nullptr, 10));
  if (mode == "run" && argc == 9)
    return run(argv[2], argv[3], argv[4], argv[5], std::strtoull(argv[6], nullptr, 10),
               std::strtoull(argv[7], nullptr, 10), std::strtoull(argv[8], nullptr, 10));
  if (mode == "stages" && argc == 3) return stages(argv[2]);
  if (mode == "universe-csv" && argc == 6)
    return write_universe(argv[2], std::strtoull(argv[3], nullptr, 10),
                          std::strtoull(argv[4], nullptr, 10), std::strtoull(argv[5], nullptr, 10));
  if (mode == "universe" && argc == 9)
    return universe(argv[2], argv[3], std::strtoull(argv[4], nullptr, 10), argv[5],
                    std::strtoull(argv[6], nullptr, 10), std::strtoull(argv[7], nullptr, 10),
                    std::strtoull(argv[8], nullptr, 10));
  std::fprintf(stderr,
               "usage: daemon_latency csv FILE BARS SEED\n"
               "       daemon_latency run FEED PUB SYMBOL STRATEGY FROM COUNT SEED\n"
               "       daemon_latency stages SNAPSHOT\n"
               "       daemon_latency universe-csv DIR SYMBOLS BARS SEED\n"
               "       daemon_latency universe FEED PUB SYMBOLS STRATEGY FROM BATCHES SEED\n");
  return 2;
}
