// Feed ingest benchmark (the daemon feed path): the daemon's own Ingest (decode ->
// validate -> stage in the bar log -> one write per touched log and one sync pass per
// event-loop batch of kMaxIngestBatch messages) on one thread, JSON and binary payloads
// pre-encoded from a synthetic series, 1 symbol and 1,000 symbols round-robin, each fsync
// policy. Every bar is written (and synced per policy) inside the timed region. One table.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/config/config.hpp"
#include "wfod/daemon/core/ingest.hpp"
#include "wfod/daemon/store/bar_store.hpp"
#include "wfod/feeds/bar_codec.hpp"

namespace {

namespace fs = std::filesystem;
using wfod::Bar;
using wfod::config::FsyncPolicy;
using wfod::daemon::BarStore;
using wfod::daemon::BarStoreOptions;
using wfod::daemon::Ingest;
using wfod::daemon::IngestCommit;
using wfod::daemon::IngestTarget;
using wfod::daemon::IngestTouched;
using wfod::feeds::PayloadFormat;

struct Message {
  std::string topic;
  std::string payload;
};

// A random-walk OHLC series, `bars` long in total, spread round-robin over `symbols`;
// each symbol's ts strictly increase (one minute apart per round).
std::vector<Message> make_messages(size_t bars, const std::vector<std::string>& symbols,
                                   PayloadFormat format) {
  std::vector<Message> out;
  out.reserve(bars);
  std::vector<std::string> topics;
  for (const auto& s : symbols) topics.push_back(wfod::feeds::encode_topic(s));
  double price = 100.0;
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (size_t i = 0; i < bars; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double step = (static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5) * 0.02;
    const double open = price;
    price = std::max(1.0, price * (1.0 + step));
    Bar b;
    b.ts_ns =
        1'600'000'000'000'000'000LL + static_cast<int64_t>(i / symbols.size()) * 60'000'000'000LL;
    b.open = open;
    b.close = price;
    b.high = std::max(open, price) * 1.001;
    b.low = std::min(open, price) * 0.999;
    b.volume = 1000.0 + static_cast<double>(i % 97);
    b.seq = i / symbols.size() + 1;
    const size_t s = i % symbols.size();
    out.push_back({topics[s], format == PayloadFormat::json ? wfod::feeds::encode_json(b)
                                                            : wfod::feeds::encode_binary(b)});
  }
  return out;
}

const char* fsync_name(FsyncPolicy p) {
  return p == FsyncPolicy::none ? "none" : p == FsyncPolicy::batch ? "batch" : "every";
}

// One timed pass over `messages` into a fresh state dir, committed every kMaxIngestBatch
// messages as the daemon's loop does; seconds, or a negative on error.
double run_once(const std::vector<Message>& messages, const std::vector<std::string>& symbols,
                PayloadFormat format, FsyncPolicy fsync, const fs::path& dir, uint64_t* syncs) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  BarStoreOptions options;
  options.fsync = fsync;
  std::vector<std::unique_ptr<BarStore>> stores;
  std::vector<wfod::daemon::SymbolHistory> series(symbols.size());
  std::vector<IngestTarget> targets;
  stores.reserve(symbols.size());
  for (size_t i = 0; i < symbols.size(); ++i) {
    auto opened = BarStore::open(dir.string(), symbols[i], options);
    if (!opened.ok()) {
      std::fprintf(stderr, "open %s: %s\n", symbols[i].c_str(), opened.error().message.c_str());
      return -1;
    }
    stores.push_back(std::make_unique<BarStore>(std::move(opened.value().store)));
    targets.push_back({symbols[i], stores.back().get(), &series[i]});
  }
  Ingest ingest(std::move(targets), fsync);
  size_t accepted = 0, in_batch = 0;
  bool failed = false;
  auto commit = [&] {
    const IngestCommit c = ingest.commit();
    for (const IngestTouched& t : c.touched) accepted += t.bars;
    failed = failed || !c.failed.empty();
    in_batch = 0;
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& m : messages) {
    const std::array<std::string_view, 2> frames = {m.topic, m.payload};
    if (!ingest.on_message(frames, format).accepted()) return -1;
    if (++in_batch == wfod::daemon::kMaxIngestBatch) commit();
  }
  commit();
  if (!ingest.sync_all().ok()) return -1;  // the batch timer's pass: nothing left unsynced
  const auto t1 = std::chrono::steady_clock::now();
  if (failed || accepted != messages.size()) return -1;
  *syncs = ingest.syncfs_calls();
  for (const auto& s : stores) *syncs += s->stats().fdatasyncs;
  return std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  size_t bars = 200'000;
  if (argc > 1) bars = static_cast<size_t>(std::strtoull(argv[1], nullptr, 10));
  constexpr int kRuns = 5;
  const fs::path base = fs::temp_directory_path() /
                        (std::string("wfod_ingest_bench.").append(std::to_string(::getpid())));
  std::printf("%-7s %8s %6s %9s %9s %12s %7s\n", "format", "symbols", "fsync", "bars", "seconds",
              "bars/s", "syncs");
  int rc = 0;
  for (const PayloadFormat format : {PayloadFormat::binary, PayloadFormat::json}) {
    for (const size_t nsym : {size_t{1}, size_t{1000}}) {
      std::vector<std::string> symbols;
      for (size_t i = 0; i < nsym; ++i) {
        std::string name = "S";  // not "S" + ...: GCC 12 -Wrestrict false positive
        name += std::to_string(i);
        symbols.push_back(std::move(name));
      }
      const auto messages = make_messages(bars, symbols, format);
      for (const FsyncPolicy fsync : {FsyncPolicy::none, FsyncPolicy::batch, FsyncPolicy::every}) {
        std::vector<double> secs;
        uint64_t syncs = 0;
        for (int r = 0; r < kRuns; ++r) {
          const double s = run_once(messages, symbols, format, fsync, base / "state", &syncs);
          if (s < 0) {
            std::fprintf(stderr, "run failed\n");
            rc = 1;
            break;
          }
          secs.push_back(s);
        }
        if (secs.empty()) continue;
        std::sort(secs.begin(), secs.end());
        const double med = secs[secs.size() / 2];
        std::printf("%-7s %8zu %6s %9zu %9.4f %12.0f %7llu\n",
                    format == PayloadFormat::json ? "json" : "binary", nsym, fsync_name(fsync),
                    bars, med, static_cast<double>(bars) / med,
                    static_cast<unsigned long long>(syncs));
        std::fflush(stdout);
      }
    }
  }
  fs::remove_all(base);
  return rc;
}
