// StreamSlot (the daemon's per-stream optimisation state): every run equals a fresh sweep
// of the same window as the history grows, a backend change reopens the stream, a stream
// opened when memory holds only a tail reads the rest from the bar log, positions equal the
// backend's, and a checkpoint restores a stream whose runs are bit-identical.
#include "wfod/daemon/stream_slot.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/temp_dir.hpp"
#include "wfod/daemon/bar_store.hpp"

namespace wfod::daemon {
namespace {

SweepRequest request_for(const Series& s, size_t end) {
  SweepRequest r;
  r.history = HistoryView::of(s).prefix(end);
  Grid& g = r.strategy.grid;
  g.fast = {2, 4, 8};
  g.slow = {10, 20, 40};
  g.ma = {MaType::sma, MaType::ema};
  r.window = {end, 150, default_warmup(g)};
  r.rank.top = 5;
  return r;
}

Bar bar_of(const Series& s, size_t t) {
  return Bar{s.ts_ns[t], s.open[t], s.high[t], s.low[t], s.close[t], s.volume[t], 0};
}

// Bars of `s` appended to `h` up to `end`; the snapshot a job would get.
HistorySnapshot grow_to(SymbolHistory& h, const Series& s, size_t end) {
  while (h.size() < end) h.push_back(bar_of(s, h.size()));
  return h.snapshot();
}

TEST(StreamSlot, RunsEqualFreshSweepsAsTheHistoryGrows) {
  const Series s = test::random_walk(800, 21);
  auto cpu = make_backend("cpu");
  StreamSlot slot;
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

TEST(StreamSlot, ABackendChangeReopensTheStream) {
  const Series s = test::random_walk(600, 22);
  auto cpu = make_backend("cpu");
  auto ref = make_backend("cpu_ref");
  StreamSlot slot;
  SymbolHistory h;
  slot.run(*cpu, request_for(s, 500), grow_to(h, s, 500), "");
  const SweepResult got = slot.run(*ref, request_for(s, 520), grow_to(h, s, 520), "");
  EXPECT_TRUE(slot.opened_now());
  EXPECT_FALSE(slot.stats().incremental);  // cpu_ref's default stream re-sweeps
  EXPECT_FALSE(slot.bounded());
  EXPECT_EQ(test::ids_of(got.top), test::ids_of(cpu->sweep(request_for(s, 520)).top));
}

TEST(StreamSlot, AWindowNotEndingAtTheLastBarIsRefused) {
  const Series s = test::random_walk(600, 23);
  auto cpu = make_backend("cpu");
  StreamSlot slot;
  SymbolHistory h;
  EXPECT_THROW(slot.run(*cpu, request_for(s, 500), grow_to(h, s, 600), ""), std::invalid_argument);
}

TEST(StreamSlot, OpensFromTheBarLogWhenMemoryHoldsOnlyATail) {
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
  StreamSlot slot;
  const SweepRequest req = request_for(s, 5000);
  const SweepResult got = slot.run(*cpu, req, snap, store.path());
  EXPECT_TRUE(slot.opened_now());
  const SweepResult want = cpu->sweep(req);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i)
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics));
  // Without the log the same open cannot be done: a clear error, not a wrong result.
  StreamSlot blind;
  EXPECT_THROW(blind.run(*cpu, req, snap, dir.path() + "/missing.wfb"), std::invalid_argument);
}

TEST(StreamSlot, PositionsEqualTheBackendsOnBothKindsOfStream) {
  const Series s = test::random_walk(900, 24);
  for (const char* name : {"cpu", "cpu_ref"}) {
    SCOPED_TRACE(name);
    auto backend = make_backend(name);
    auto cpu = make_backend("cpu");
    StreamSlot slot;
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

TEST(StreamSlot, ACheckpointRestoresAStreamWithBitIdenticalRuns) {
  const Series s = test::random_walk(900, 26);
  auto cpu = make_backend("cpu");
  StreamSlot a;
  SymbolHistory h;
  a.run(*cpu, request_for(s, 500), grow_to(h, s, 500), "");
  const auto blob = a.checkpoint();
  ASSERT_TRUE(blob.has_value());
  StreamSlot b;
  b.restore(*cpu, stream_spec_of(request_for(s, 500)), *blob, 500);
  EXPECT_EQ(b.bars(), 500u);
  EXPECT_THROW(StreamSlot().restore(*cpu, stream_spec_of(request_for(s, 500)), *blob, 499),
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
