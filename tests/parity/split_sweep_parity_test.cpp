// The cuda sweep's thread-per-combo layout runs as two kernels (kernels/cuda/sweep_split.cu: a
// decisions kernel writing each combo's change events, an accounting kernel ranking from them)
// unless WFOD_CUDA_KERNEL=fused asks for the one fused kernel. Both feed the same accounting
// (StretchAccount) the same change bars, so their sweeps must be equal to the bit: counters,
// ids in rank order and every metric, in precision exact (the canonical re-score) and fast (the
// screen's own metrics, which show any difference in the accounting). A tiny event cap sends
// most combos to the accounting kernel's whole-combo fallback while their warp-mates read
// events, so both of its paths are held to the fused kernel too. Skips visibly without a GPU.
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv

#include <string>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

std::vector<StrategySpec> specs() {
  Grid ma;
  ma.family = Family::ma_cross;
  ma.fast = {2, 3, 5, 8, 13, 21};
  ma.slow = {5, 10, 21, 34, 55};
  ma.ma = {MaType::sma, MaType::ema, MaType::hma};
  ma.side = {Side::long_short, Side::long_only};
  ma.entry = {Entry::state, Entry::cross};
  Grid ma_vol = ma;
  ma_vol.ma = {MaType::sma, MaType::wma};
  ma_vol.vol_short = {5, 20};
  ma_vol.vol_long = {20, 50};
  ma_vol.vol_threshold = {0.8, 1.1};
  Grid channel;
  channel.family = Family::channel_breakout;
  channel.n = {3, 5, 10, 20, 55};
  channel.source = {Source::close, Source::high_low};
  channel.side = {Side::long_short, Side::long_only};
  Grid rsi;
  rsi.family = Family::rsi_reversion;
  rsi.n = {2, 3, 7, 14};
  rsi.lo = {25, 35, 45};
  rsi.hi = {55, 65, 75};
  rsi.side = {Side::long_short, Side::long_only};
  rsi.vol_short = {5};
  rsi.vol_long = {20, 40};
  rsi.vol_threshold = {0.9, 1.5};
  return {test::spec_of(ma, Fill::next_open, 2), test::spec_of(ma_vol, Fill::close, 1),
          test::spec_of(channel, Fill::next_open, 3), test::spec_of(rsi, Fill::close, 2)};
}

// One sweep on a fresh cuda backend with these environment settings (name=value, "" unsets).
SweepResult sweep_with(const SweepRequest& req, const std::string& kernel, const std::string& cap) {
  kernel.empty() ? ::unsetenv("WFOD_CUDA_KERNEL") : ::setenv("WFOD_CUDA_KERNEL", kernel.c_str(), 1);
  cap.empty() ? ::unsetenv("WFOD_CUDA_EVENT_CAP") : ::setenv("WFOD_CUDA_EVENT_CAP", cap.c_str(), 1);
  test::MadeBackend cuda = test::make_or_skip("cuda");
  EXPECT_TRUE(cuda.skip.empty()) << cuda.skip;
  SweepResult r = cuda.backend->sweep(req);
  ::unsetenv("WFOD_CUDA_KERNEL");
  ::unsetenv("WFOD_CUDA_EVENT_CAP");
  return r;
}

TEST(SplitSweep, EqualsTheFusedKernelToTheBit) {
  test::MadeBackend probe = test::make_or_skip("cuda");
  if (!probe.skip.empty()) GTEST_SKIP() << probe.skip;
  // Thread per combo whatever the shape (the layout the split sweep serves).
  ::setenv("WFOD_CUDA_FORCE_CHUNKS", "1", 1);
  // A +170% bar: shorts held through it lose more than their equity (the host's replay).
  const Series s = test::spike_series(3000, 31, {2501}, 2.7);
  const HistoryView h = HistoryView::of(s);
  size_t compared = 0;
  for (const StrategySpec& spec : specs()) {
    SCOPED_TRACE(std::string(to_string(spec.grid.family)));
    for (Precision precision : {Precision::exact, Precision::fast}) {
      SCOPED_TRACE(precision == Precision::fast ? "fast" : "exact");
      SweepRequest req;
      req.history = h;
      req.strategy = spec;
      req.window = {3000, 2200, default_warmup(spec.grid)};
      req.rank.top = 12;
      req.rank.min_trades = 2;
      req.precision = precision;
      const SweepResult fused = sweep_with(req, "fused", "");
      ASSERT_GT(fused.top.size(), 0u);
      for (const char* cap : {"", "1", "5"}) {
        SCOPED_TRACE(std::string("event cap ") + (*cap ? cap : "default"));
        test::expect_same_sweep_bits(sweep_with(req, "", cap), fused);
      }
      compared += fused.top.size();
    }
  }
  ::unsetenv("WFOD_CUDA_FORCE_CHUNKS");
  EXPECT_GT(compared, 60u);
}

}  // namespace
}  // namespace wfod
