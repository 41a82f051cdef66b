// The cuda backend's positions() cache (src/position_cache.hpp) against the oracle: every
// answer equals cpu_ref's positions over the same bars, however the requests come: a walk's
// growing prefixes, a shorter prefix after a longer one, the same parameters under another
// id, more combos than the cache holds, and bars edited in place between two requests.
#include "src/position_cache.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

StrategySpec spec_of(Grid g) {
  StrategySpec s;
  s.grid = std::move(g);
  return s;
}

std::vector<StrategySpec> every_family() {
  Grid ma;
  ma.family = Family::ma_cross;
  ma.fast = {3, 8};
  ma.slow = {20, 40};
  ma.ma = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};
  ma.entry = {Entry::state, Entry::cross};
  ma.side = {Side::long_short, Side::long_only};
  ma.vol_short = {5};
  ma.vol_long = {25};
  ma.vol_threshold = {0.9};
  Grid channel;
  channel.family = Family::channel_breakout;
  channel.n = {5, 20};
  channel.source = {Source::close, Source::high_low};
  Grid bollinger;
  bollinger.family = Family::bollinger;
  bollinger.n = {10, 30};
  bollinger.k = {1.0, 2.0};
  bollinger.style = {Style::reversion, Style::breakout};
  Grid rsi;
  rsi.family = Family::rsi_reversion;
  rsi.n = {3, 14};
  rsi.lo = {30};
  rsi.hi = {60, 70};
  return {spec_of(ma), spec_of(channel), spec_of(bollinger), spec_of(rsi)};
}

TEST(PositionCache, EveryAnswerEqualsCpuRefWhateverTheOrderOfRequests) {
  Series s = test::random_walk(1500, 23);
  const HistoryView h = HistoryView::of(s);
  auto ref = make_backend("cpu_ref"), cpu = make_backend("cpu");
  detail::PositionCache cache(3);
  std::mt19937_64 rng(9);
  size_t asked = 0, extended = 0;
  for (const StrategySpec& spec : every_family()) {
    std::vector<Combo> combos;
    for (uint64_t id = 0; id < spec.grid.size(); ++id)
      if (spec.grid.decode(id).valid()) combos.push_back(spec.grid.decode(id));
    ASSERT_GE(combos.size(), 4u);  // more than the cache holds: evictions happen
    size_t end = 200;
    for (int step = 0; step < 40; ++step) {
      // Mostly a walk's growing prefix, sometimes a shorter one; a few combos, often again.
      const size_t n = step % 7 == 6 ? end / 2 : end;
      Combo c = combos[std::uniform_int_distribution<size_t>(0, 4)(rng) % combos.size()];
      if (step % 5 == 4) c.id += 1000;  // the same parameters under another id
      const HistoryView view = h.prefix(n);
      SCOPED_TRACE(std::string(to_string(c.family)) + " step " + std::to_string(step) + " bars " +
                   std::to_string(n));
      ASSERT_EQ(cache.positions(view, spec, c, *cpu), ref->positions(view, spec, c));
      ++asked;
      if (n == end && end + 37 <= h.size()) {
        end += 37;
        ++extended;
      }
    }
  }
  EXPECT_GT(asked, 150u);
  EXPECT_GT(extended, 100u);
  EXPECT_LE(cache.size(), 3u);
}

TEST(PositionCache, BarsEditedInPlaceAreNotServedFromTheOldTrackers) {
  Series s = test::random_walk(900, 4);
  auto ref = make_backend("cpu_ref"), cpu = make_backend("cpu");
  for (const StrategySpec& spec : every_family()) {
    Combo c = spec.grid.decode(0);
    for (uint64_t id = 1; !c.valid(); ++id) c = spec.grid.decode(id);
    SCOPED_TRACE(std::string(to_string(c.family)));
    detail::PositionCache cache;
    const HistoryView h = HistoryView::of(s);
    // Asked for three times: the third request starts the tracker that later ones extend.
    for (size_t n : {400u, 500u, 600u})
      ASSERT_EQ(cache.positions(h.prefix(n), spec, c, *cpu), ref->positions(h.prefix(n), spec, c));
    // The same buffer, one bar changed well inside what the tracker saw: a big move, so the
    // positions after it change.
    const double saved_close = s.close[300], saved_high = s.high[300], saved_low = s.low[300];
    s.close[300] *= 1.5;
    s.high[300] = std::max(s.high[300], s.close[300]);
    const auto want = ref->positions(h.prefix(700), spec, c);
    EXPECT_EQ(cache.positions(h.prefix(700), spec, c, *cpu), want);
    EXPECT_EQ(cache.positions(h.prefix(650), spec, c, *cpu),
              ref->positions(h.prefix(650), spec, c));
    s.close[300] = saved_close;
    s.high[300] = saved_high;
    s.low[300] = saved_low;
    EXPECT_EQ(cache.positions(h.prefix(800), spec, c, *cpu),
              ref->positions(h.prefix(800), spec, c));
  }
}

// Combos that differ only in their stops (SPEC §5b), or only in the fill with stops acting
// (the trade's entry price), have their own positions: none is answered from another's
// tracker. (The cache once matched combos by the family's parameters alone, and the cuda
// backend's positions of a stop grid came back as another stop's.)
TEST(PositionCache, StopsAndTheirFillAreTheCombosOwn) {
  Series s = test::random_walk(1200, 31);
  const HistoryView h = HistoryView::of(s);
  auto ref = make_backend("cpu_ref"), cpu = make_backend("cpu");
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {5};
  g.slow = {30};
  g.stop_loss = {0, 0.01, 0.03};
  g.take_profit = {0, 0.05};
  g.trailing_stop = {0, 0.02};
  StrategySpec close_fill = spec_of(g), open_fill = spec_of(g);
  open_fill.fill = Fill::next_open;
  detail::PositionCache cache(64);
  size_t differ = 0;
  for (size_t n : {600u, 700u, 800u, 900u}) {
    for (const StrategySpec* spec : {&close_fill, &open_fill}) {
      for (uint64_t id = 0; id < g.size(); ++id) {
        const Combo c = g.decode(id);
        if (!c.valid()) continue;
        SCOPED_TRACE("id " + std::to_string(id) + " bars " + std::to_string(n) +
                     (spec == &open_fill ? " next_open" : " close"));
        const auto want = ref->positions(h.prefix(n), *spec, c);
        ASSERT_EQ(cache.positions(h.prefix(n), *spec, c, *cpu), want);
        if (want != ref->positions(h.prefix(n), *spec, g.decode(0))) ++differ;
      }
    }
  }
  EXPECT_GT(differ, 0u);  // the stops do change positions on this series
}

}  // namespace
}  // namespace wfod
