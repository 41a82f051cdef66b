// SymbolHistory: bounded memory whatever the uptime, stable snapshots while the loop appends,
// readers' needs honoured over the keep bound up to a limit, and bars not in the log kept.
#include "wfod/daemon/store/symbol_history.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace wfod::daemon {
namespace {

Bar bar_at(size_t t) {
  const double p = 100.0 + static_cast<double>(t % 1000);
  return Bar{static_cast<int64_t>(t + 1) * 60'000'000'000,
             p,
             p + 1,
             p - 1,
             p + 0.5,
             static_cast<double>(t),
             0};
}

TEST(SymbolHistory, KeepsEverythingByDefault) {
  SymbolHistory h;
  for (size_t t = 0; t < 20'000; ++t) h.push_back(bar_at(t));
  EXPECT_EQ(h.size(), 20'000u);
  EXPECT_EQ(h.base(), 0u);
  const HistorySnapshot s = h.snapshot();
  const HistoryView v = s.view();
  ASSERT_EQ(v.size(), 20'000u);
  for (size_t t = 0; t < v.size(); t += 997) EXPECT_EQ(v.close[t], bar_at(t).close);
}

TEST(SymbolHistory, MemoryIsBoundedByKeepNotByBars) {
  SymbolHistory h;
  h.set_keep(3'000);
  size_t worst = 0;
  for (size_t t = 0; t < 1'000'000; ++t) {
    h.push_back(bar_at(t));
    h.set_needed_from(h.size());
    worst = std::max(worst, h.footprint_bytes());
    ASSERT_GE(h.size() - h.base(), std::min<size_t>(h.size(), 3'000));
  }
  EXPECT_EQ(h.size(), 1'000'000u);
  // One block of at most twice the kept bars (6 columns of 8 bytes).
  EXPECT_LE(worst, 2u * 3'000 * 48);
  const HistoryView v = h.snapshot().view(h.size() - 3'000);
  for (size_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(v.ts_ns[i], bar_at(h.size() - 3'000 + i).ts_ns) << i;
}

// A reader that lags (its need stays at an old bar while the feed runs on) holds memory
// only up to the limit, measured from the newest bar; bars not yet durable stay regardless.
TEST(SymbolHistory, TheLimitBoundsAStaleNeedButNeverDropsWhatIsNotInTheLog) {
  SymbolHistory h;
  h.set_keep(1'000);
  h.set_limit(5'000);
  h.set_needed_from(0);  // a stream that never finishes a run
  size_t worst = 0;
  for (size_t t = 0; t < 300'000; ++t) {
    h.push_back(bar_at(t));
    h.set_durable(h.size());
    worst = std::max(worst, h.footprint_bytes());
    ASSERT_GE(h.size() - h.base(), std::min<size_t>(h.size(), 1'000));
  }
  EXPECT_GT(h.base(), 0u);
  EXPECT_LE(worst, 2u * 5'000 * 48);
  // The log stops taking bars (a full disk): nothing after its end is dropped.
  const size_t durable = h.size();
  h.set_durable(durable);
  for (size_t t = 300'000; t < 320'000; ++t) h.push_back(bar_at(t));
  EXPECT_LE(h.base(), durable);
  const HistoryView v = h.snapshot().view(durable);
  ASSERT_EQ(v.size(), 20'000u);
  for (size_t i = 0; i < v.size(); i += 999) EXPECT_EQ(v.ts_ns[i], bar_at(durable + i).ts_ns);
}

TEST(SymbolHistory, ReadersNeedOverridesKeep) {
  SymbolHistory h;
  h.set_keep(100);
  h.set_needed_from(0);  // a stream has taken nothing yet
  for (size_t t = 0; t < 50'000; ++t) h.push_back(bar_at(t));
  EXPECT_EQ(h.base(), 0u);  // nothing dropped that a reader still needs
  h.set_needed_from(40'000);
  for (size_t t = 50'000; t < 200'000; ++t) h.push_back(bar_at(t));
  EXPECT_LE(h.base(), 40'000u);
  // Once nothing older is needed, the next block turnovers shrink back to the keep bound
  // (a block is trimmed when it is full, so within two blocks' worth of bars).
  h.set_needed_from(h.size());
  for (size_t t = 200'000; t < 700'000; ++t) {
    h.push_back(bar_at(t));
    h.set_needed_from(h.size());
  }
  EXPECT_GE(h.base(), 700'000u - 4096);
  EXPECT_LE(h.footprint_bytes(), 4096u * 48);
  EXPECT_EQ(h.bar(h.size() - 1).close, bar_at(699'999).close);
}

TEST(SymbolHistory, SnapshotStaysValidWhileTheLoopAppendsAndTrims) {
  SymbolHistory h;
  h.set_keep(500);
  for (size_t t = 0; t < 1'000; ++t) h.push_back(bar_at(t));
  h.set_needed_from(h.size());
  const HistorySnapshot s = h.snapshot();
  const size_t first = s.from();
  // A reader on another thread reads its bars while the writer appends far past them,
  // replacing blocks several times.
  std::thread reader([&] {
    for (int round = 0; round < 200; ++round) {
      const HistoryView v = s.view(first);
      for (size_t i = 0; i < v.size(); ++i)
        ASSERT_EQ(v.close[i], bar_at(first + i).close) << "round " << round << " bar " << i;
    }
  });
  for (size_t t = 1'000; t < 100'000; ++t) {
    h.push_back(bar_at(t));
    h.set_needed_from(h.size());
  }
  reader.join();
  EXPECT_GT(h.base(), first);
  EXPECT_EQ(s.end, 1'000u);
}

TEST(SymbolHistory, StartAtContinuesAnAbsoluteIndex) {
  SymbolHistory h;
  h.set_keep(10);
  h.start_at(5'000);
  EXPECT_EQ(h.size(), 5'000u);
  h.push_back(bar_at(5'000));
  EXPECT_EQ(h.size(), 5'001u);
  EXPECT_EQ(h.bar(5'000).ts_ns, bar_at(5'000).ts_ns);
  EXPECT_THROW((void)h.snapshot().view(4'999), std::out_of_range);
}

}  // namespace
}  // namespace wfod::daemon
