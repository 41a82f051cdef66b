// A BarKeeper (daemon/core/bar_keeper.hpp) over real bar logs in a temporary directory, with
// what its tests and the tests of the parts above it (signals, runs) need to drive it: a
// disk whose writes and syncs fail on demand (syncs counted, not done), the loop's timers as
// fakes fired by hand, and its events kept as lines in a Journal beside the disk's calls, so
// that the order of "written", "synced" and what follows is read off one list.
#pragma once

#include <array>
#include <cerrno>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/publisher_fakes.hpp"
#include "support/temp_dir.hpp"
#include "wfod/daemon/core/bar_keeper.hpp"
#include "wfod/feeds/bar_codec.hpp"

namespace wfod::test {

// Real files; each write and sync goes to the journal. Writes fail with ENOSPC while `full`,
// syncs with EIO while `sync_fails`; syncs are skipped (the logic under test is ours).
class JournalDisk : public daemon::PosixFileOps {
 public:
  explicit JournalDisk(Journal& journal) : journal_(journal) {}
  bool full = false;
  bool sync_fails = false;
  uint64_t writes = 0;

  ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) override {
    ++writes;
    journal_.push_back(full ? "write refused" : "write");
    if (full) return fail(ENOSPC);
    return PosixFileOps::pwrite(fd, data, size, offset);
  }
  int fdatasync(int) override {
    journal_.push_back(sync_fails ? "fdatasync failed" : "fdatasync");
    return sync_fails ? fail(EIO) : 0;
  }
  int fsync(int) override { return 0; }

 private:
  static int fail(int err) {
    errno = err;
    return -1;
  }
  Journal& journal_;
};

// One loop timer: start() records its delay and callback; fire() runs it as the loop would.
class FakeTimer final : public daemon::LoopTimer {
 public:
  void start(std::chrono::milliseconds after, std::function<void()> fired) override {
    starts.push_back(after);
    pending_ = std::move(fired);
  }
  bool pending() const { return static_cast<bool>(pending_); }
  // Fires the pending expiry (false when none is pending).
  bool fire() {
    if (!pending_) return false;
    auto f = std::move(pending_);
    pending_ = nullptr;
    f();
    return true;
  }
  std::vector<std::chrono::milliseconds> starts;

 private:
  std::function<void()> pending_;
};

// The keeper's events as journal lines; `committed` and `synced` also run the hooks a test
// sets (the parts above the keeper: runs, signals). "committed S0 3 durable=3": the bars the
// streams hear of, and how many of the symbol's bars were durable at that moment.
class KeeperRecorder final : public daemon::BarKeeperEvents {
 public:
  explicit KeeperRecorder(Journal& journal) : journal_(journal) {}
  void log_failing(const daemon::SymbolState& sym, const IoError&) override {
    journal_.push_back("failing " + sym.cfg.name);
  }
  void log_recovered(const daemon::SymbolState& sym) override {
    journal_.push_back("recovered " + sym.cfg.name);
  }
  void sync_failed(const IoError&) override { journal_.push_back("sync failed"); }
  void file_lost(const daemon::SymbolState& sym, const IoError&) override {
    journal_.push_back("lost " + sym.cfg.name);
  }
  void file_back(const daemon::SymbolState& sym) override {
    journal_.push_back("back " + sym.cfg.name);
  }
  void committed(daemon::SymbolState& sym, size_t bars) override {
    journal_.push_back("committed " + sym.cfg.name + " " + std::to_string(bars) +
                       " durable=" + std::to_string(keeper->durable_bars(sym)));
    if (on_committed) on_committed(sym, bars);
  }
  void synced() override {
    journal_.push_back("synced");
    if (on_synced) on_synced();
  }

  const daemon::BarKeeper* keeper = nullptr;
  std::function<void(daemon::SymbolState&, size_t)> on_committed;
  std::function<void()> on_synced;

 private:
  Journal& journal_;
};

// `n` symbols S0, S1, ... with empty logs under one fsync policy. The stores' batch clock is
// frozen: under fsync = batch a commit never finds a log due, so only the sync timer syncs.
struct KeeperRig {
  explicit KeeperRig(size_t n, config::FsyncPolicy fsync, size_t max_pending = 1'000'000)
      : dir("wfod_keeper") {
    recorder.keeper = &keeper;
    for (size_t i = 0; i < n; ++i) {
      daemon::BarStoreOptions o;
      o.fsync = fsync;
      o.ops = &disk;
      o.max_pending = max_pending;
      o.clock = [] { return std::chrono::steady_clock::time_point{}; };
      std::string name = "S";  // not "S" + ...: GCC 12 -Wrestrict false positive
      name += std::to_string(i);
      auto opened = daemon::BarStore::open(dir.path(), name, o);
      EXPECT_TRUE(opened.ok());
      daemon::SymbolState st;
      st.cfg.name = name;
      st.store.emplace(std::move(opened.value().store));
      keeper.add(std::move(st));
    }
    keeper.start(fsync);
    journal.clear();  // the logs' headers
  }

  // One feed message with `b` for `symbol`, as a feed batch's on_message.
  daemon::IngestOutcome send(const std::string& symbol, const Bar& b) {
    const std::string topic = feeds::encode_topic(symbol);
    const std::string payload = feeds::encode_binary(b);
    const std::array<std::string_view, 2> frames = {topic, payload};
    return keeper.on_message(frames, feeds::PayloadFormat::binary);
  }
  // Bars with ts from..to (inclusive) for `symbol`, then the batch's commit.
  void batch(const std::string& symbol, int64_t from, int64_t to) {
    for (int64_t t = from; t <= to; ++t) EXPECT_TRUE(send(symbol, bar(t)).accepted());
    keeper.commit();
  }
  // Bars [first, end) of `s` for `symbol`, then the batch's commit.
  void feed(const std::string& symbol, const Series& s, size_t first, size_t end) {
    for (size_t t = first; t < end; ++t)
      EXPECT_TRUE(
          send(symbol, Bar{s.ts_ns[t], s.open[t], s.high[t], s.low[t], s.close[t], s.volume[t], 0})
              .accepted());
    keeper.commit();
  }
  static Bar bar(int64_t ts) {
    return Bar{ts, 10.0 + static_cast<double>(ts % 7), 20, 5, 10.5, 100, 0};
  }
  daemon::SymbolState& sym(const std::string& name) { return keeper.at(name); }

  TempDir dir;
  Journal journal;
  JournalDisk disk{journal};
  KeeperRecorder recorder{journal};
  FakeTimer sync_timer, group_timer;
  daemon::BarKeeper keeper{recorder, sync_timer, group_timer};
};

}  // namespace wfod::test
