// THE parity table (STYLE habit 1, SPEC §9): every backend other than cpu_ref runs each named
// case and must match the float64 oracle cpu_ref: identical counts, top-K ids, trades, wins,
// bar counts and positions; every float metric within 1e-9 relative or 1e-12 absolute.
// One case table; each (case, backend) is its own ctest entry; "not built / no device" is a
// visible skip, never a silent one.
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/indicators.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod::cpu {
const char* lane_kernel_variant();  // kernels/cpu/lane_kernel.cpp
}  // namespace wfod::cpu

namespace wfod {
namespace {

constexpr double kRel = 1e-9, kAbs = 1e-12;  // SPEC §9

struct ParityCase {
  std::string name;
  std::function<Series()> series;  // built when the case runs (each ctest entry runs one)
  StrategySpec spec;
  size_t bars = 0;           // W; 0 = every bar after the warm-up
  size_t end = 0;            // T; 0 = the whole series
  size_t warmup = SIZE_MAX;  // SIZE_MAX = the grid's largest period exactly
  RankSpec rank;
  bool needs_shared_data = false;
};

void PrintTo(const ParityCase& c, std::ostream* os) { *os << c.name; }

// --- Grids -------------------------------------------------------------------------------------

Grid ma_grid(std::vector<MaType> mas, std::vector<Side> sides, std::vector<Entry> entries,
             std::vector<int> fast = {3, 5, 10, 20}, std::vector<int> slow = {5, 10, 30}) {
  Grid g;  // fast >= slow combos ((5,5), (10,5), (10,10), (20,5), (20,10)) are invalid
  g.family = Family::ma_cross;
  g.fast = std::move(fast);
  g.slow = std::move(slow);
  g.ma = std::move(mas);
  g.side = std::move(sides);
  g.entry = std::move(entries);
  return g;
}

Grid channel_grid(std::vector<Source> sources, std::vector<Side> sides,
                  std::vector<int> n = {5, 10, 20, 55}) {
  Grid g;
  g.family = Family::channel_breakout;
  g.n = std::move(n);
  g.source = std::move(sources);
  g.side = std::move(sides);
  return g;
}

// n = 1 and k = 0 combos are invalid (SPEC §5: n >= 2 and k > 0).
Grid bollinger_grid(std::vector<Style> styles, std::vector<Side> sides,
                    std::vector<int> n = {5, 20, 50}, std::vector<double> k = {1.0, 2.0}) {
  Grid g;
  g.family = Family::bollinger;
  g.n = std::move(n);
  g.k = std::move(k);
  g.style = std::move(styles);
  g.side = std::move(sides);
  return g;
}

// lo >= hi combos are invalid (SPEC §5).
Grid rsi_grid(std::vector<Side> sides, std::vector<int> n = {2, 7, 14},
              std::vector<double> lo = {25, 35}, std::vector<double> hi = {30, 65, 75}) {
  Grid g;
  g.family = Family::rsi_reversion;
  g.n = std::move(n);
  g.lo = std::move(lo);
  g.hi = std::move(hi);
  g.side = std::move(sides);
  return g;
}

Grid with_vol(Grid g, std::vector<int> vs = {5, 20}, std::vector<int> vl = {20, 50},
              std::vector<double> th = {0.9, 1.2}) {
  g.vol_short = std::move(vs);  // (20, 20) is invalid: vol_short >= vol_long
  g.vol_long = std::move(vl);
  g.vol_threshold = std::move(th);
  return g;
}

const std::vector<MaType> kAllMa = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};
const std::vector<Side> kBothSides = {Side::long_short, Side::long_only};
const std::vector<Entry> kBothEntries = {Entry::state, Entry::cross};
const std::vector<Source> kBothSources = {Source::close, Source::high_low};
const std::vector<Style> kBothStyles = {Style::reversion, Style::breakout};

StrategySpec spec_of(Grid g, Fill fill = Fill::close, double commission_bps = 0,
                     double slippage_bps = 0) {
  StrategySpec s;
  s.grid = std::move(g);
  s.fill = fill;
  s.costs.commission_bps = commission_bps;
  s.costs.slippage_bps = slippage_bps;
  return s;
}

// --- The table -----------------------------------------------------------------------------------

std::vector<ParityCase> synthetic_cases() {
  auto rw = [] { return test::random_walk(3000, 101, 100, 0.01, 0.003); };
  auto rw_long = [] { return test::random_walk(6000, 102, 30, 0.008, 0.002); };
  auto flat = [] { return test::constant_series(1500, 42.5); };
  auto spike = [] { return test::spike_series(2500, 103, {1500, 2200}, 2.6); };
  std::vector<ParityCase> cs;
  cs.reserve(256);  // add() hands out pointers into cs: no reallocation (~40 cases)
  auto add = [&](std::string name, std::function<Series()> series, StrategySpec spec, size_t bars,
                 size_t warmup = SIZE_MAX) {
    ParityCase c;
    c.name = std::move(name);
    c.series = std::move(series);
    c.spec = std::move(spec);
    c.bars = bars;
    c.warmup = warmup;
    cs.push_back(std::move(c));
    return &cs.back();
  };
  // Every MA type, both sides, both entries, both fills; windows not a multiple of 256.
  add("sma_state_close", rw, spec_of(ma_grid({MaType::sma}, kBothSides, {Entry::state})), 1000);
  add("ema_both_entries_next_open", rw,
      spec_of(ma_grid({MaType::ema}, kBothSides, kBothEntries), Fill::next_open), 1237);
  add("wma_cross_costs", rw,
      spec_of(ma_grid({MaType::wma}, kBothSides, {Entry::cross}), Fill::close, 5, 2), 1237);
  add("hma_both_entries_next_open_costs", rw,
      spec_of(ma_grid({MaType::hma}, kBothSides, kBothEntries), Fill::next_open, 3, 1), 0);
  add("all_ma_w4999", rw_long,
      spec_of(ma_grid(kAllMa, kBothSides, {Entry::state}), Fill::next_open, 1), 4999);
  // The filter on both families, with invalid (vol_short >= vol_long) combos.
  add("ma_vol_filter_close", rw,
      spec_of(with_vol(ma_grid(kAllMa, {Side::long_short}, kBothEntries, {5, 10}, {20, 40}))),
      1000);
  add("ma_vol_filter_next_open_long_only", rw,
      spec_of(with_vol(ma_grid({MaType::ema, MaType::hma}, {Side::long_only}, kBothEntries, {3, 8},
                               {8, 21}),
                       {10, 30}, {10, 60}, {0.7, 1.0, 1.3}),
              Fill::next_open, 2),
      1500);
  // Both Donchian sources, both sides, both fills, with and without the filter.
  add("channel_close_source", rw, spec_of(channel_grid({Source::close}, kBothSides)), 1000);
  add("channel_high_low_next_open_costs", rw,
      spec_of(channel_grid({Source::high_low}, kBothSides), Fill::next_open, 4, 2), 1237);
  add("channel_vol_filter", rw,
      spec_of(with_vol(channel_grid(kBothSources, kBothSides)), Fill::next_open), 2000);
  // bollinger: both styles, both sides, both fills, costs, the filter, invalid k = 0 / n = 1.
  add("bollinger_reversion_close", rw,
      spec_of(bollinger_grid({Style::reversion}, kBothSides, {1, 5, 20, 50}, {0.0, 1.0, 2.0})),
      1000);
  add("bollinger_both_styles_next_open_costs", rw,
      spec_of(bollinger_grid(kBothStyles, kBothSides, {10, 30}, {0.5, 1.5, 2.5}), Fill::next_open,
              3, 1),
      1237);
  add("bollinger_vol_filter", rw,
      spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides, {10, 20}, {1.0, 2.0})),
              Fill::next_open, 1),
      2000);
  // rsi_reversion: both sides, both fills, costs, the filter, invalid lo >= hi.
  add("rsi_close", rw, spec_of(rsi_grid(kBothSides)), 1000);
  add("rsi_next_open_costs_n1", rw,
      spec_of(rsi_grid(kBothSides, {1, 2, 5, 30}, {20, 40}, {60, 80}), Fill::next_open, 3, 1),
      1237);
  add("rsi_vol_filter", rw,
      spec_of(with_vol(rsi_grid(kBothSides, {5, 14}, {30}, {70})), Fill::next_open, 1), 2000);
  // More than 32 values on the axes cuda's decision-bit table keys its bits by (LevelBits:
  // several words per record), rsi_reversion's lo and hi axes of different sizes so that
  // their words sit apart.
  const auto steps = [](double from, double step, int count) {
    std::vector<double> v;
    for (int i = 0; i < count; ++i) v.push_back(from + step * i);
    return v;
  };
  add("bollinger_40_k_values", rw,
      spec_of(bollinger_grid(kBothStyles, kBothSides, {10, 20}, steps(0.1, 0.1, 40)),
              Fill::next_open, 1),
      1237);
  add("rsi_34_lo_33_hi_values", rw,
      spec_of(rsi_grid(kBothSides, {14}, steps(10, 1, 34), steps(52, 1, 33)), Fill::close, 2),
      1000);
  add(
      "huge_prices_1e5_levels", [] { return test::random_walk(3000, 106, 1e5, 0.004, 0.001); },
      spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides, {4, 16, 64}, {1.0, 2.0}), {8, 32},
                       {32, 64}, {0.85, 1.15}),
              Fill::next_open, 1),
      2222);
  add(
      "tiny_prices_1em3_rsi", [] { return test::random_walk(3000, 105, 1e-3, 0.01, 0.003); },
      spec_of(rsi_grid(kBothSides, {3, 14}, {30}, {70}), Fill::next_open, 1), 2222);
  // Prices whose indicators are denormal as floats (below ~1.2e-38): the whole sweep on them,
  // every comparison left to the doubles (a float there is off by up to half its value). The
  // sweep re-scores its candidates exactly, so a wrong float screen could only show here by
  // dropping a winner; SelectionDeviceParity's block Summaries test the screen itself.
  add(
      "denormal_float_prices_1em41",
      [] { return test::random_walk(3000, 110, 1e-41, 0.01, 0.003); },
      spec_of(with_vol(ma_grid(kAllMa, kBothSides, kBothEntries, {3, 8}, {8, 40}), {5, 10},
                       {20, 50}, {0.8, 0.95, 1.0, 1.05}),
              Fill::next_open, 1),
      2222);
  add(
      "denormal_float_prices_1em41_channel",
      [] { return test::random_walk(3000, 111, 1e-41, 0.01, 0.003); },
      spec_of(with_vol(channel_grid(kBothSources, kBothSides, {4, 16, 64}), {5, 10}, {20, 50},
                       {0.9, 1.0, 1.1}),
              Fill::next_open, 1),
      2222);
  // A larger grid, a window ending well before the series does, prices far from 1.
  add("all_ma_big_grid", rw,
      spec_of(ma_grid(kAllMa, kBothSides, kBothEntries, {2, 3, 5, 8, 13, 21}, {5, 8, 21, 34, 55}),
              Fill::close, 1),
      1500);
  add("window_ends_mid_series", rw,
      spec_of(with_vol(ma_grid(kAllMa, kBothSides, kBothEntries, {4, 9}, {9, 30})), Fill::next_open,
              1, 1),
      999)
      ->end = 2001;
  add(
      "tiny_prices_1em3", [] { return test::random_walk(3000, 105, 1e-3, 0.01, 0.003); },
      spec_of(with_vol(ma_grid(kAllMa, kBothSides, kBothEntries, {3, 8}, {8, 40})), Fill::next_open,
              1),
      2222);
  add(
      "huge_prices_1e5_channel", [] { return test::random_walk(3000, 106, 1e5, 0.004, 0.001); },
      spec_of(with_vol(channel_grid(kBothSources, kBothSides, {4, 16, 64}), {8, 32}, {32, 64},
                       {0.85, 1.15}),
              Fill::next_open, 1),
      2222);
  // Long windows with few combos: the cpu backend also splits time into chunks joined with
  // combine(), and each chunk finds its starting position by scanning back (cross entries and
  // channels hold for long stretches); with a spike, lanes whose equity crosses zero.
  auto rw30k = [] { return test::random_walk(30000, 108, 70, 0.006, 0.002); };
  add("long_window_chunked_channel_vol", rw30k,
      spec_of(with_vol(channel_grid(kBothSources, kBothSides, {20, 100}), {20}, {100}, {1.0}),
              Fill::next_open, 1),
      29000);
  add(
      "long_window_chunked_ma_cross_spike",
      [] {
        return test::spike_series(30000, 109, {12345, 20000, 27001}, 2.6);
      },
      spec_of(
          ma_grid({MaType::ema, MaType::hma}, {Side::long_short}, {Entry::cross}, {10}, {50, 200}),
          Fill::close, 2),
      28000)
      ->rank.max_drawdown = 1e9;
  // Level families over long windows with few combos: time chunks whose starting state is
  // found by scanning back through "keep while on the middle's side" bars.
  add("long_window_chunked_bollinger", rw30k,
      spec_of(bollinger_grid(kBothStyles, kBothSides, {20, 200}, {2.0}), Fill::next_open, 1),
      29000);
  add("long_window_chunked_rsi_vol", rw30k,
      spec_of(with_vol(rsi_grid(kBothSides, {14, 100}, {30}, {70}), {20}, {100}, {1.0}),
              Fill::close, 1),
      29000);
  // Windows of 131,072 bars or more: the cuda backend's canonical order takes 512 time chunks
  // there, each join thread two of them (sweep_kernels.cuh canonical_chunks). A grid this small
  // is scored in that order directly; the larger one is screened, then re-scored in it.
  auto rw140k = [] { return test::random_walk(140000, 118, 90, 0.004, 0.001); };
  add("window_past_131072_few_combos", rw140k,
      spec_of(ma_grid({MaType::hma}, {Side::long_short}, kBothEntries, {5, 20}, {50, 200}),
              Fill::next_open, 1),
      139000);
  add("window_past_131072_screened", rw140k,
      spec_of(ma_grid({MaType::sma, MaType::ema}, kBothSides, {Entry::state},
                      {2, 3, 5, 8, 13, 21, 34, 55}, {10, 30, 60, 90, 120, 150, 250}),
              Fill::close, 1),
      139000)
      ->rank.top = 20;
  // W = 1; warm-up = the largest period exactly with the widest window it allows.
  add("w1_ma", rw, spec_of(ma_grid(kAllMa, kBothSides, kBothEntries), Fill::next_open, 2), 1)
      ->rank.objective = Objective::total_return;
  add("w1_channel", rw, spec_of(with_vol(channel_grid(kBothSources, kBothSides))), 1);
  add("warmup_is_max_period_ma", rw, spec_of(ma_grid(kAllMa, kBothSides, kBothEntries)), 0);
  add("warmup_zero_whole_series", rw,
      spec_of(with_vol(ma_grid(kAllMa, kBothSides, kBothEntries, {1, 2, 4}, {2, 5})),
              Fill::next_open, 2),
      0, 0);
  add("channel_n1_warmup_zero", rw,
      spec_of(with_vol(channel_grid(kBothSources, kBothSides, {1, 2, 3}), {1, 2}, {2, 3}, {0.5})),
      0, 0);
  // Periods longer than the history (indicators never defined: flat) next to short ones.
  add("periods_longer_than_history", rw,
      spec_of(ma_grid(kAllMa, kBothSides, kBothEntries, {5, 2500}, {2000, 4000}), Fill::next_open,
              1),
      2500, 10);
  // The shortest history a window allows: 3 bars, W = 1, warmup = 1.
  add(
      "three_bars", [] { return test::random_walk(3, 107, 10, 0.05, 0.02); },
      spec_of(ma_grid(kAllMa, kBothSides, kBothEntries, {1}, {2}), Fill::next_open, 1), 1, 1)
      ->rank.min_trades = 0;
  add("warmup_is_max_period_channel", rw,
      spec_of(channel_grid(kBothSources, kBothSides), Fill::next_open), 0);
  add("w1_levels_warmup_zero", rw,
      spec_of(
          with_vol(bollinger_grid(kBothStyles, kBothSides, {2, 3}, {1.0}), {1, 2}, {2, 3}, {0.5})),
      0, 0);
  add("rsi_warmup_zero", rw, spec_of(rsi_grid(kBothSides, {1, 2, 3}, {30}, {70})), 0, 0);
  // Constant prices: every comparison ties, nothing trades; with min_trades = 0 every combo
  // ranks with the same objective and the lower ids win.
  for (ParityCase* c :
       {add("constant_prices_ma", flat,
            spec_of(with_vol(ma_grid(kAllMa, kBothSides, kBothEntries))), 1000),
        add("constant_prices_channel", flat,
            spec_of(with_vol(channel_grid(kBothSources, kBothSides)), Fill::next_open), 1000),
        add("constant_prices_bollinger", flat,
            spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides))), 1000),
        add("constant_prices_rsi", flat,
            spec_of(rsi_grid(kBothSides, {2, 7, 14}, {25, 35}, {65, 75})), 1000),
        // Halfway between the two smallest denormal floats: moving averages that differ from
        // the price by an ulp round to different floats, yet tie within the dead band.
        add(
            "constant_prices_at_a_float_midpoint",
            [] { return test::constant_series(1500, std::ldexp(3.0, -150)); },
            spec_of(ma_grid(kAllMa, kBothSides, kBothEntries)), 1000)}) {
    c->rank.min_trades = 0;
  }
  // A price that jumps 2.6x in one bar, twice: shorts lose more than 100%; equity <= 0.
  for (ParityCase* c :
       {add("spike_short_loses_ma", spike,
            spec_of(ma_grid(kAllMa, {Side::long_short}, kBothEntries), Fill::close, 2), 1500),
        add("spike_short_loses_channel", spike,
            spec_of(channel_grid(kBothSources, {Side::long_short}), Fill::next_open, 2), 1500),
        add("spike_short_loses_bollinger", spike,
            spec_of(bollinger_grid({Style::breakout}, {Side::long_short}, {5, 20}, {0.5, 1.0}),
                    Fill::next_open, 2),
            1500),
        add("spike_short_loses_rsi", spike,
            spec_of(rsi_grid({Side::long_short}, {2, 5}, {30, 45}, {55, 70}), Fill::close, 2),
            1500)}) {
    c->rank.max_drawdown = 1e9;
    c->rank.objective = Objective::total_return;
    c->rank.top = 30;
  }
  // Exact ties between combos whose positions differ (test::tie_series: they change position
  // at different bars where the close does not move, so they split identical returns into
  // different stretches and trades). Every backend orders them by the lower id (SPEC §7), the
  // cuda sweep too, whose screen sums per stretch (docs/spec-notes.md item 13). top covers
  // the whole grid: every tie is compared in order. Every objective (SPEC v1.2 §7's rank key
  // orders each the same way: equal keys by the lower id).
  for (Objective o : {Objective::sharpe, Objective::sortino, Objective::calmar,
                      Objective::total_return, Objective::cagr, Objective::profit_factor}) {
    ParityCase* c = add(
        "exact_ties_" + std::string(to_string(o)), [] { return test::tie_series(40, 117); },
        spec_of(ma_grid({MaType::sma, MaType::wma}, kBothSides, {Entry::state}, {1, 2, 3}, {4})),
        0);
    c->rank.objective = o;
    c->rank.top = 12;
  }
  // Other objectives with every constraint biting.
  for (Objective o :
       {Objective::sortino, Objective::calmar, Objective::cagr, Objective::profit_factor}) {
    ParityCase* c =
        add("objective_" + std::string(to_string(o)) + "_constrained", rw,
            spec_of(ma_grid(kAllMa, kBothSides, kBothEntries), Fill::next_open, 1, 1), 1800);
    c->rank.objective = o;
    c->rank.min_trades = 10;
    c->rank.max_drawdown = 0.35;
    c->rank.min_exposure = 0.5;
    c->rank.top = 25;
  }
  return cs;
}

// The level families (SPEC §5 bollinger, rsi_reversion): both styles, both sides, both
// fills, the filter, constant prices, long windows (time chunks whose entry state depends on
// the position held: level_rule), W = 1, periods longer than the history, far price levels.
std::vector<ParityCase> level_family_cases() {
  auto rw = [] { return test::random_walk(3000, 111, 100, 0.01, 0.003); };
  auto flat = [] { return test::constant_series(1500, 42.5); };
  std::vector<ParityCase> cs;
  cs.reserve(64);
  auto add = [&](std::string name, std::function<Series()> series, StrategySpec spec, size_t bars,
                 size_t warmup = SIZE_MAX) {
    ParityCase c;
    c.name = std::move(name);
    c.series = std::move(series);
    c.spec = std::move(spec);
    c.bars = bars;
    c.warmup = warmup;
    cs.push_back(std::move(c));
    return &cs.back();
  };
  add("bollinger_reversion_close", rw, spec_of(bollinger_grid({Style::reversion}, kBothSides)),
      1000);
  add("bollinger_breakout_next_open_costs", rw,
      spec_of(bollinger_grid({Style::breakout}, kBothSides), Fill::next_open, 3, 1), 1237);
  add("bollinger_both_styles_vol_filter", rw,
      spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides)), Fill::next_open, 1), 2000);
  add("bollinger_long_only_vol_filter_close", rw,
      spec_of(with_vol(bollinger_grid(kBothStyles, {Side::long_only}, {10, 30}, {0.5, 1.5}),
                       {10, 30}, {10, 60}, {0.7, 1.0, 1.3}),
              Fill::close, 2),
      1500);
  add("rsi_close", rw, spec_of(rsi_grid(kBothSides, {1, 2, 14, 30}, {20, 30, 45}, {30, 70, 80})),
      1000);
  add("rsi_next_open_costs", rw, spec_of(rsi_grid(kBothSides), Fill::next_open, 5, 2), 1237);
  add("rsi_vol_filter", rw, spec_of(with_vol(rsi_grid(kBothSides)), Fill::next_open, 1), 2000);
  add("rsi_long_only_wide_levels", rw,
      spec_of(rsi_grid({Side::long_only}, {3, 7, 21}, {10, 25, 40}, {60, 75, 90}), Fill::close, 1),
      2500);
  add("w1_bollinger", rw, spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides))), 1);
  add("w1_rsi", rw, spec_of(rsi_grid(kBothSides), Fill::next_open), 1);
  add("warmup_is_max_period_bollinger", rw,
      spec_of(bollinger_grid(kBothStyles, kBothSides), Fill::next_open, 1), 0);
  add("warmup_is_max_period_rsi", rw, spec_of(rsi_grid(kBothSides)), 0);
  add("periods_longer_than_history_level", rw,
      spec_of(rsi_grid(kBothSides, {14, 2999, 4000}), Fill::next_open, 1), 2500, 10);
  add(
      "tiny_prices_1em3_bollinger", [] { return test::random_walk(3000, 112, 1e-3, 0.01, 0.003); },
      spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides, {5, 20}, {1, 2})), Fill::next_open,
              1),
      2222);
  add(
      "huge_prices_1e5_rsi", [] { return test::random_walk(3000, 113, 1e5, 0.004, 0.001); },
      spec_of(with_vol(rsi_grid(kBothSides, {4, 16}), {8}, {32}, {0.85, 1.15}), Fill::next_open, 1),
      2222);
  // Long windows with few combos: time chunks, each finding its entry state by scanning back
  // (wide bands and far levels: entries are rare, positions held for long stretches).
  auto rw30k = [] { return test::random_walk(30000, 114, 70, 0.006, 0.002); };
  add("long_window_chunked_bollinger", rw30k,
      spec_of(bollinger_grid(kBothStyles, kBothSides, {20, 100}, {2, 3}), Fill::next_open, 1),
      29000);
  add("long_window_chunked_rsi_vol", rw30k,
      spec_of(with_vol(rsi_grid(kBothSides, {14, 50}, {25}, {75}), {20}, {100}, {1.0}), Fill::close,
              1),
      29000);
  // Grids of several blocks of 256 combos with many n: the cuda fused layout visits a level
  // family's ids transposed (a warp's lanes share n), so blocks hold ids from all over the grid.
  auto many = [](int from, int count) {
    std::vector<int> v;
    for (int i = 0; i < count; ++i) v.push_back(from + i);
    return v;
  };
  add("bollinger_many_n_blocks", rw,
      spec_of(bollinger_grid(kBothStyles, kBothSides, many(2, 40), {0.5, 1.0, 1.5, 2.0}),
              Fill::next_open, 1),
      1000);
  add("rsi_many_n_blocks", rw,
      spec_of(rsi_grid(kBothSides, many(2, 30), {20, 30, 40}, {60, 70, 80}), Fill::close, 1), 1000);
  // Constant prices: STD counts as 0 (U = L = M = close) and RSI is 50: nothing trades.
  for (ParityCase* c : {add("constant_prices_bollinger", flat,
                            spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides))), 1000),
                        add("constant_prices_rsi", flat,
                            spec_of(with_vol(rsi_grid(kBothSides)), Fill::next_open), 1000)}) {
    c->rank.min_trades = 0;
  }
  // The edge of the cuda sweep's float32 screen (device_grid.cuh level_screen): closes within
  // ulps or 1e-10 relative of a band or of the SMA, STD counting as 0, RSI exactly at lo, hi
  // and 50 (RSI(1) is 0, 50 or 100; RSI(2) of a move and its reversal is 100/3 or 200/3 to
  // the last bits); k outside the screen's range (always the float64 rule); price levels where the
  // margin's floor (tiny), float overflow (1e150) or nothing special (1, 3e37) applies.
  for (const auto& [tag, scale] : std::vector<std::pair<std::string, double>>{
           {"1", 1.0}, {"1em30", 1e-30}, {"3e37", 3e37}, {"1e150", 1e150}}) {
    auto series = [scale = scale] { return test::near_level_series(2000, 115, scale); };
    for (ParityCase* c :
         {add("near_levels_bollinger_" + tag, series,
              spec_of(bollinger_grid(kBothStyles, kBothSides, {2, 3, 5, 7},
                                     {1e-20, 0.5, 1.0, 2.0, 1e20}),
                      Fill::next_open, 1),
              1800),
          add("near_levels_rsi_" + tag, series,
              spec_of(rsi_grid(kBothSides, {1, 2, 5}, {100.0 / 3, 50}, {50, 200.0 / 3, 75}),
                      Fill::close, 1),
              1800)}) {
      c->rank.min_trades = 0;
    }
  }
  add(
      "near_levels_bollinger_vol_filter", [] { return test::near_level_series(2000, 116, 1.0); },
      spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides, {2, 5}, {1.0, 2.0}), {2}, {8},
                       {0.5, 1.0}),
              Fill::close, 1),
      1800);
  for (Objective o : {Objective::sortino, Objective::profit_factor}) {
    ParityCase* c =
        add("objective_" + std::string(to_string(o)) + "_constrained_level", rw,
            spec_of(bollinger_grid(kBothStyles, kBothSides), Fill::next_open, 1, 1), 1800);
    c->rank.objective = o;
    c->rank.min_trades = 10;
    c->rank.max_drawdown = 0.35;
    c->rank.min_exposure = 0.3;
    c->rank.top = 25;
  }
  return cs;
}

size_t count_data_rows(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  size_t lines = 0;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0)
    lines += static_cast<size_t>(std::count(buf, buf + in.gcount(), '\n'));
  return lines > 0 ? lines - 1 : 0;  // minus the header
}

std::vector<ParityCase> real_data_cases() {
  std::vector<ParityCase> cs;
  const auto files = test::shared_csv_files();
  if (files.empty()) {
    ParityCase c;
    c.name = "shared_data_missing";
    c.needs_shared_data = true;
    cs.push_back(c);
    return cs;
  }
  for (const auto& path : files) {
    // The row count decides the grid and the window: counting lines is enough (and cheap, as
    // every ctest entry registers the whole table).
    const size_t n = count_data_rows(path);
    const std::string stem = test::sanitize_name(path.stem().string());
    auto series = [p = path] { return test::load_csv(p); };
    ParityCase ma, ch;
    ma.name = stem + "_ma_cross";
    ch.name = stem + "_channel";
    ma.series = ch.series = series;
    ma.needs_shared_data = ch.needs_shared_data = true;
    if (n < 1000) {  // monthly / one year of days: short periods, every bar after the warm-up
      ma.spec = spec_of(ma_grid(kAllMa, kBothSides, kBothEntries, {2, 3, 5}, {4, 8, 12}),
                        Fill::next_open, 2);
      ch.spec = spec_of(with_vol(channel_grid(kBothSources, kBothSides, {3, 6, 12}), {3, 6},
                                 {6, 12}, {0.9, 1.1}));
      ma.bars = ch.bars = 0;
    } else if (n <= 6000) {  // daily / hourly: the whole series after the default warm-up
      ma.spec = spec_of(ma_grid(kAllMa, kBothSides, kBothEntries, {5, 10, 20}, {10, 30, 60}),
                        Fill::close, 2);
      ch.spec = spec_of(with_vol(channel_grid(kBothSources, kBothSides, {10, 20, 55}), {10, 20},
                                 {20, 50}, {0.9, 1.2}),
                        Fill::next_open, 1, 1);
      ma.warmup = default_warmup(ma.spec.grid);
      ch.warmup = default_warmup(ch.spec.grid);
      ma.bars = n - 1 - ma.warmup;
      ch.bars = n - 1 - ch.warmup;
    } else {  // minute files: a window of a few thousand bars at the end
      ma.spec = spec_of(
          ma_grid(kAllMa, kBothSides, {Entry::state, Entry::cross}, {5, 15, 30}, {15, 60, 120}),
          Fill::next_open, 0.5);
      ch.spec = spec_of(with_vol(channel_grid(kBothSources, kBothSides, {10, 30, 120}), {10, 30},
                                 {30, 120}, {0.8, 1.2}),
                        Fill::close, 0.5);
      ma.bars = 3001;
      ch.bars = 4099;
      ch.end = n - 7919;  // a window ending before the file does
      ma.warmup = default_warmup(ma.spec.grid);
      ch.warmup = default_warmup(ch.spec.grid);
    }
    ma.spec.bars_per_year = ch.spec.bars_per_year = n < 1000 ? 12 : 252;
    cs.push_back(ma);
    cs.push_back(ch);
    // The level families on every file: bollinger (both styles; the filter on the longer
    // files) and rsi_reversion, over the same windows as the channel case.
    ParityCase bb = ch, rs = ch;
    bb.name = stem + "_bollinger";
    rs.name = stem + "_rsi";
    if (n < 1000) {
      bb.spec = spec_of(bollinger_grid(kBothStyles, kBothSides, {3, 6, 12}, {1.0, 2.0}),
                        Fill::next_open, 2);
      rs.spec = spec_of(rsi_grid(kBothSides, {2, 3, 6}, {30, 40}, {60, 70}));
    } else {
      const std::vector<int> periods =
          n <= 6000 ? std::vector<int>{10, 20, 50} : std::vector<int>{20, 60, 120};
      bb.spec = spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides, periods, {1.5, 2.5}),
                                 {periods[0]}, {periods[2]}, {0.9}),
                        Fill::next_open, 1, 1);
      rs.spec =
          spec_of(rsi_grid(kBothSides, {2, 14, periods[1]}, {25, 35}, {65, 75}), Fill::close, 1);
    }
    if (n >= 1000) {
      bb.warmup = default_warmup(bb.spec.grid);
      rs.warmup = default_warmup(rs.spec.grid);
      if (n <= 6000) {
        bb.bars = n - 1 - bb.warmup;
        rs.bars = n - 1 - rs.warmup;
      }
    }
    bb.spec.bars_per_year = rs.spec.bars_per_year = n < 1000 ? 12 : 252;
    cs.push_back(bb);
    cs.push_back(rs);
    if (n > 40000) {  // the longest file: one window over all of it, few combos (time chunks)
      ParityCase full = ch;
      full.name = stem + "_full_window_channel";
      full.spec = spec_of(channel_grid(kBothSources, kBothSides, {30, 240}), Fill::next_open, 1);
      full.end = 0;
      full.warmup = 240;
      full.bars = 0;
      cs.push_back(full);
    }
  }
  return cs;
}

// The level families on every shared file: both styles / sides and the filter, windows as
// real_data_cases chooses them.
std::vector<ParityCase> level_real_data_cases() {
  std::vector<ParityCase> cs;
  const auto files = test::shared_csv_files();
  if (files.empty()) {
    ParityCase c;
    c.name = "shared_data_missing_level";
    c.needs_shared_data = true;
    cs.push_back(c);
    return cs;
  }
  for (const auto& path : files) {
    const size_t n = count_data_rows(path);
    const std::string stem = test::sanitize_name(path.stem().string());
    auto series = [p = path] { return test::load_csv(p); };
    ParityCase bb, rsi;
    bb.name = stem + "_bollinger";
    rsi.name = stem + "_rsi_reversion";
    bb.series = rsi.series = series;
    bb.needs_shared_data = rsi.needs_shared_data = true;
    if (n < 1000) {
      bb.spec = spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides, {3, 6, 12}, {1, 2}),
                                 {3, 6}, {6, 12}, {0.9, 1.1}),
                        Fill::next_open, 2);
      rsi.spec = spec_of(rsi_grid(kBothSides, {2, 3, 6}, {25, 35}, {65, 75}));
      bb.bars = rsi.bars = 0;
    } else if (n <= 6000) {
      bb.spec = spec_of(bollinger_grid(kBothStyles, kBothSides, {10, 20, 50}, {1.5, 2, 2.5}),
                        Fill::close, 2);
      rsi.spec = spec_of(with_vol(rsi_grid(kBothSides, {7, 14, 28}, {20, 30}, {70, 80}), {10, 20},
                                  {20, 50}, {0.9, 1.2}),
                         Fill::next_open, 1, 1);
      bb.warmup = default_warmup(bb.spec.grid);
      rsi.warmup = default_warmup(rsi.spec.grid);
      bb.bars = n - 1 - bb.warmup;
      rsi.bars = n - 1 - rsi.warmup;
    } else {
      bb.spec = spec_of(with_vol(bollinger_grid(kBothStyles, kBothSides, {20, 60, 120}, {2, 3}),
                                 {10, 30}, {30, 120}, {0.8, 1.2}),
                        Fill::next_open, 0.5);
      rsi.spec = spec_of(rsi_grid(kBothSides, {14, 60}, {20, 30}, {70, 80}), Fill::close, 0.5);
      bb.bars = 3001;
      rsi.bars = 4099;
      rsi.end = n - 7919;
      bb.warmup = default_warmup(bb.spec.grid);
      rsi.warmup = default_warmup(rsi.spec.grid);
    }
    bb.spec.bars_per_year = rsi.spec.bars_per_year = n < 1000 ? 12 : 252;
    cs.push_back(bb);
    cs.push_back(rsi);
  }
  return cs;
}

// The cpu backend picks its widest SIMD kernel at run time; WFOD_CPU_KERNEL forces one, read
// once per process. Each variant gets its own entries ("cpu@avx2"), like ggml's CPU variants.
// (Declared here: the variant query is not part of the public headers.)
constexpr const char* kCpuKernels[] = {"generic", "avx2", "avx512"};

// The backends compared with cpu_ref: every name backend_names() lists, except the oracle;
// "cpu" once per kernel variant.
std::vector<std::string> backends_under_test() {
  std::vector<std::string> out;
  for (const std::string& n : backend_names()) {
    if (n == "cpu_ref") continue;
    if (n == "cpu") {
      for (const char* k : kCpuKernels) out.push_back(n + "@" + k);
    } else {
      out.push_back(n);
    }
  }
  return out;
}

// --- Running and comparing --------------------------------------------------------------------

std::unique_ptr<Backend> make_or_skip(const std::string& name, std::string* why) {
  try {
    return make_backend(name);
  } catch (const std::exception& e) {
    *why = e.what();
    return nullptr;
  }
}

// "cpu@avx2" -> selects the avx2 kernel (before the process first uses the cpu backend) and
// returns "cpu"; an empty string with *skip set when the variant cannot run in this process.
std::string select_backend(const std::string& entry, std::string* skip) {
  const size_t at = entry.find('@');
  if (at == std::string::npos) return entry;
  const std::string kernel = entry.substr(at + 1);
  ::setenv("WFOD_CPU_KERNEL", kernel.c_str(), 1);
  const std::string in_use = cpu::lane_kernel_variant();
  if (in_use != kernel) {
    *skip = "cpu kernel variant '" + kernel + "' not run: this process uses '" + in_use + "' (" +
            (in_use == "generic" || kernel == "avx512"
                 ? "the CPU may lack it, a sanitizer build carries generic only, or "
                 : "") +
            "an earlier test fixed the variant; ctest runs every entry in its own process)";
    return "";
  }
  return entry.substr(0, at);
}

// The backend a parity entry ("cpu", "cpu@avx2", "cuda") tests: created, or why the entry
// is skipped (visibly: a variant this process cannot run, no CUDA device) or fails.
struct BackendUnderTest {
  std::unique_ptr<Backend> backend;
  std::string skip, failure;
};

BackendUnderTest backend_under_test(const std::string& entry) {
  BackendUnderTest out;
  const std::string name = select_backend(entry, &out.skip);
  if (name.empty()) return out;
  std::string why;
  out.backend = make_or_skip(name, &why);
  if (!out.backend) {
    if (name == "cuda")
      out.skip = "cuda backend not available here: " + why;
    else
      out.failure = "make_backend(\"" + name + "\") failed: " + why;
  }
  return out;
}

SweepRequest request_of(const ParityCase& c, const HistoryView& h, int threads = 0) {
  SweepRequest req;
  req.history = h;
  req.strategy = c.spec;
  const size_t end = c.end ? c.end : h.size();
  const size_t warmup =
      c.warmup == SIZE_MAX ? static_cast<size_t>(c.spec.grid.max_period()) : c.warmup;
  req.window = {end, c.bars ? c.bars : end - 1 - warmup, warmup};
  req.rank = c.rank;
  req.threads = threads;
  return req;
}

// Where two position streams first differ, with the indicator values behind the decision,
// so that a case near the dead band's edge (SPEC §9) is reported as such.
std::string explain_position_mismatch(const HistoryView& h, const Combo& c,
                                      const std::vector<int8_t>& got,
                                      const std::vector<int8_t>& want) {
  size_t t = 0;
  while (t < got.size() && t < want.size() && got[t] == want[t]) ++t;
  std::string s = "positions differ first at t=" + std::to_string(t);
  if (t >= got.size() || t >= want.size()) return s + " (length)";
  s += ": got " + std::to_string(got[t]) + ", cpu_ref " + std::to_string(want[t]);
  char buf[256];
  if (c.family == Family::ma_cross) {
    const double f = moving_average(c.ma, h.close, c.fast)[t],
                 sl = moving_average(c.ma, h.close, c.slow)[t];
    const double edge = std::fabs(f - sl) / (kDeadBand * std::max(std::fabs(f), std::fabs(sl)));
    std::snprintf(buf, sizeof buf, "; MA_fast=%.17g MA_slow=%.17g |diff|/band=%.15g%s", f, sl, edge,
                  std::fabs(edge - 1) < 1e-2 ? " (AT THE DEAD BAND EDGE: SPEC §9 exception)" : "");
    s += buf;
  }
  if (c.family == Family::bollinger) {
    std::snprintf(buf, sizeof buf, "; SMA=%.17g STD=%.17g k=%g", sma(h.close, c.n)[t],
                  stdev(h.close, c.n)[t], c.k);
    s += buf;
  }
  if (c.family == Family::rsi_reversion) {
    std::snprintf(buf, sizeof buf, "; RSI=%.17g lo=%g hi=%g", rsi(h.close, c.n)[t], c.lo, c.hi);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "; close=%.17g", h.close[t]);
  return s + buf;
}

void expect_sweeps_match(const SweepResult& got, const SweepResult& want) {
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top)) << "top-K ids (in order) differ";
  for (size_t i = 0; i < want.top.size(); ++i) {
    SCOPED_TRACE("rank " + std::to_string(i) + " id=" + std::to_string(want.top[i].combo.id));
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics, kRel, kAbs));
    EXPECT_TRUE(test::near("objective", got.top[i].objective, want.top[i].objective, kRel, kAbs));
  }
}

class Parity : public ::testing::TestWithParam<std::tuple<ParityCase, std::string>> {};

TEST_P(Parity, MatchesCpuRef) {
  const auto& [c, entry] = GetParam();
  if (c.needs_shared_data && !std::filesystem::is_directory(test::shared_data_dir()))
    GTEST_SKIP() << "shared data folder " << test::shared_data_dir()
                 << " is missing: real-data parity NOT run";
  BackendUnderTest under_test = backend_under_test(entry);
  if (!under_test.skip.empty()) GTEST_SKIP() << under_test.skip;
  if (!under_test.backend) FAIL() << under_test.failure;
  const std::unique_ptr<Backend>& be = under_test.backend;
  const std::string backend = std::string(be->name());
  auto ref = make_backend("cpu_ref");
  const Series s = c.series();
  const HistoryView h = HistoryView::of(s);
  const SweepRequest req = request_of(c, h);
  SCOPED_TRACE(c.name + ": " + std::to_string(h.size()) + " bars, window end=" +
               std::to_string(req.window.end) + " W=" + std::to_string(req.window.bars) +
               " warmup=" + std::to_string(req.window.warmup) + ", grid of " +
               std::to_string(c.spec.grid.size()) + " combos, backend " + backend);

  const SweepResult want = ref->sweep(req);
  const SweepResult got = be->sweep(req);
  EXPECT_EQ(want.evaluated + want.skipped, c.spec.grid.size());
  // One line of what was compared, so a log shows the case was not vacuous.
  std::printf("[ parity   ] %s vs cpu_ref: %s: evaluated=%llu skipped=%llu ranked=%llu",
              entry.c_str(), c.name.c_str(), static_cast<unsigned long long>(want.evaluated),
              static_cast<unsigned long long>(want.skipped),
              static_cast<unsigned long long>(want.ranked));
  if (!want.top.empty())
    std::printf(" best id=%llu trades=%lld objective=%.6g",
                static_cast<unsigned long long>(want.top[0].combo.id),
                static_cast<long long>(want.top[0].metrics.trades), want.top[0].objective);
  std::printf(" (cpu_ref %.3fs, %s %.3fs)\n", want.seconds, backend.c_str(), got.seconds);
  expect_sweeps_match(got, want);

  // evaluate(): the top ids and a seeded random sample of the rest (constraints ignored).
  std::vector<uint64_t> valid;
  for (uint64_t id = 0; id < c.spec.grid.size(); ++id)
    if (c.spec.grid.decode(id).valid()) valid.push_back(id);
  const uint64_t seed = std::hash<std::string>{}(c.name) & 0xffffffu;
  SCOPED_TRACE("sample seed=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> ids = test::ids_of(want.top);
  std::vector<uint64_t> rest = valid;
  std::shuffle(rest.begin(), rest.end(), rng);
  rest.resize(std::min<size_t>(rest.size(), 40));
  ids.insert(ids.end(), rest.begin(), rest.end());
  const std::vector<Metrics> mg = be->evaluate(req, ids), mw = ref->evaluate(req, ids);
  ASSERT_EQ(mg.size(), ids.size());
  ASSERT_EQ(mw.size(), ids.size());
  size_t traded = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    SCOPED_TRACE("evaluate id=" + std::to_string(ids[i]));
    EXPECT_TRUE(test::metrics_near(mg[i], mw[i], kRel, kAbs));
    traded += mw[i].trades > 0;
  }
  // Identical positions (SPEC §9) for a few of them, from the anchor.
  for (size_t i = 0; i < ids.size(); i += std::max<size_t>(1, ids.size() / 6)) {
    const Combo combo = c.spec.grid.decode(ids[i]);
    const auto pg = be->positions(h, c.spec, combo), pw = ref->positions(h, c.spec, combo);
    EXPECT_TRUE(pg == pw) << "id " << ids[i] << ": " << explain_position_mismatch(h, combo, pg, pw);
  }
  // The tie cases must really hold exact ties (bit-equal objectives in the oracle) between
  // combos whose positions differ.
  if (c.name.rfind("exact_ties", 0) == 0) {
    size_t tied_apart = 0;
    for (size_t i = 1; i < want.top.size(); ++i)
      if (want.top[i].objective == want.top[i - 1].objective &&
          ref->positions(h, c.spec, want.top[i].combo) !=
              ref->positions(h, c.spec, want.top[i - 1].combo))
        ++tied_apart;
    EXPECT_GE(tied_apart, 4u) << "too few exact ties between combos with different positions";
    std::printf("[ parity   ] %s: %zu adjacent ranks tie exactly with different positions\n",
                c.name.c_str(), tied_apart);
  }
  // Spike cases must really take some equity through zero (the sequential path of §6).
  if (c.name.find("spike") != std::string::npos) {
    EXPECT_TRUE(std::any_of(mw.begin(), mw.end(), [](const Metrics& m) {
      return m.max_drawdown > 1 && m.cagr == -1;
    })) << "no sampled combo's equity went through zero";
  }
  // The case means something: combos trade unless prices never move.
  if (c.name.rfind("constant_prices", 0) != 0) {
    EXPECT_GT(traded, 0u) << "no sampled combo trades: the case compares only zeros";
  } else {
    EXPECT_EQ(traded, 0u);
    EXPECT_EQ(want.ranked, want.evaluated);
  }
}

std::string parity_name(const ::testing::TestParamInfo<Parity::ParamType>& tp) {
  return std::get<0>(tp.param).name + "__" + test::sanitize_name(std::get<1>(tp.param));
}

INSTANTIATE_TEST_SUITE_P(Synthetic, Parity,
                         ::testing::Combine(::testing::ValuesIn(synthetic_cases()),
                                            ::testing::ValuesIn(backends_under_test())),
                         parity_name);
INSTANTIATE_TEST_SUITE_P(RealData, Parity,
                         ::testing::Combine(::testing::ValuesIn(real_data_cases()),
                                            ::testing::ValuesIn(backends_under_test())),
                         parity_name);
INSTANTIATE_TEST_SUITE_P(LevelFamilies, Parity,
                         ::testing::Combine(::testing::ValuesIn(level_family_cases()),
                                            ::testing::ValuesIn(backends_under_test())),
                         parity_name);
INSTANTIATE_TEST_SUITE_P(LevelFamiliesRealData, Parity,
                         ::testing::Combine(::testing::ValuesIn(level_real_data_cases()),
                                            ::testing::ValuesIn(backends_under_test())),
                         parity_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Parity);

// --- Seeded random shapes (STYLE habit 8) -----------------------------------------------------

// A random case: series length, price level, grid axes, fill, costs, window, warm-up, rank.
ParityCase random_case(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto periods = [&](int lo, int hi, size_t count) {
    std::vector<int> v;
    for (size_t i = 0; i < count; ++i)
      v.push_back(lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1)));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  ParityCase c;
  c.name = "random_" + std::to_string(seed);
  const size_t n = 3 + pick(2500);
  const double level = std::array<double, 4>{1e-3, 1, 100, 1e5}[pick(4)];
  const double vol = std::array<double, 3>{0.002, 0.01, 0.03}[pick(3)];
  const uint64_t series_seed = rng();
  c.series = [=] { return test::random_walk(n, series_seed, level, vol, vol / 3); };
  const int max_p = static_cast<int>(std::max<size_t>(1, std::min<size_t>(n / 2, 80)));
  Grid g;
  const size_t family = pick(4);
  if (family == 2) {
    g = bollinger_grid(pick(2) ? kBothStyles : std::vector<Style>{Style::breakout},
                       pick(2) ? kBothSides : std::vector<Side>{Side::long_only},
                       periods(1, max_p, 1 + pick(3)), {0.5 + 0.5 * static_cast<double>(pick(4))});
  } else if (family == 3) {
    g = rsi_grid(pick(2) ? kBothSides : std::vector<Side>{Side::long_short},
                 periods(1, max_p, 1 + pick(3)), {10.0 + 10.0 * static_cast<double>(pick(4))},
                 {50.0 + 10.0 * static_cast<double>(pick(4)), 95});
  } else if (family == 0) {
    std::vector<MaType> mas;
    for (MaType m : kAllMa)
      if (pick(2)) mas.push_back(m);
    if (mas.empty()) mas.push_back(kAllMa[pick(4)]);
    g = ma_grid(mas, pick(2) ? kBothSides : std::vector<Side>{Side::long_short},
                pick(2) ? kBothEntries : std::vector<Entry>{Entry::cross},
                periods(1, max_p, 1 + pick(3)), periods(1, max_p, 1 + pick(3)));
  } else {
    g = channel_grid(pick(2) ? kBothSources : std::vector<Source>{Source::high_low},
                     pick(2) ? kBothSides : std::vector<Side>{Side::long_only},
                     periods(1, max_p, 1 + pick(3)));
  }
  if (pick(3) == 0)
    g = with_vol(g, periods(1, max_p, 1 + pick(2)), periods(1, max_p, 1 + pick(2)),
                 {0.5 + 0.25 * static_cast<double>(pick(4))});
  c.spec = spec_of(g, pick(2) ? Fill::close : Fill::next_open, static_cast<double>(pick(4)),
                   static_cast<double>(pick(2)));
  c.warmup = pick(static_cast<size_t>(g.max_period()) + 1);
  if (c.warmup + 2 > n) c.warmup = n - 2;
  c.end = n - pick(std::min<size_t>(n - c.warmup - 1, 50));  // T - 1 - warmup >= 1
  c.bars = 1 + pick(c.end - 1 - c.warmup);
  c.rank.min_trades = static_cast<int64_t>(pick(3));
  c.rank.max_drawdown = pick(2) ? 1.0 : 0.5;
  c.rank.top = 1 + pick(12);
  c.rank.objective = std::array<Objective, 6>{Objective::sharpe, Objective::sortino,
                                              Objective::calmar, Objective::total_return,
                                              Objective::cagr,   Objective::profit_factor}[pick(6)];
  return c;
}

class ParityRandomShapes : public ::testing::TestWithParam<std::string> {};

TEST_P(ParityRandomShapes, MatchCpuRef) {
  BackendUnderTest under_test = backend_under_test(GetParam());
  if (!under_test.skip.empty()) GTEST_SKIP() << under_test.skip;
  if (!under_test.backend) FAIL() << under_test.failure;
  const std::unique_ptr<Backend>& be = under_test.backend;
  const std::string backend = std::string(be->name());
  auto ref = make_backend("cpu_ref");
  constexpr uint64_t kBaseSeed = 9000;
  const uint64_t cases = std::getenv("WFOD_PARITY_RANDOM_CASES")
                             ? std::strtoull(std::getenv("WFOD_PARITY_RANDOM_CASES"), nullptr, 10)
                             : 60;
  for (uint64_t i = 0; i < cases; ++i) {
    const ParityCase c = random_case(kBaseSeed + i);
    const Series s = c.series();
    const HistoryView h = HistoryView::of(s);
    const SweepRequest req = request_of(c, h);
    SCOPED_TRACE("seed=" + std::to_string(kBaseSeed + i) + " bars=" + std::to_string(h.size()) +
                 " end=" + std::to_string(req.window.end) + " W=" +
                 std::to_string(req.window.bars) + " warmup=" + std::to_string(req.window.warmup) +
                 " combos=" + std::to_string(c.spec.grid.size()));
    expect_sweeps_match(be->sweep(req), ref->sweep(req));
    std::vector<uint64_t> ids;
    for (uint64_t id = 0; id < c.spec.grid.size(); ++id)
      if (c.spec.grid.decode(id).valid()) ids.push_back(id);
    if (ids.empty()) continue;
    const auto mg = be->evaluate(req, ids), mw = ref->evaluate(req, ids);
    for (size_t k = 0; k < ids.size(); ++k)
      EXPECT_TRUE(test::metrics_near(mg[k], mw[k], kRel, kAbs)) << "evaluate id " << ids[k];
    if (::testing::Test::HasFailure()) break;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeded, ParityRandomShapes, ::testing::ValuesIn(backends_under_test()),
                         [](const auto& tp) { return test::sanitize_name(tp.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ParityRandomShapes);

// --- What the cuda backend does not run for a family: refused by name, never wrong ---------

// A level family's stream the cuda backend cannot run (its rolling indicators lack the rows:
// cuda::supports) is refused under "cuda" by an error naming the family and the backend, and
// runs on cpu under "auto"; one it can run is held to cpu by the stream parity tests.
TEST(CudaLevelFamilies, StreamsRunOrAreRefusedByName) {
  std::string why;
  auto cuda = make_or_skip("cuda", &why);
  if (!cuda) GTEST_SKIP() << "cuda backend not available here: " << why;
  const Series s = test::random_walk(400, 115, 100, 0.01, 0.003);
  const HistoryView h = HistoryView::of(s);
  for (const Grid& g : {bollinger_grid(kBothStyles, kBothSides), rsi_grid(kBothSides)}) {
    const std::string family(to_string(g.family));
    SCOPED_TRACE(family);
    StreamSpec spec;
    spec.strategy = spec_of(g);
    spec.window = 100;
    spec.warmup = default_warmup(g);
    bool refused = false;
    try {
      cuda->open_stream(spec, h);
    } catch (const std::invalid_argument& e) {
      refused = true;
      const std::string what = e.what();
      EXPECT_NE(what.find(family), std::string::npos) << what;
      EXPECT_NE(what.find("cuda"), std::string::npos) << what;
    }
    std::printf("[ parity   ] cuda %s stream: %s\n", family.c_str(),
                refused ? "refused by name" : "runs on the device");
    auto automatic = make_backend("auto");
    try {
      automatic->open_stream(spec, h);
    } catch (const std::exception& e) {
      EXPECT_EQ(std::string(e.what()).find("the cuda backend does not run"), std::string::npos)
          << e.what();
    }
  }
}

// --- Which backends the table covers, visibly ------------------------------------------------

TEST(ParityBackends, EveryBackendIsCoveredOrVisiblySkipped) {
  const std::vector<std::string> names = backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "cpu_ref"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "cpu"), names.end());
  std::string covered;
  for (const std::string& n : backends_under_test()) covered += " " + n;
  std::printf("[ parity   ] backends compared with cpu_ref:%s\n", covered.c_str());
  if (std::find(names.begin(), names.end(), "cuda") == names.end()) {
    EXPECT_THROW(make_backend("cuda"), std::invalid_argument);
    std::string why;
    make_or_skip("cuda", &why);
    GTEST_SKIP() << "cuda backend not in this build, its parity cases are NOT run: " << why;
  }
}

// --- The CPU backend's thread split never changes the answer --------------------------------

TEST(ParityThreads, CpuAnyThreadCountMatchesCpuRef) {
  auto ref = make_backend("cpu_ref");
  auto cpu = make_backend("cpu");
  int run = 0;
  for (const ParityCase& c : synthetic_cases()) {
    // A big filtered grid, a tiny grid (more threads than combos), W = 1, the 3-bar history.
    if (c.name != "ma_vol_filter_close" && c.name != "channel_close_source" &&
        c.name != "w1_channel" && c.name != "three_bars" && c.name != "all_ma_w4999" &&
        c.name != "long_window_chunked_channel_vol" &&
        c.name != "long_window_chunked_ma_cross_spike" && c.name != "bollinger_vol_filter" &&
        c.name != "long_window_chunked_bollinger" && c.name != "long_window_chunked_rsi_vol")
      continue;
    ++run;
    const Series s = c.series();
    const HistoryView h = HistoryView::of(s);
    const SweepResult want = ref->sweep(request_of(c, h, 1));
    for (int threads : {1, 2, 3, 5, 16, 64}) {
      SCOPED_TRACE(c.name + " threads=" + std::to_string(threads));
      expect_sweeps_match(cpu->sweep(request_of(c, h, threads)), want);
    }
  }
  EXPECT_EQ(run, 10);
}

// --- Walk-forward parity on real files -------------------------------------------------------

class WalkParity : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(WalkParity, FoldWinnersAndOosMatchCpuRef) {
  const auto& [file, entry] = GetParam();
  const std::string path = test::shared_data_dir() + "/" + file;
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << path << " is missing: walk-forward parity NOT run";
  BackendUnderTest under_test = backend_under_test(entry);
  if (!under_test.skip.empty()) GTEST_SKIP() << under_test.skip;
  if (!under_test.backend) FAIL() << under_test.failure;
  const std::unique_ptr<Backend>& be = under_test.backend;
  const std::string backend = std::string(be->name());
  auto ref = make_backend("cpu_ref");
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const StrategySpec spec = spec_of(
      ma_grid(kAllMa, kBothSides, {Entry::state}, {5, 10, 20}, {20, 50}), Fill::next_open, 2, 1);
  RankSpec rank;
  rank.min_trades = 3;
  for (WalkMode mode : {WalkMode::rolling, WalkMode::anchored}) {
    const WalkSpec walk{s.size() > 4000 ? 1000u : 500u, s.size() > 4000 ? 250u : 125u, mode,
                        default_warmup(spec.grid)};
    SCOPED_TRACE(file + " backend=" + backend + " mode=" + std::string(to_string(mode)));
    const WalkResult want = walk_forward(*ref, h, spec, rank, walk, Precision::exact, 1);
    const WalkResult got = walk_forward(*be, h, spec, rank, walk, Precision::exact, 2);
    ASSERT_EQ(got.folds.size(), want.folds.size());
    ASSERT_GE(want.folds.size(), 4u);
    for (size_t f = 0; f < want.folds.size(); ++f) {
      SCOPED_TRACE("fold " + std::to_string(f));
      const Fold &g = got.folds[f], &w = want.folds[f];
      EXPECT_EQ(g.is_first, w.is_first);
      EXPECT_EQ(g.is_last, w.is_last);
      EXPECT_EQ(g.oos_first, w.oos_first);
      EXPECT_EQ(g.oos_last, w.oos_last);
      EXPECT_EQ(g.evaluated, w.evaluated);
      EXPECT_EQ(g.skipped, w.skipped);
      ASSERT_EQ(g.winner.has_value(), w.winner.has_value());
      if (w.winner) {
        EXPECT_EQ(g.winner->combo.id, w.winner->combo.id);
      }
      EXPECT_TRUE(test::metrics_near(g.is, w.is, kRel, kAbs)) << "IS";
      EXPECT_TRUE(test::metrics_near(g.oos, w.oos, kRel, kAbs)) << "OOS";
    }
    EXPECT_TRUE(test::metrics_near(got.oos, want.oos, kRel, kAbs)) << "whole OOS series";
    EXPECT_TRUE(test::near("wfe", got.wfe, want.wfe, kRel, kAbs));
    ASSERT_EQ(got.oos_returns.size(), want.oos_returns.size());
    for (size_t i = 0; i < want.oos_returns.size(); ++i)
      ASSERT_TRUE(test::near("oos_returns[" + std::to_string(i) + "]", got.oos_returns[i],
                             want.oos_returns[i], kRel, kAbs));
  }
}

INSTANTIATE_TEST_SUITE_P(RealData, WalkParity,
                         ::testing::Combine(::testing::Values("goog_d1_2004-2013.csv",
                                                              "eurusd_h1_2017-2018.csv"),
                                            ::testing::ValuesIn(backends_under_test())),
                         [](const auto& tp) {
                           return test::sanitize_name(std::get<0>(tp.param)) + "__" +
                                  test::sanitize_name(std::get<1>(tp.param));
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(WalkParity);

}  // namespace
}  // namespace wfod
