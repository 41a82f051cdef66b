// Bounded streams: a cpu stream advanced through 120k bars keeps a flat memory footprint
// (bars, indicator values and caches bounded by the window, not by the bars advanced
// through) and still returns what a fresh sweep over the whole history from the anchor
// returns, whether the bars come in small batches, in one large batch, or at open.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

constexpr size_t kBars = 120'000;
constexpr size_t kWindow = 500;

// Every indicator kind: SMA, EMA, WMA, HMA with both entries and sides, or both channel
// sources, each with the vol filter; spikes make some windows' equity reach zero.
struct Case {
  const char* name;
  StreamSpec spec;
  Series series;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"ma_all_kinds",
                 test::bounded_spec(test::small_ma_grid(), kWindow, Fill::next_open),
                 test::spike_series(kBars, 3, {20'000, 61'000, 99'500}, 2.6)});
  out.push_back({"channel", test::bounded_spec(test::small_channel_grid(), kWindow, Fill::close),
                 test::spike_series(kBars, 4, {45'000, 100'200}, 2.6)});
  return out;
}

SweepResult fresh_sweep(Backend& b, const StreamSpec& spec, const Series& s, size_t end) {
  SweepRequest req;
  req.history = HistoryView::of(s).prefix(end);
  req.strategy = spec.strategy;
  req.window = {end, spec.window, spec.warmup};
  req.rank = spec.rank;
  return b.sweep(req);
}

TEST(StreamBounded, FootprintStaysFlatAndResultsEqualFreshSweeps) {
  auto cpu = make_backend("cpu");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto stream = cpu->open_stream(c.spec, HistoryView::of(c.series).prefix(0));
    std::mt19937_64 rng(17);
    std::uniform_int_distribution<size_t> batch(1, 120);
    const size_t need = c.spec.warmup + c.spec.window + 1;
    size_t end = 0, next_check = 2 * need, checked = 0;
    size_t early_max = 0, late_max = 0;  // footprint over [5 W, 30k) and [30k, end]
    while (end < kBars) {
      const size_t k = std::min(batch(rng), kBars - end);
      const std::vector<Bar> bars = test::bars_of(c.series, end, end + k);
      end += k;
      if (end < need) {
        EXPECT_THROW(stream->advance(bars), std::invalid_argument);
        continue;
      }
      const SweepResult got = stream->advance(bars);
      const StreamStats st = stream->stats();
      ASSERT_EQ(st.bars, end);
      EXPECT_LE(stream->horizon(), end - c.spec.window - st.chunk);
      EXPECT_GE(stream->horizon() + c.spec.window + 4 * st.chunk, end);
      if (end >= 5 * kWindow && end < 30'000) early_max = std::max(early_max, st.footprint_bytes);
      if (end >= 30'000) late_max = std::max(late_max, st.footprint_bytes);
      if (end >= next_check) {
        SCOPED_TRACE("end=" + std::to_string(end));
        test::expect_same_result(got, fresh_sweep(*cpu, c.spec, c.series, end));
        if (::testing::Test::HasFatalFailure()) return;
        ++checked;
        next_check = end * 3 / 2;
      }
    }
    EXPECT_GE(checked, 8u);
    std::printf("[ BOUNDED  ] %s: footprint %zu bytes over [5W, 30k), %zu over [30k, %zu]\n",
                c.name, early_max, late_max, kBars);
    // Flat: capacities settle within the first windows; what still moves is data-dependent
    // (a Donchian deque's length, a re-layout meeting a larger batch), a few KB. Growing with
    // the bars would add ~90k x (bars + indicator rows) x 8 bytes, megabytes, here.
    EXPECT_GT(early_max, 0u);
    EXPECT_LE(late_max, early_max + early_max / 50)
        << "the footprint grew with the bars advanced through";
  }
}

// One advance of 100k bars (a restart replaying its bar log) and an open on the whole
// history: the same result as a fresh sweep, and storage for a slice, not for the batch.
TEST(StreamBounded, LargeBatchesAndLongOpensStayBounded) {
  auto cpu = make_backend("cpu");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const size_t start = kBars - 100'000;
    auto stream = cpu->open_stream(c.spec, HistoryView::of(c.series).prefix(start));
    const size_t after_open = stream->stats().footprint_bytes;
    const SweepResult got = stream->advance(test::bars_of(c.series, start, kBars));
    const SweepResult want = fresh_sweep(*cpu, c.spec, c.series, kBars);
    test::expect_same_result(got, want);
    const size_t after_batch = stream->stats().footprint_bytes;

    auto opened = cpu->open_stream(c.spec, HistoryView::of(c.series));
    test::expect_same_result(opened->advance({}), want);
    const size_t after_long_open = opened->stats().footprint_bytes;
    std::printf(
        "[ BOUNDED  ] %s: footprint %zu after opening on %zu bars, %zu after 100k more "
        "in one advance, %zu after opening on all %zu\n",
        c.name, after_open, start, after_batch, after_long_open, kBars);
    // 100k bars of the history alone (ts, OHLC) would take 4 MB; the stream holds a slice.
    EXPECT_LT(after_batch, 2 * after_open);
    EXPECT_LT(after_long_open, 2 * after_open);
  }
}

}  // namespace
}  // namespace wfod
