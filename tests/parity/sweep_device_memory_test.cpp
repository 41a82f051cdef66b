// The cuda backend's sweep size query, device side (Backend::sweep_memory's device_bytes,
// kernels/cuda/sweep_device_memory.hpp), against what its sweeps really allocate: the peak of
// the bytes every DeviceBuffer holds (the backend's allocation count, src/device_allocations.hpp)
// over a sweep on a fresh backend and an evaluate of its top K right after it (which reuses the
// preparation) never exceeds the query, and the query is not far above it (twice the peak, plus
// 64 MiB for the terms counted at their caps or at their largest: the split sweep's events at
// the tuning's bound, the exact screen's candidates at a whole block). SMA and vol-filtered
// ma_cross, channel_breakout, both level families, a stop grid and a rules grid; exact and fast
// precision; the thread-per-combo layout and time chunks. Skips visibly without a GPU.
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv

#include <string>
#include <vector>

#include "src/device_allocations.hpp"
#include "support/backend_parity.hpp"
#include "support/rules_cases.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

struct MemoryCase {
  std::string name;
  StrategySpec spec;
};

std::vector<MemoryCase> memory_cases() {
  Grid sma;
  sma.family = Family::ma_cross;
  sma.fast = {2, 3, 5, 8, 13, 21};
  sma.slow = {5, 10, 21, 34, 55, 89};
  sma.ma = {MaType::sma};
  sma.side = {Side::long_short, Side::long_only};
  sma.entry = {Entry::state, Entry::cross};
  Grid ma_vol = sma;
  ma_vol.ma = {MaType::sma, MaType::hma};
  ma_vol.vol_short = {5, 20};
  ma_vol.vol_long = {20, 50};
  ma_vol.vol_threshold = {0.8, 1.1};
  Grid channel;
  channel.family = Family::channel_breakout;
  channel.n = {3, 5, 10, 20, 55};
  channel.source = {Source::close, Source::high_low};
  channel.side = {Side::long_short, Side::long_only};
  Grid bollinger;
  bollinger.family = Family::bollinger;
  bollinger.n = {10, 20, 30};
  bollinger.k = {1.5, 2.0, 2.5};
  bollinger.side = {Side::long_short, Side::long_only};
  Grid rsi;
  rsi.family = Family::rsi_reversion;
  rsi.n = {2, 3, 7, 14};
  rsi.lo = {25, 35, 45};
  rsi.hi = {55, 65, 75};
  rsi.side = {Side::long_short, Side::long_only};
  Grid stops = sma;
  stops.entry = {Entry::state};
  stops.stop_loss = {0, 0.02, 0.05};
  stops.trailing_stop = {0, 0.03};
  Grid rules_ma = sma;
  rules_ma.entry = {Entry::state};
  rules_ma.side = {Side::long_short};
  return {{"sma", test::spec_of(sma, Fill::next_open, 2)},
          {"ma_vol_hma", test::spec_of(ma_vol, Fill::close, 1)},
          {"channel", test::spec_of(channel, Fill::next_open, 3)},
          {"bollinger", test::spec_of(bollinger, Fill::close, 2)},
          {"rsi", test::spec_of(rsi, Fill::close, 2)},
          {"stops", test::spec_of(stops, Fill::next_open, 2)},
          {"rules", test::spec_of(test::builtin_as_rules(rules_ma), Fill::close, 1)}};
}

constexpr uint64_t kCapsSlack = uint64_t{64} << 20;

// One sweep and an evaluate of its winners on a fresh cuda backend: the query before, and the
// peak of the device bytes held from the backend's construction on.
void expect_query_covers(const SweepRequest& req, const std::string& what) {
  SCOPED_TRACE(what);
  test::MadeBackend made = test::make_or_skip("cuda");
  ASSERT_TRUE(made.backend) << made.skip;
  std::string why;
  const auto before = detail::device_allocation_count(&why);
  ASSERT_TRUE(before) << why;
  const uint64_t query = made.backend->sweep_memory(req).device_bytes;
  detail::reset_device_allocation_peak();
  const SweepResult r = made.backend->sweep(req);
  std::vector<uint64_t> ids;
  for (const Ranked& top : r.top) ids.push_back(top.combo.id);
  if (!ids.empty()) made.backend->evaluate(req, ids);
  const auto after = detail::device_allocation_count(&why);
  ASSERT_TRUE(after) << why;
  const uint64_t used = after->peak - before->now;
  std::printf("[ device memory ] %-32s query %12llu B, peak %12llu B (%.2fx)\n", what.c_str(),
              static_cast<unsigned long long>(query), static_cast<unsigned long long>(used),
              used ? static_cast<double>(query) / static_cast<double>(used) : 0.0);
  EXPECT_GT(used, 0u);
  EXPECT_LE(used, query) << "the sweep held more device memory than its size query said";
  EXPECT_LE(query, 2 * used + kCapsSlack) << "the size query is far above what the sweep held";
}

TEST(SweepDeviceMemoryOnGpu, QueryCoversWhatTheSweepsAllocate) {
  test::MadeBackend probe = test::make_or_skip("cuda");
  if (!probe.backend) GTEST_SKIP() << probe.skip;
  std::string why;
  if (!detail::device_allocation_count(&why)) GTEST_SKIP() << why;
  probe.backend.reset();
  const Series s = test::random_walk(6000, 44);
  const HistoryView h = HistoryView::of(s);
  for (const MemoryCase& c : memory_cases()) {
    for (Precision precision : {Precision::exact, Precision::fast}) {
      for (const char* chunks : {"", "1", "8"}) {
        if (c.spec.grid.family == Family::rules && *chunks) continue;  // no layout of its own
        SweepRequest req;
        req.history = h;
        req.strategy = c.spec;
        req.window = {6000, 4500, default_warmup(c.spec.grid)};
        req.rank.top = 12;
        req.rank.min_trades = 2;
        req.precision = precision;
        *chunks ? ::setenv("WFOD_CUDA_FORCE_CHUNKS", chunks, 1)
                : ::unsetenv("WFOD_CUDA_FORCE_CHUNKS");
        expect_query_covers(req, c.name + (precision == Precision::fast ? " fast" : " exact") +
                                     (*chunks ? std::string(" chunks ") + chunks : ""));
      }
    }
  }
  ::unsetenv("WFOD_CUDA_FORCE_CHUNKS");
}

// A larger grid (~100k combos): the screen's buffers, the split sweep's events and the decision
// tables are most of the peak here, where the small grids above are their preparations.
TEST(SweepDeviceMemoryOnGpu, QueryCoversALargeGrid) {
  test::MadeBackend probe = test::make_or_skip("cuda");
  if (!probe.backend) GTEST_SKIP() << probe.skip;
  std::string why;
  if (!detail::device_allocation_count(&why)) GTEST_SKIP() << why;
  probe.backend.reset();
  const Series s = test::random_walk(20000, 45);
  Grid g;
  g.family = Family::ma_cross;
  for (int f = 2; f < 102; ++f) g.fast.push_back(f);
  for (int sl = 110; sl < 360; sl += 5) g.slow.push_back(sl);
  g.ma = {MaType::sma, MaType::ema};
  g.side = {Side::long_short, Side::long_only};
  g.entry = {Entry::state, Entry::cross};
  for (Precision precision : {Precision::exact, Precision::fast}) {
    SweepRequest req;
    req.history = HistoryView::of(s);
    req.strategy = test::spec_of(g, Fill::close, 1);
    req.window = {20000, 15000, default_warmup(g)};
    req.rank.top = 10;
    req.precision = precision;
    expect_query_covers(req, precision == Precision::fast ? "large fast" : "large exact");
  }
}

}  // namespace
}  // namespace wfod
