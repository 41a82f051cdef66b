// publication_text (the daemon's payload writer) against publication_json(in).dump(): the
// same bytes for random payloads of both families, with and without the vol filter,
// live_oos and a selection object, and metrics that are NaN, infinite, huge, tiny or
// integral (nlohmann's number format), names with characters JSON must escape.
#include "wfod/daemon/publish/publication_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "wfod/daemon/publish/publication.hpp"

namespace wfod::daemon {
namespace {

double awkward(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  switch (rng() % 10) {
    case 0:
      return std::numeric_limits<double>::quiet_NaN();
    case 1:
      return (rng() % 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
    case 2:
      return static_cast<double>(static_cast<int>(rng() % 2000) - 1000);  // integral
    case 3:
      return u(rng) * 1e300;
    case 4:
      return u(rng) * 1e-300;
    case 5:
      return 0.1 * static_cast<double>(rng() % 100);
    default:
      return u(rng) * std::pow(10.0, static_cast<double>(static_cast<int>(rng() % 30) - 15));
  }
}

Metrics random_metrics(std::mt19937_64& rng) {
  Metrics m;
  for (double* v : {&m.total_return, &m.cagr, &m.sharpe, &m.sortino, &m.max_drawdown, &m.calmar,
                    &m.win_rate, &m.profit_factor, &m.exposure})
    *v = awkward(rng);
  for (int64_t* v : {&m.trades, &m.wins, &m.long_bars, &m.short_bars, &m.flat_bars, &m.changes})
    *v = static_cast<int64_t>(rng() % 100000);
  return m;
}

Grid random_grid(std::mt19937_64& rng) {
  Grid g;
  if (rng() % 2) {
    g.family = Family::ma_cross;
    g.fast = {2, 5, 9};
    g.slow = {20, 50};
    g.ma = {MaType::sma, MaType::hma};
    g.entry = {Entry::cross, Entry::state};
  } else {
    g.family = Family::channel_breakout;
    g.n = {10, 20, 55};
    g.source = {Source::close, Source::high_low};
  }
  g.side = {Side::long_only, Side::long_short};
  if (rng() % 2) {
    g.vol_short = {5, 10};
    g.vol_long = {50};
    g.vol_threshold = {0.8, 1.25, 1.0 / 3.0};
  }
  return g;
}

TEST(PublicationText, SameBytesAsTheJsonTree) {
  std::mt19937_64 rng(2026);
  for (int round = 0; round < 300; ++round) {
    const Grid g = random_grid(rng);
    SweepResult r;
    const size_t top = 1 + rng() % 10;
    for (size_t i = 0; i < top; ++i) {
      const uint64_t id = rng() % g.size();
      r.top.push_back(Ranked{g.decode(id), random_metrics(rng), awkward(rng)});
    }
    r.evaluated = rng() % 100000;
    r.skipped = rng() % 100;
    PublicationInput in;
    in.symbol = round % 7 == 0 ? "BTC/USD \"quoted\" \\ tab\t\x01" : "ES:1";
    in.strategy = "trend";
    in.seq = rng();
    in.published_ns = static_cast<int64_t>(rng() >> 1) * (rng() % 2 ? 1 : -1);
    in.window_bars = rng() % 100000;
    in.first_ts = static_cast<int64_t>(rng() >> 2);
    in.last_ts = in.first_ts + 1;
    in.grid = &g;
    in.result = &r;
    in.changed = rng() % 2;
    in.elapsed_ms = awkward(rng);
    in.backend = rng() % 2 ? "cuda" : "cpu";
    in.config_version = std::string(64, 'f');
    if (rng() % 2) in.live_oos = LiveOos{rng() % 1000, rng() % 50, random_metrics(rng)};
    if (rng() % 3) in.position = static_cast<int>(rng() % 3) - 1;
    const Ranked held{g.decode(0), random_metrics(rng), 1.5};
    if (rng() % 3 == 0) {
      in.published = &held;
      in.selection = Json{{"reason", "held: margin 0.1 < 0.25"}, {"dsr", awkward(rng)}};
    }
    ASSERT_EQ(publication_text(in), publication_json(in).dump()) << "round " << round;
  }
}

TEST(PublicationText, RefusesAnEmptyResult) {
  Grid g;
  g.fast = {2};
  g.slow = {5};
  SweepResult r;
  PublicationInput in;
  in.grid = &g;
  in.result = &r;
  EXPECT_THROW(publication_text(in), std::invalid_argument);
}

}  // namespace
}  // namespace wfod::daemon
