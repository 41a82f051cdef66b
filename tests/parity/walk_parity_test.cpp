// Walk-forward on a backend that prepares once per walk (cuda: the walk's PreparedHistory)
// against the float64 oracle cpu_ref (SPEC §8, §9): every fold's winner id, IS and OOS
// metrics, the stitched series, for rolling and anchored folds, every family, and fold
// selectors that call back into the backend between folds. And the preparation itself:
// sweeps of windows inside one preparation equal, bit for bit, sweeps each prepared alone.
// The cpu entries run everywhere (their preparation holds nothing); cuda skips visibly
// without a device.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod {
namespace {

constexpr double kRel = 1e-9, kAbs = 1e-12;  // SPEC §9

struct WalkCase {
  std::string name;
  StrategySpec spec;
  WalkMode mode = WalkMode::rolling;
  size_t is = 600, oos = 150;
  // none: the arg-max; robust: selection::select with hysteresis, plateau and PBO; probe:
  // the arg-max after evaluating the previous winner on a prefix history, an earlier window
  // and edited bars (a backend's preparation must serve or redo requests that differ).
  // scored, scored_plateau: selection::select without PBO (with or without the plateau),
  // the walk's preparation keeping each fold's scores for it (WalkSpec::scores_follow).
  enum Selector { none, robust, probe, scored, scored_plateau } selector = none;
};

void PrintTo(const WalkCase& c, std::ostream* os) { *os << c.name; }

Grid ma_grid(std::vector<MaType> mas, std::vector<Entry> entries) {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {3, 5, 10, 20};
  g.slow = {10, 30, 50};
  g.ma = std::move(mas);
  g.side = {Side::long_short, Side::long_only};
  g.entry = std::move(entries);
  return g;
}

Grid channel_grid() {
  Grid g;
  g.family = Family::channel_breakout;
  g.n = {5, 10, 20, 55};
  g.source = {Source::close, Source::high_low};
  g.side = {Side::long_short, Side::long_only};
  return g;
}

Grid bollinger_grid() {
  Grid g;
  g.family = Family::bollinger;
  g.n = {5, 20, 50};
  g.k = {1.0, 2.0};
  g.style = {Style::reversion, Style::breakout};
  g.side = {Side::long_short, Side::long_only};
  return g;
}

Grid rsi_grid() {
  Grid g;
  g.family = Family::rsi_reversion;
  g.n = {2, 7, 14};
  g.lo = {25, 35};
  g.hi = {30, 65, 75};
  g.side = {Side::long_short, Side::long_only};
  return g;
}

Grid with_vol(Grid g) {
  g.vol_short = {5, 20};
  g.vol_long = {20, 50};
  g.vol_threshold = {0.9, 1.2};
  return g;
}

const std::vector<MaType> kAllMa = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};

std::vector<WalkCase> walk_cases() {
  using M = WalkMode;
  std::vector<WalkCase> out;
  out.push_back({"ma_all_rolling",
                 test::spec_of(ma_grid(kAllMa, {Entry::state, Entry::cross}), Fill::next_open, 2)});
  out.push_back({"ma_all_anchored", test::spec_of(ma_grid(kAllMa, {Entry::state}), Fill::close, 1),
                 M::anchored});
  out.push_back({"ma_vol_filter_rolling",
                 test::spec_of(with_vol(ma_grid({MaType::ema, MaType::hma}, {Entry::cross})),
                               Fill::next_open, 0),
                 M::rolling, 400, 97});
  out.push_back(
      {"channel_anchored", test::spec_of(channel_grid(), Fill::next_open, 3), M::anchored});
  out.push_back({"bollinger_rolling", test::spec_of(bollinger_grid(), Fill::close, 1)});
  out.push_back({"bollinger_anchored_robust", test::spec_of(bollinger_grid(), Fill::next_open, 2),
                 M::anchored, 600, 150, WalkCase::robust});
  out.push_back({"rsi_rolling", test::spec_of(rsi_grid(), Fill::close, 1), M::rolling, 500, 125});
  out.push_back({"ma_rolling_robust",
                 test::spec_of(ma_grid(kAllMa, {Entry::state}), Fill::close, 1), M::rolling, 600,
                 150, WalkCase::robust});
  out.push_back({"channel_rolling_probe", test::spec_of(with_vol(channel_grid()), Fill::close, 1),
                 M::rolling, 600, 150, WalkCase::probe});
  out.push_back({"ma_rolling_scored",
                 test::spec_of(ma_grid(kAllMa, {Entry::state, Entry::cross}), Fill::next_open, 2),
                 M::rolling, 600, 150, WalkCase::scored});
  out.push_back({"channel_anchored_scored_plateau", test::spec_of(channel_grid(), Fill::close, 1),
                 M::anchored, 500, 125, WalkCase::scored_plateau});
  out.push_back({"rsi_rolling_scored_plateau", test::spec_of(rsi_grid(), Fill::next_open, 1),
                 M::rolling, 500, 125, WalkCase::scored_plateau});
  return out;
}

FoldSelector selector_of(WalkCase::Selector kind, Backend& backend, const HistoryView& h) {
  if (kind == WalkCase::none) return {};
  if (kind == WalkCase::robust || kind == WalkCase::scored || kind == WalkCase::scored_plateau)
    return [&backend, kind](const SweepRequest& req, const SweepResult& sweep,
                            const std::optional<Ranked>& previous) -> std::optional<Ranked> {
      selection::SelectionSpec spec;
      spec.hysteresis_rel = 0.05;
      spec.plateau = kind != WalkCase::scored;
      spec.pbo_blocks = kind == WalkCase::robust ? 8 : 0;
      std::optional<uint64_t> current;
      if (previous) current = previous->combo.id;
      return selection::select(backend, req, sweep, current, spec).published;
    };
  return [&backend, h](const SweepRequest& req, const SweepResult& sweep,
                       const std::optional<Ranked>& previous) -> std::optional<Ranked> {
    if (previous) {
      // The previous winner on a prefix history, then on a window ending earlier: requests
      // on the walk's preparation that it must not confuse with its own.
      SweepRequest prefix = req;
      prefix.history = h.prefix(req.window.end);
      const uint64_t id = previous->combo.id;
      backend.evaluate(prefix, std::span<const uint64_t>(&id, 1));
      SweepRequest earlier = req;
      earlier.window.end -= 1;
      backend.evaluate(earlier, std::span<const uint64_t>(&id, 1));
      // And on bars edited inside the window: the next fold must prepare again.
      Series edited;
      edited.ts_ns.assign(h.ts_ns.begin(), h.ts_ns.end());
      edited.open.assign(h.open.begin(), h.open.end());
      edited.high.assign(h.high.begin(), h.high.end());
      edited.low.assign(h.low.begin(), h.low.end());
      edited.close.assign(h.close.begin(), h.close.end());
      edited.close[req.window.end - 5] *= 1.001;
      SweepRequest other = req;
      other.history = HistoryView::of(edited);
      backend.evaluate(other, std::span<const uint64_t>(&id, 1));
    }
    if (sweep.top.empty()) return std::nullopt;
    return sweep.top.front();
  };
}

class WalkPrepared : public ::testing::TestWithParam<std::tuple<WalkCase, std::string>> {};

TEST_P(WalkPrepared, FoldsMatchCpuRef) {
  const auto& [c, name] = GetParam();
  test::MadeBackend under_test = test::make_or_skip(name);
  if (!under_test.skip.empty()) GTEST_SKIP() << under_test.skip;
  Backend& be = *under_test.backend;
  auto ref = make_backend("cpu_ref");
  const Series s = test::random_walk(3000, 17, 100, 0.01);
  const HistoryView h = HistoryView::of(s);
  RankSpec rank;
  rank.min_trades = 2;
  WalkSpec walk;
  walk.is_bars = c.is;
  walk.oos_bars = c.oos;
  walk.mode = c.mode;
  walk.warmup = default_warmup(c.spec.grid);
  walk.scores_follow = c.selector == WalkCase::scored || c.selector == WalkCase::scored_plateau;
  SCOPED_TRACE(c.name + " on " + name);
  const WalkResult want = walk_forward(*ref, h, c.spec, rank, walk, Precision::exact, 1, {},
                                       selector_of(c.selector, *ref, h));
  const WalkResult got = walk_forward(be, h, c.spec, rank, walk, Precision::exact, 2, {},
                                      selector_of(c.selector, be, h));
  ASSERT_GE(want.folds.size(), 4u);
  ASSERT_EQ(got.folds.size(), want.folds.size());
  size_t with_winner = 0, switches = 0;
  for (size_t f = 0; f < want.folds.size(); ++f) {
    SCOPED_TRACE("fold " + std::to_string(f));
    const Fold &g = got.folds[f], &w = want.folds[f];
    EXPECT_EQ(g.is_first, w.is_first);
    EXPECT_EQ(g.oos_last, w.oos_last);
    EXPECT_EQ(g.evaluated, w.evaluated);
    EXPECT_EQ(g.skipped, w.skipped);
    ASSERT_EQ(g.winner.has_value(), w.winner.has_value());
    if (w.winner) {
      ++with_winner;
      EXPECT_EQ(g.winner->combo.id, w.winner->combo.id);
      if (f > 0 && want.folds[f - 1].winner &&
          want.folds[f - 1].winner->combo.id != w.winner->combo.id)
        ++switches;
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
  // Not vacuous: folds with winners, and winners that change between folds.
  EXPECT_GE(with_winner, 3u);
  std::printf("[ walk     ] %s vs cpu_ref: %s: %zu folds, %zu with a winner, %zu switches\n",
              name.c_str(), c.name.c_str(), want.folds.size(), with_winner, switches);
}

INSTANTIATE_TEST_SUITE_P(Shapes, WalkPrepared,
                         ::testing::Combine(::testing::ValuesIn(walk_cases()),
                                            ::testing::Values("cpu", "cuda")),
                         [](const auto& tp) {
                           return std::get<0>(tp.param).name + "__" + std::get<1>(tp.param);
                         });

// Rows, prefix sums and tables built once over the whole history serve every window inside
// it bit for bit: the same backend sweeping windows ending at several bars on one
// PreparedHistory of the whole history equals a fresh backend per window prepared (without
// one) only up to the window's end; evaluate and block_summaries likewise.
class WalkPreparation : public ::testing::TestWithParam<std::string> {};

TEST_P(WalkPreparation, WindowsInsideOnePreparationEqualSeparatePreparations) {
  test::MadeBackend shared = test::make_or_skip(GetParam());
  if (!shared.skip.empty()) GTEST_SKIP() << shared.skip;
  const Series s = test::random_walk(2500, 5, 100, 0.012);
  const HistoryView h = HistoryView::of(s);
  const std::vector<StrategySpec> specs = {
      test::spec_of(ma_grid(kAllMa, {Entry::state, Entry::cross}), Fill::next_open, 2),
      test::spec_of(with_vol(ma_grid({MaType::sma, MaType::hma}, {Entry::state})), Fill::close, 1),
      test::spec_of(channel_grid(), Fill::next_open, 1),
      test::spec_of(bollinger_grid(), Fill::close, 1),
      test::spec_of(rsi_grid(), Fill::next_open, 3)};
  size_t compared = 0;
  for (const StrategySpec& spec : specs) {
    SCOPED_TRACE(std::string(to_string(spec.grid.family)));
    const std::shared_ptr<PreparedHistory> prepared = shared.backend->prepare(h, spec, {});
    for (size_t end : {900u, 1333u, 1334u, 2048u, 2049u, 2500u}) {
      SCOPED_TRACE("window end " + std::to_string(end));
      SweepRequest req;
      req.history = h;
      req.strategy = spec;
      req.window = {end, 600, default_warmup(spec.grid)};
      req.rank.top = 10;
      req.prepared = prepared;
      const SweepResult got = shared.backend->sweep(req);
      std::vector<uint64_t> ids;
      for (const Ranked& r : got.top) ids.push_back(r.combo.id);
      const std::vector<Metrics> got_eval = shared.backend->evaluate(req, ids);
      const size_t cuts[] = {req.window.first() + 100, req.window.first() + 377};
      const std::vector<Summary> got_blocks = shared.backend->block_summaries(req, cuts);

      auto alone = make_backend(GetParam());
      SweepRequest own = req;
      own.history = h.prefix(end);
      own.prepared = nullptr;
      test::expect_same_sweep_bits(got, alone->sweep(own));
      const std::vector<Metrics> want_eval = alone->evaluate(own, ids);
      ASSERT_EQ(got_eval.size(), want_eval.size());
      for (size_t i = 0; i < ids.size(); ++i)
        for (const test::RealField& f : test::kRealFields)
          EXPECT_TRUE(test::same_bits(got_eval[i].*f.member, want_eval[i].*f.member)) << f.name;
      const std::vector<Summary> want_blocks = alone->block_summaries(own, cuts);
      ASSERT_EQ(got_blocks.size(), want_blocks.size());
      for (size_t i = 0; i < want_blocks.size(); ++i) {
        test::expect_same_summary_counts(got_blocks[i], want_blocks[i]);
        const auto g = test::summary_reals(got_blocks[i]), w = test::summary_reals(want_blocks[i]);
        for (size_t j = 0; j < g.size(); ++j)
          ASSERT_TRUE(test::same_bits(g[j], w[j])) << i << "." << j;
      }
      compared += got.top.size();
    }
  }
  EXPECT_GT(compared, 100u);
}

INSTANTIATE_TEST_SUITE_P(Backends, WalkPreparation, ::testing::Values("cpu", "cuda"),
                         [](const auto& tp) { return std::string(tp.param); });

}  // namespace
}  // namespace wfod
