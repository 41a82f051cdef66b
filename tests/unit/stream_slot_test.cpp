// StreamSlot (the daemon's per-stream optimisation state): every run equals a fresh sweep
// of the same window, across growing histories, and a backend change reopens the stream.
#include "wfod/daemon/stream_slot.hpp"

#include <gtest/gtest.h>

#include "support/compare.hpp"
#include "support/series.hpp"

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

TEST(StreamSlot, RunsEqualFreshSweepsAsTheHistoryGrows) {
  const Series s = test::random_walk(800, 21);
  auto cpu = make_backend("cpu");
  StreamSlot slot;
  bool opened = false;
  for (size_t end = 400; end <= 800; end += 37) {
    const SweepRequest req = request_for(s, end);
    const SweepResult got = slot.run(*cpu, req);
    EXPECT_EQ(slot.opened_now(), !opened) << "end=" << end;
    opened = true;
    const SweepResult want = cpu->sweep(req);
    ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top)) << "end=" << end;
    for (size_t i = 0; i < want.top.size(); ++i)
      EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics));
  }
  EXPECT_TRUE(slot.stats().incremental);
  EXPECT_TRUE(slot.fallback_reason().empty());
}

TEST(StreamSlot, ABackendChangeReopensTheStream) {
  const Series s = test::random_walk(600, 22);
  auto cpu = make_backend("cpu");
  auto ref = make_backend("cpu_ref");
  StreamSlot slot;
  slot.run(*cpu, request_for(s, 500));
  const SweepResult got = slot.run(*ref, request_for(s, 520));
  EXPECT_TRUE(slot.opened_now());
  EXPECT_FALSE(slot.stats().incremental);  // cpu_ref's default stream re-sweeps
  EXPECT_EQ(test::ids_of(got.top), test::ids_of(cpu->sweep(request_for(s, 520)).top));
}

TEST(StreamSlot, AWindowNotEndingAtTheLastBarIsRefused) {
  const Series s = test::random_walk(600, 23);
  auto cpu = make_backend("cpu");
  StreamSlot slot;
  SweepRequest req = request_for(s, 500);
  req.history = HistoryView::of(s);
  EXPECT_THROW(slot.run(*cpu, req), std::invalid_argument);
}

}  // namespace
}  // namespace wfod::daemon

namespace wfod::daemon {
namespace {

TEST(StreamSlot, PositionsEqualTheBackendsAcrossGrowthAndCombos) {
  const Series s = test::random_walk(700, 24);
  auto cpu = make_backend("cpu");
  StreamSlot slot;
  const SweepRequest base = request_for(s, 700);
  const Grid& g = base.strategy.grid;
  // Four combos in turn (more than the slot tracks at once), the history growing.
  const uint64_t ids[] = {0, 5, 0, 9, 13, 5, 0};
  size_t end = 300;
  for (uint64_t id : ids) {
    const Combo c = g.decode(id);
    const HistoryView h = HistoryView::of(s).prefix(end);
    EXPECT_EQ(slot.positions(h, base.strategy, c), cpu->positions(h, base.strategy, c))
        << "id " << id << " end " << end;
    end += 57;
  }
}

}  // namespace
}  // namespace wfod::daemon
