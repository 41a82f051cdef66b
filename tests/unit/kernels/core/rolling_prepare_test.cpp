// RollingIndicators::prepare_next: the CUDA stream does the next bar's re-anchor
// sums while the device works. The values must not change by a single bit: a stream that
// prepares ahead (before every bar, some bars, or ahead of a batch of bars) against one that
// never does, for every indicator kind, periods around the 256-bar re-anchor block, and
// both Donchian sources.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "src/rolling_indicators.hpp"
#include "support/series.hpp"

namespace wfod {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Streams `s` into two instances; `prepared` calls prepare_next when `prepare(t)` says so,
// and takes `batch(t)` bars per append. Returns the number of values compared.
size_t compare_streams(const Grid& g, const Series& s, uint64_t seed) {
  detail::RollingIndicators plain(g), prepared(g);
  const size_t rows = plain.row_count();
  const HistoryView h = HistoryView::of(s);
  std::mt19937_64 rng(seed);
  std::vector<double> want, got;
  size_t compared = 0;
  for (size_t t = 0; t < s.size();) {
    const size_t take = std::min<size_t>(s.size() - t, rng() % 5 == 0 ? 1 + rng() % 7 : 1);
    if (rng() % 8 != 0) prepared.prepare_next(h.prefix(t));
    // A second call for the same bar must be harmless.
    if (rng() % 16 == 0) prepared.prepare_next(h.prefix(t));
    want.assign(take * rows, 0);
    got.assign(take * rows, 0);
    plain.append_columns(h.prefix(t + take), want.data());
    prepared.append_columns(h.prefix(t + take), got.data());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(same_bits(want[i], got[i]))
          << "bar " << t + i / rows << " row " << i % rows << ": " << got[i] << " vs " << want[i];
      if (!same_bits(want[i], got[i])) return compared;
      ++compared;
    }
    t += take;
  }
  return compared;
}

TEST(RollingPrepare, MovingAveragesAndVolUnchangedBitForBit) {
  Grid g;
  g.family = Family::ma_cross;
  g.ma = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};
  g.fast = {1, 2, 3, 17, 64};
  g.slow = {255, 256, 257, 600};
  g.vol_short = {2, 20};
  g.vol_long = {300};
  g.vol_threshold = {1.0};
  const Series s = test::random_walk(3000, 11);
  EXPECT_GT(compare_streams(g, s, 1), 3000u * 20);
}

TEST(RollingPrepare, ChannelsUnchangedBitForBit) {
  Grid g;
  g.family = Family::channel_breakout;
  g.n = {1, 5, 256, 400};
  g.source = {Source::close, Source::high_low};
  const Series s = test::random_walk(2000, 12);
  EXPECT_GT(compare_streams(g, s, 2), 2000u * 8);
}

TEST(RollingPrepare, LevelJumpAndConstantPrices) {
  Grid g;
  g.family = Family::ma_cross;
  g.ma = {MaType::sma, MaType::wma, MaType::hma};
  g.fast = {7, 256};
  g.slow = {513};
  g.vol_short = {50};
  g.vol_threshold = {0.5};
  Series s = test::random_walk(2600, 13);
  for (size_t t = 1300; t < 2000; ++t) s.close[t] = s.open[t] = s.high[t] = s.low[t] = 42.0;
  for (size_t t = 2000; t < s.size(); ++t) s.close[t] *= 1e6;
  EXPECT_GT(compare_streams(g, s, 3), 2600u * 5);
}

}  // namespace
}  // namespace wfod
