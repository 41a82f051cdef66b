// EngineSlot (the daemon's per-stream optimisation state): every run equals a fresh sweep
// of the same window as the history grows, a backend change reopens the stream, a stream
// opened when memory holds only a tail reads the rest from the bar log, so does a stream that
// lags further than memory holds (without reopening), positions equal the backend's, and a
// checkpoint restores a stream whose runs are bit-identical.
#include "wfod/daemon/core/engine_slot.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "support/temp_dir.hpp"
#include "wfod/daemon/store/bar_store.hpp"

namespace wfod::daemon {
namespace {

SweepRequest request_for(const Series& s, size_t end) { return test::engine_slot_request(s, end); }
Bar bar_of(const Series& s, size_t t) { return test::bar_at(s, t); }

// Bars of `s` appended to `h` up to `end`; the snapshot a job would get.
HistorySnapshot grow_to(SymbolHistory& h, const Series& s, size_t end) {
  while (h.size() < end) h.push_back(bar_of(s, h.size()));
  return h.snapshot();
}

TEST(EngineSlot, RunsEqualFreshSweepsAsTheHistoryGrows) {
  const Series s = test::random_walk(800, 21);
  auto cpu = make_backend("cpu");
  EngineSlot slot;
  SymbolHistory h;
  bool opened = false;
  for (size_t end = 400; end <= 800; end += 37) {
    const SweepRequest req = request_for(s, end);
    const SweepResult got = slot.run(*cpu, req, grow_to(h, s, end), "");
    EXPECT_EQ(slot.opened_now(), !opened) << "end=" << end;
    opened = true;
    const SweepResult want = cpu->sweep(req);
    ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top)) << "end=" << end;
    for (size_t i = 0; i < want.top.size(); ++i)
      EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics));
  }
  EXPECT_TRUE(slot.stats().incremental);
  EXPECT_TRUE(slot.bounded());
  EXPECT_TRUE(slot.fallback_reason().empty());
}

// The cpu backend as if it ran on a device: its streams are bounded, runs_on_device() is true.
class DeviceLike final : public Backend {
 public:
  std::string_view name() const override { return "device-like"; }
  SweepResult sweep(const SweepRequest& r) override { return cpu_->sweep(r); }
  std::vector<Metrics> evaluate(const SweepRequest& r, std::span<const uint64_t> ids) override {
    return cpu_->evaluate(r, ids);
  }
  std::vector<Summary> block_summaries(const SweepRequest& r,
                                       std::span<const size_t> cuts) override {
    return cpu_->block_summaries(r, cuts);
  }
  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& s,
                                const Combo& c) override {
    return cpu_->positions(h, s, c);
  }
  std::unique_ptr<Stream> open_stream(const StreamSpec& spec, const HistoryView& h) override {
    return cpu_->open_stream(spec, h);
  }
  bool streams_bounded() const override { return true; }
  bool runs_on_device() const override { return true; }

 private:
  std::unique_ptr<Backend> cpu_ = make_backend("cpu");
};

// A bounded stream answers robust selection from its own window on a device too (a cuda
// stream makes the block Summaries there): it keeps no history from the anchor for it and
// writes checkpoints (issue 43 item 10; before, such a stream stayed unbounded).
TEST(EngineSlot, RobustSelectionOnADeviceStaysBounded) {
  const Series s = test::random_walk(600, 23);
  DeviceLike device;
  EngineSlot slot;
  SymbolHistory h;
  slot.run(device, request_for(s, 500), grow_to(h, s, 500), "");
  EXPECT_TRUE(slot.bounded());
  EXPECT_NE(slot.window_source(), nullptr);
  EXPECT_TRUE(slot.checkpoint().has_value());
}

TEST(EngineSlot, ABackendChangeReopensTheStream) {
  const Series s = test::random_walk(600, 22);
  auto cpu = make_backend("cpu");
  auto ref = make_backend("cpu_ref");
  EngineSlot slot;
  SymbolHistory h;
  slot.run(*cpu, request_for(s, 500), grow_to(h, s, 500), "");
  const SweepResult got = slot.run(*ref, request_for(s, 520), grow_to(h, s, 520), "");
  EXPECT_TRUE(slot.opened_now());
  EXPECT_FALSE(slot.stats().incremental);  // cpu_ref's default stream re-sweeps
  EXPECT_FALSE(slot.bounded());
  EXPECT_EQ(test::ids_of(got.top), test::ids_of(cpu->sweep(request_for(s, 520)).top));
}

TEST(EngineSlot, AWindowNotEndingAtTheLastBarIsRefused) {
  const Series s = test::random_walk(600, 23);
  auto cpu = make_backend("cpu");
  EngineSlot slot;
  SymbolHistory h;
  EXPECT_THROW(slot.run(*cpu, request_for(s, 500), grow_to(h, s, 600), ""), std::invalid_argument);
}

TEST(EngineSlot, OpensFromTheBarLogWhenMemoryHoldsOnlyATail) {
  const Series s = test::random_walk(5000, 25);
  test::TempDir dir("wfod_slot");
  auto opened = BarStore::open(dir.path(), "X");
  ASSERT_TRUE(opened.ok());
  BarStore& store = opened.value().store;
  SymbolHistory h;
  h.set_keep(300);
  for (size_t t = 0; t < s.size(); ++t) {
    ASSERT_TRUE(store.append(bar_of(s, t)).ok());
    h.push_back(bar_of(s, t));
    h.set_needed_from(h.size());
  }
  ASSERT_TRUE(store.flush().ok());
  const HistorySnapshot snap = h.snapshot();
  ASSERT_GT(snap.from(), 0u);  // the anchor is no longer in memory
  auto cpu = make_backend("cpu");
  EngineSlot slot;
  const SweepRequest req = request_for(s, 5000);
  const SweepResult got = slot.run(*cpu, req, snap, store.path());
  EXPECT_TRUE(slot.opened_now());
  const SweepResult want = cpu->sweep(req);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i)
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics));
  // Without the log the same open cannot be done: a clear error, not a wrong result.
  EngineSlot blind;
  EXPECT_THROW(blind.run(*cpu, req, snap, dir.path() + "/missing.wfb"), std::invalid_argument);
}

// A stream that lags further than memory holds (the feed outran the optimiser and the
// history dropped bars it had not taken) catches up from the bar log without reopening, and
// a warmed tracker follows it bar for bar.
TEST(EngineSlot, ALaggingStreamCatchesUpFromTheBarLog) {
  const Series s = test::random_walk(5000, 26);
  test::TempDir dir("wfod_slot_lag");
  auto opened = BarStore::open(dir.path(), "X");
  ASSERT_TRUE(opened.ok());
  BarStore& store = opened.value().store;
  auto cpu = make_backend("cpu");
  EngineSlot slot;
  SymbolHistory h;
  h.set_keep(300);
  auto append_to = [&](size_t end) {
    while (h.size() < end) {
      ASSERT_TRUE(store.append(bar_of(s, h.size())).ok());
      h.push_back(bar_of(s, h.size()));
      h.set_needed_from(h.size());
    }
    ASSERT_TRUE(store.flush().ok());
  };
  append_to(400);
  slot.run(*cpu, request_for(s, 400), h.snapshot(), store.path());
  const Combo c = request_for(s, 400).strategy.grid.decode(7);
  slot.warm(c, h.snapshot());
  append_to(5000);
  const HistorySnapshot snap = h.snapshot();
  ASSERT_GT(snap.from(), 400u);  // memory no longer holds the bars the stream has not taken
  const SweepRequest req = request_for(s, 5000);
  const SweepResult got = slot.run(*cpu, req, snap, store.path());
  EXPECT_FALSE(slot.opened_now());
  EXPECT_EQ(slot.bars(), 5000u);
  const SweepResult want = cpu->sweep(req);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i)
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics));
  const std::vector<int8_t> all = cpu->positions(req.history, req.strategy, c);
  EXPECT_EQ(slot.positions(c, 400, snap), std::vector<int8_t>(all.begin() + 400, all.end()));
  // The bars it missed must come from somewhere: without the log, a clear error.
  EngineSlot blind;
  SymbolHistory whole;
  blind.run(*cpu, request_for(s, 400), grow_to(whole, s, 400), "");
  EXPECT_THROW(blind.run(*cpu, req, snap, dir.path() + "/missing.wfb"), std::invalid_argument);
}

// More new bars than one batch (a long lag held in memory) go through in batches, with the
// same result as a fresh sweep.
TEST(EngineSlot, AVeryLongRunOfNewBarsGoesInBatches) {
  const Series s = test::random_walk(70'000, 27);
  auto cpu = make_backend("cpu");
  EngineSlot slot;
  SymbolHistory h;
  slot.run(*cpu, request_for(s, 400), grow_to(h, s, 400), "");
  const Combo c = request_for(s, 400).strategy.grid.decode(3);
  slot.warm(c, h.snapshot());
  const HistorySnapshot snap = grow_to(h, s, 70'000);
  const SweepRequest req = request_for(s, 70'000);
  const SweepResult got = slot.run(*cpu, req, snap, "");
  EXPECT_FALSE(slot.opened_now());
  const SweepResult want = cpu->sweep(req);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i)
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics));
  const std::vector<int8_t> all = cpu->positions(req.history, req.strategy, c);
  EXPECT_EQ(slot.positions(c, 69'000, snap), std::vector<int8_t>(all.begin() + 69'000, all.end()));
}

TEST(EngineSlot, PositionsEqualTheBackendsOnBothKindsOfStream) {
  const Series s = test::random_walk(900, 24);
  for (const char* name : {"cpu", "cpu_ref"}) {
    SCOPED_TRACE(name);
    auto backend = make_backend(name);
    auto cpu = make_backend("cpu");
    EngineSlot slot;
    SymbolHistory h;
    const Grid& g = request_for(s, 900).strategy.grid;
    // Four combos in turn (more than the slot tracks at once), the history growing.
    const uint64_t ids[] = {0, 5, 0, 9, 13, 5, 0};
    size_t end = 400;
    for (uint64_t id : ids) {
      const HistorySnapshot snap = grow_to(h, s, end);
      const SweepRequest req = request_for(s, end);
      slot.run(*backend, req, snap, "");
      const Combo c = g.decode(id);
      const std::vector<int8_t> all = cpu->positions(req.history, req.strategy, c);
      const size_t first = end - 120;
      EXPECT_EQ(slot.positions(c, first, snap),
                std::vector<int8_t>(all.begin() + static_cast<long>(first), all.end()))
          << "id " << id << " end " << end;
      slot.warm(c, snap);
      end += 57;
    }
  }
}

// follow() (the tracker the worker hands the loop for signals): at the newest bar, p_{end-1}
// as its last, and it goes on exactly, whether forked from a tracked combo, seeded from a
// bounded stream or replayed from the anchor (cpu_ref's re-sweeping stream).
TEST(EngineSlot, FollowGivesAnIndependentTrackerAtTheNewestBar) {
  const Series s = test::random_walk(900, 27);
  for (const char* name : {"cpu", "cpu_ref"}) {
    SCOPED_TRACE(name);
    auto backend = make_backend(name);
    auto cpu = make_backend("cpu");
    EngineSlot slot;
    SymbolHistory h;
    const Grid& g = request_for(s, 900).strategy.grid;
    const SweepRequest all = request_for(s, 900);
    size_t end = 400;
    for (uint64_t id : {3, 3, 11, 0}) {
      const HistorySnapshot snap = grow_to(h, s, end);
      slot.run(*backend, request_for(s, end), snap, "");
      const Combo c = g.decode(id);
      if (id == 11) slot.warm(c, snap);  // tracked: forked
      PositionTracker t = slot.follow(c, snap, 4);
      const std::vector<int8_t> want = cpu->positions(all.history, all.strategy, c);
      ASSERT_EQ(t.bars(), end);
      EXPECT_EQ(t.last(), want[end - 1]) << "id " << id << " end " << end;
      std::vector<Bar> more;
      for (size_t i = end; i < end + 60; ++i) more.push_back(bar_of(s, i));
      t.append(more);
      EXPECT_EQ(t.positions(end - 1, end + 60),
                std::vector<int8_t>(want.begin() + static_cast<long>(end - 1),
                                    want.begin() + static_cast<long>(end + 60)))
          << "id " << id << " end " << end;
      end += 73;
    }
  }
}

TEST(EngineSlot, ACheckpointRestoresAStreamWithBitIdenticalRuns) {
  const Series s = test::random_walk(900, 26);
  auto cpu = make_backend("cpu");
  EngineSlot a;
  SymbolHistory h;
  a.run(*cpu, request_for(s, 500), grow_to(h, s, 500), "");
  const auto blob = a.checkpoint();
  ASSERT_TRUE(blob.has_value());
  EngineSlot b;
  b.restore(*cpu, stream_spec_of(request_for(s, 500)), *blob, 500);
  EXPECT_EQ(b.bars(), 500u);
  EXPECT_THROW(EngineSlot().restore(*cpu, stream_spec_of(request_for(s, 500)), *blob, 499),
               std::invalid_argument);
  for (size_t end = 530; end <= 900; end += 41) {
    const HistorySnapshot snap = grow_to(h, s, end);
    const SweepResult ra = a.run(*cpu, request_for(s, end), snap, "");
    const SweepResult rb = b.run(*cpu, request_for(s, end), snap, "");
    EXPECT_FALSE(b.opened_now());
    ASSERT_EQ(test::ids_of(ra.top), test::ids_of(rb.top)) << end;
    for (size_t i = 0; i < ra.top.size(); ++i)
      EXPECT_EQ(std::memcmp(&ra.top[i].metrics, &rb.top[i].metrics, sizeof(Metrics)), 0) << end;
  }
}

}  // namespace
}  // namespace wfod::daemon
