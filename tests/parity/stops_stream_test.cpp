// SPEC §5b's stops on the cpu backend's bounded stream: every advance (random batches, bar by
// bar on real data) equals a fresh sweep of the same window, and the cpu_ref oracle's within
// SPEC §9; the stream's queries (positions, returns, evaluate, block_summaries, trackers) equal
// the backend's on the whole history bit for bit; and checkpoints taken while combos are
// mid-trade and stopped out restore streams that continue bit-identically (their blobs byte
// for byte). Each family, both fills, both sides, every stop kind, the vol filter.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "wfod/backend.hpp"
#include "wfod/position_tracker.hpp"
#include "wfod/segments.hpp"

namespace wfod {
namespace {

bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

void expect_same_bits(const Metrics& got, const Metrics& want) {
  for (const test::IntField& f : test::kIntFields)
    EXPECT_EQ(got.*f.member, want.*f.member) << f.name;
  for (const test::RealField& f : test::kRealFields)
    EXPECT_TRUE(same_bits(got.*f.member, want.*f.member)) << f.name;
}

void expect_same_bits(const SweepResult& got, const SweepResult& want) {
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i) {
    expect_same_bits(got.top[i].metrics, want.top[i].metrics);
    EXPECT_TRUE(same_bits(got.top[i].objective, want.top[i].objective)) << "rank " << i;
  }
}

Grid stops_of(Grid g, std::vector<double> sl, std::vector<double> tp, std::vector<double> ts) {
  g.stop_loss = std::move(sl);
  g.take_profit = std::move(tp);
  g.trailing_stop = std::move(ts);
  return g;
}

struct Case {
  const char* name;
  StreamSpec spec;
  Series series;
};

// Small windows and chunks (every window crosses several), stops a few % wide on walks of
// 1% a bar: trades are stopped out and re-entered many times per window.
std::vector<Case> cases() {
  std::vector<Case> out;
  Grid ma = test::small_ma_grid();
  ma.ma = {MaType::ema, MaType::hma};
  out.push_back(
      {"ma_every_stop_next_open",
       test::bounded_spec(stops_of(ma, {0, 0.02}, {0, 0.04}, {0.015}), 200, Fill::next_open, 2, 16),
       test::random_walk(1600, 61)});
  out.push_back(
      {"channel_close",
       test::bounded_spec(stops_of(test::small_channel_grid(), {0.01, 0.03}, {0}, {0, 0.02}), 160,
                          Fill::close, 1, 32),
       test::random_walk(1600, 62)});
  out.push_back({"bollinger_next_open",
                 test::bounded_spec(stops_of(test::small_bollinger_grid(), {0.015}, {0, 0.03}, {0}),
                                    180, Fill::next_open, 1, 16),
                 test::random_walk(1600, 63)});
  out.push_back({"rsi_close",
                 test::bounded_spec(stops_of(test::small_rsi_grid(), {0, 0.02}, {0.05}, {0, 0.01}),
                                    210, Fill::close, 1, 32),
                 test::random_walk(1600, 64)});
  return out;
}

SweepRequest request_of(const StreamSpec& spec, const Series& s, size_t end) {
  SweepRequest req;
  req.history = HistoryView::of(s).prefix(end);
  req.strategy = spec.strategy;
  req.window = {end, spec.window, spec.warmup};
  req.rank = spec.rank;
  req.threads = spec.threads;
  return req;
}

// Every advance against the cpu sweep of its window, and every fifth against cpu_ref's.
TEST(StopsStream, EveryAdvanceEqualsAFreshSweep) {
  auto cpu = make_backend("cpu");
  auto ref = make_backend("cpu_ref");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const size_t need = c.spec.warmup + c.spec.window + 1;
    auto stream = cpu->open_stream(c.spec, HistoryView::of(c.series).prefix(need));
    std::mt19937_64 rng(5);
    size_t end = need, checked = 0;
    while (end < c.series.size()) {
      const size_t k = std::min<size_t>(std::uniform_int_distribution<size_t>(1, 25)(rng),
                                        c.series.size() - end);
      const SweepResult got = stream->advance(test::bars_of(c.series, end, end + k));
      end += k;
      SCOPED_TRACE("end=" + std::to_string(end));
      const SweepRequest req = request_of(c.spec, c.series, end);
      test::expect_same_result(got, cpu->sweep(req));
      if (checked % 5 == 0) {
        SCOPED_TRACE("against cpu_ref");
        test::expect_same_result(got, ref->sweep(req));
      }
      if (::testing::Test::HasFatalFailure()) return;
      ++checked;
    }
    EXPECT_GT(checked, 40u);
  }
}

// Real data, bar by bar: the last 300 hourly bars of the shared EUR/USD file.
TEST(StopsStream, RealDataBarByBar) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "eurusd_h1_2017-2018.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing: NOT run";
  const Series all = test::load_csv(path);
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {5, 12};
  g.slow = {30, 60};
  g.ma = {MaType::sma, MaType::ema};
  g.side = {Side::long_short, Side::long_only};
  g.vol_short = {10};
  g.vol_long = {50};
  g.vol_threshold = {0.9};
  const StreamSpec spec =
      test::bounded_spec(stops_of(g, {0, 0.003}, {0.006}, {0, 0.002}), 400, Fill::next_open, 1, 32);
  auto cpu = make_backend("cpu");
  auto ref = make_backend("cpu_ref");
  const size_t start = all.size() - 300;
  auto stream = cpu->open_stream(spec, HistoryView::of(all).prefix(start));
  for (size_t end = start + 1; end <= all.size(); ++end) {
    const SweepResult got = stream->advance(test::bars_of(all, end - 1, end));
    SCOPED_TRACE("end=" + std::to_string(end));
    const SweepRequest req = request_of(spec, all, end);
    test::expect_same_result(got, cpu->sweep(req));
    if (end % 10 == 0) test::expect_same_result(got, ref->sweep(req));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

std::vector<double> returns_of(const HistoryView& h, const StrategySpec& s,
                               const std::vector<int8_t>& p, size_t first, size_t end) {
  std::vector<double> out;
  for (size_t t = first; t < end; ++t) {
    const BarSegments b =
        bar_segments(h, s.fill, s.costs.per_unit(), t, t >= 2 ? p[t - 2] : 0, p[t - 1]);
    out.push_back(b.exit_value + b.body_value);
  }
  return out;
}

// The stream's queries from its own stop states against the backend on the whole history.
TEST(StopsStream, QueriesEqualTheBackendsBitForBit) {
  auto cpu = make_backend("cpu");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Grid& grid = c.spec.strategy.grid;
    const size_t opened = 900;
    auto stream = cpu->open_stream(c.spec, HistoryView::of(c.series).prefix(opened));
    size_t end = opened;
    for (const size_t k : {7, 1, 33, 16, 5}) {
      stream->advance(test::bars_of(c.series, end, end + k));
      end += k;
      SCOPED_TRACE("end=" + std::to_string(end));
      const HistoryView h = HistoryView::of(c.series).prefix(end);
      const size_t horizon = stream->horizon();
      std::vector<uint64_t> ids;
      for (uint64_t id = 0; id < grid.size(); ++id) {
        const Combo combo = grid.decode(id);
        if (!combo.valid()) continue;
        ids.push_back(id);
        const std::vector<int8_t> want = cpu->positions(h, c.spec.strategy, combo);
        const size_t first = horizon + (end - horizon) * (id % 5) / 5;
        ASSERT_EQ(stream->positions(combo, first, end),
                  std::vector<int8_t>(want.begin() + static_cast<ptrdiff_t>(first), want.end()))
            << "combo " << id;
        const size_t r0 = std::max<size_t>(first, 1);
        ASSERT_EQ(stream->returns(combo, r0, end), returns_of(h, c.spec.strategy, want, r0, end))
            << "combo " << id;
      }
      const SweepRequest req = request_of(c.spec, c.series, end);
      const std::vector<Metrics> got = stream->evaluate(ids), want = cpu->evaluate(req, ids);
      for (size_t i = 0; i < ids.size(); ++i) {
        SCOPED_TRACE("evaluate id " + std::to_string(ids[i]));
        expect_same_bits(got[i], want[i]);
      }
      const size_t first = req.window.first();
      const std::vector<size_t> cuts{first + 37, first + c.spec.window / 2};
      const std::vector<Summary> bg = stream->block_summaries(cuts),
                                 bw = cpu->block_summaries(req, cuts);
      ASSERT_EQ(bg.size(), bw.size());
      for (uint64_t id : ids) {
        for (size_t b = 0; b <= cuts.size(); ++b) {
          const Summary &x = bg[id * 3 + b], &y = bw[id * 3 + b];
          test::expect_same_summary_counts(x, y);
          const auto xr = test::summary_reals(x), yr = test::summary_reals(y);
          for (size_t f = 0; f < xr.size(); ++f)
            EXPECT_TRUE(same_bits(xr[f], yr[f])) << "id " << id << " block " << b << " field " << f;
        }
      }
    }
  }
}

// A tracker seeded at the stream's newest bar carries each combo's stop state: bar by bar it
// gives the backend's positions, a stop's re-entry rules included.
TEST(StopsStream, TrackersSeededFromAStreamContinueExactly) {
  auto cpu = make_backend("cpu");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Grid& grid = c.spec.strategy.grid;
    const HistoryView all = HistoryView::of(c.series);
    const size_t seed_at = 1000;
    auto stream = cpu->open_stream(c.spec, all.prefix(seed_at));
    for (uint64_t id = 0; id < grid.size(); ++id) {
      const Combo combo = grid.decode(id);
      if (!combo.valid()) continue;
      SCOPED_TRACE("combo " + std::to_string(id));
      const std::vector<int8_t> want = cpu->positions(all, c.spec.strategy, combo);
      PositionTracker tracker = stream->tracker(combo, 20);
      ASSERT_EQ(tracker.positions(seed_at - 20, seed_at),
                std::vector<int8_t>(want.begin() + seed_at - 20, want.begin() + seed_at));
      for (size_t end = seed_at; end < all.size();) {
        const size_t k = std::min<size_t>(1 + (end + id) % 6, all.size() - end);
        tracker.append(test::bars_of(c.series, end, end + k));
        end += k;
        ASSERT_EQ(tracker.last(), want[end - 1]) << "end " << end;
      }
      // A fork carries the stop state too.
      PositionTracker fork = tracker.fork(4);
      EXPECT_EQ(fork.last(), tracker.last());
    }
  }
}

// Per combo whose stops act, cpu_ref's positions over the whole series with and without its
// stops (positions never change once emitted, so bar t's are those of any history through t).
struct Positions {
  std::vector<std::vector<int8_t>> p, r;
};

Positions positions_of(Backend& ref, const StreamSpec& spec, const Series& s) {
  Positions out;
  const Grid& grid = spec.strategy.grid;
  for (uint64_t id = 0; id < grid.size(); ++id) {
    Combo c = grid.decode(id);
    if (!c.valid() || !c.stops_on()) continue;
    out.p.push_back(ref.positions(HistoryView::of(s), spec.strategy, c));
    c.stop_loss = c.take_profit = c.trailing_stop = 0;
    out.r.push_back(ref.positions(HistoryView::of(s), spec.strategy, c));
  }
  return out;
}

// How many combos are stopped out at bar t (flat while their family holds) and mid-trade (a
// position held since before t).
struct TradeStates {
  size_t stopped_out = 0, mid_trade = 0;
};

TradeStates trade_states_at(const Positions& all, size_t t) {
  TradeStates out;
  for (size_t i = 0; i < all.p.size(); ++i) {
    const std::vector<int8_t>&p = all.p[i], &r = all.r[i];
    out.stopped_out += p[t] == 0 && r[t] != 0;
    out.mid_trade += p[t] != 0 && p[t - 1] == p[t];
  }
  return out;
}

// Checkpoints taken at every kind of moment (while combos are stopped out, mid-trade, just
// entered) restore streams whose advances, queries and next checkpoints are the
// uninterrupted stream's to the bit.
TEST(StopsStream, CheckpointsMidTradeAndStoppedOutRestoreExactly) {
  auto cpu = make_backend("cpu");
  auto ref = make_backend("cpu_ref");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Grid& grid = c.spec.strategy.grid;
    auto plain = cpu->open_stream(c.spec, HistoryView::of(c.series).prefix(0));
    auto restored = cpu->restore_stream(c.spec, plain->checkpoint());
    const Positions positions = positions_of(*ref, c.spec, c.series);
    std::mt19937_64 rng(17);
    size_t end = 0, restores = 0;
    TradeStates seen;
    while (end < c.series.size()) {
      const size_t k = std::min<size_t>(std::uniform_int_distribution<size_t>(1, 30)(rng),
                                        c.series.size() - end);
      const std::vector<Bar> bars = test::bars_of(c.series, end, end + k);
      end += k;
      SCOPED_TRACE("end=" + std::to_string(end));
      const bool full = end > c.spec.warmup + c.spec.window;
      if (full) {
        expect_same_bits(restored->advance(bars), plain->advance(bars));
      } else {
        EXPECT_THROW(restored->advance(bars), std::invalid_argument);
        EXPECT_THROW(plain->advance(bars), std::invalid_argument);
      }
      if (rng() % 4 != 0 || end < 3) continue;
      const std::vector<uint8_t> blob = restored->checkpoint();
      ASSERT_EQ(blob, plain->checkpoint()) << "the same state, the same bytes";
      restored = cpu->restore_stream(c.spec, blob);
      ++restores;
      const TradeStates at = trade_states_at(positions, end - 1);
      seen.stopped_out += at.stopped_out;
      seen.mid_trade += at.mid_trade;
      if (!full) continue;
      const std::vector<uint64_t> ids{rng() % grid.size()};
      if (!grid.decode(ids[0]).valid()) continue;
      expect_same_bits(restored->evaluate(ids)[0], plain->evaluate(ids)[0]);
      const Combo combo = grid.decode(ids[0]);
      EXPECT_EQ(restored->positions(combo, plain->horizon(), end),
                plain->positions(combo, plain->horizon(), end));
      if (::testing::Test::HasFatalFailure()) return;
    }
    std::printf("[ stops    ] %s: %zu restores; at them %zu combos stopped out, %zu mid-trade\n",
                c.name, restores, seen.stopped_out, seen.mid_trade);
    EXPECT_GT(restores, 20u);
    EXPECT_GT(seen.stopped_out, 0u) << "no checkpoint while a combo was stopped out";
    EXPECT_GT(seen.mid_trade, 0u) << "no checkpoint while a combo was mid-trade";
  }
}

}  // namespace
}  // namespace wfod
