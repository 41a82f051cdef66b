// Block Summaries in the sweep's own pass (PrepareSpec::pbo_blocks, LaneBlocks): the fused
// lane kernel must give, bit for bit, the block Summaries of the separate pass (a chain of
// LaneRanges, cpu_blocks.cpp) and the same range Summary as without blocks, in every kernel
// variant this CPU runs (called directly, so one process checks them all); and a cpu sweep on
// such a preparation must rank bit-identically to a plain sweep and leave block Summaries that
// equal block_summaries() on a backend that never fused. Real data from the shared folder,
// several block counts, windows that the blocks do not divide evenly, every family, the vol
// filter and stops (the stops cases' data, long windows and equity through zero too).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cpu/cpu_prepared.hpp"
#include "cpu/lane_groups.hpp"
#include "cpu/lane_kernel.hpp"
#include "cpu/sweep_tiles.hpp"
#include "src/cpu_isa.hpp"
#include "src/indicator_cache.hpp"
#include "src/lane_setup.hpp"
#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stops_cases.hpp"
#include "wfod/backend.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod::cpu {
// Each variant's entry point (lane_kernel_<isa>.cpp), to check them all in one process.
#define WFOD_DECLARE_VARIANT(isa)                                                   \
  namespace isa {                                                                   \
  void run_lanes(int, bool, const BarTables&, const double*, const LaneInput*, int, \
                 const LaneRange&, Summary*, const LaneBlocks*);                    \
  }
WFOD_FOR_EACH_CPU_VARIANT(WFOD_DECLARE_VARIANT)
#undef WFOD_DECLARE_VARIANT
}  // namespace wfod::cpu

namespace wfod {
namespace {

// The engine core's lane vocabulary (BarTables, LaneInput, IndicatorCache, StopState).
using namespace wfod::detail;

using RunLanesFn = void (*)(int, bool, const BarTables&, const double*, const LaneInput*, int,
                            const cpu::LaneRange&, Summary*, const cpu::LaneBlocks*);

struct KernelVariant {
  CpuIsa isa;
  RunLanesFn run;
};

// The variants built with the fused block tallies: avx512 alone (lane_kernel_avx512.cpp).
std::vector<KernelVariant> kernel_variants() {
  std::vector<KernelVariant> out;
#define WFOD_VARIANT_ENTRY(isa)                                   \
  if (cpu_supports(CpuIsa::isa) && CpuIsa::isa == CpuIsa::avx512) \
    out.push_back({CpuIsa::isa, cpu::isa::run_lanes});
  WFOD_FOR_EACH_CPU_VARIANT(WFOD_VARIANT_ENTRY)
#undef WFOD_VARIANT_ENTRY
  return out;
}

struct BlocksCase {
  std::string name;
  std::string file;  // a stem of the shared data folder; empty: `synthetic`
  StrategySpec spec;
  size_t bars = 0;  // W; 0 = every bar after the warm-up
  int threads = 1;
  std::function<Series()> synthetic = {};
  size_t budget = 0;  // SweepRequest::memory_budget
};

void PrintTo(const BlocksCase& c, std::ostream* os) { *os << c.name; }

std::vector<BlocksCase> blocks_cases() {
  std::vector<BlocksCase> cs;
  {
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {2, 3, 5, 8, 13};
    g.slow = {10, 21, 34, 55};
    g.ma = {MaType::sma, MaType::ema, MaType::hma};
    g.side = test::kBothSides;
    g.entry = {Entry::state, Entry::cross};
    cs.push_back({"ma_cross_daily", "goog_d1_2004-2013", test::spec_of(g, Fill::next_open, 2)});
    Grid v = g;
    v.ma = {MaType::sma, MaType::wma};
    v.vol_short = {5, 20};
    v.vol_long = {50};
    v.vol_threshold = {0.9, 1.2};
    BlocksCase c{"ma_cross_vol_hourly", "eurusd_h1_2017-2018", test::spec_of(v, Fill::close, 1)};
    c.bars = 4321;
    cs.push_back(c);
  }
  {
    Grid g;
    g.family = Family::channel_breakout;
    g.n = {5, 10, 20, 55};
    g.source = {Source::close, Source::high_low};
    g.side = test::kBothSides;
    BlocksCase c{"channel_minutes", "usdjpy_fxcm_bid_m1_2013-02",
                 test::spec_of(g, Fill::next_open, 0.5)};
    c.bars = 9999;
    cs.push_back(c);
  }
  {
    Grid g;
    g.family = Family::bollinger;
    g.n = {5, 20, 50};
    g.k = {1.0, 2.0};
    g.style = {Style::reversion, Style::breakout};
    g.side = test::kBothSides;
    cs.push_back({"bollinger_daily", "nvda_d1_1999-2014", test::spec_of(g, Fill::close, 1)});
  }
  {
    Grid g;
    g.family = Family::rsi_reversion;
    g.n = {2, 7, 14};
    g.lo = {25, 35};
    g.hi = {30, 65, 75};
    g.side = test::kBothSides;
    cs.push_back({"rsi_daily", "orcl_d1_1995-2014", test::spec_of(g, Fill::next_open, 2)});
  }
  // Stops (SPEC §5b): the stops parity cases, their stop states carried across the edges.
  for (const test::StopsCase& s : test::stops_cases()) {
    BlocksCase c{"stops_" + s.name, s.file, s.spec, s.bars, 1, s.synthetic, 0};
    cs.push_back(c);
  }
  for (BlocksCase& c : cs) c.spec.bars_per_year = 252;
  // A grid in memory-budget tiles (each tile's groups fuse their blocks).
  BlocksCase tiled = cs.front();
  tiled.name = "ma_cross_daily_tiles";
  tiled.budget = size_t{256} << 10;
  cs.push_back(tiled);
  return cs;
}

std::optional<Series> series_of(const BlocksCase& c) {
  if (c.synthetic) return c.synthetic();
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!std::filesystem::exists(path)) return std::nullopt;
  return test::load_csv(path);
}

SweepRequest blocks_request(const BlocksCase& c, const HistoryView& h) {
  SweepRequest req;
  req.history = h;
  req.strategy = c.spec;
  const size_t warmup = default_warmup(c.spec.grid);
  req.window = {h.size(), c.bars ? c.bars : h.size() - 1 - warmup, warmup};
  req.rank.top = 10;
  req.rank.max_drawdown = 1e9;  // the combos whose equity reaches zero rank too
  req.threads = c.threads;
  req.memory_budget = c.budget;
  return req;
}

// Block counts: one block, a few, CSCV's default, and one that leaves a remainder block.
constexpr size_t kBlockCounts[] = {1, 3, 7, 16};

class SweepBlocksParity : public ::testing::TestWithParam<BlocksCase> {};

// The fused kernel against the chain, every variant, every lane group.
TEST_P(SweepBlocksParity, FusedKernelMatchesChainedRanges) {
  const BlocksCase& c = GetParam();
  const std::optional<Series> s = series_of(c);
  if (!s) GTEST_SKIP() << c.file << " is missing: fused blocks parity NOT run";
  const HistoryView h = HistoryView::of(*s);
  const SweepRequest req = blocks_request(c, h);
  const Grid& grid = req.strategy.grid;
  const std::vector<cpu::Group> groups = cpu::group_valid_combos(grid);
  ASSERT_FALSE(groups.empty());
  const IndicatorCache cache(h, grid, 1);
  std::vector<double> gap, body;
  bar_returns(h, req.strategy.fill, h.size(), gap, body);
  const BarTables tables{gap.data(),
                         body.data(),
                         h.close.data(),
                         req.strategy.costs.per_unit(),
                         0,
                         req.strategy.fill == Fill::next_open ? h.open.data() : nullptr};
  const size_t first = req.window.first(), end = req.window.end;
  if (kernel_variants().empty())
    GTEST_SKIP() << "no kernel variant with fused block tallies on this CPU (avx512 only): "
                    "fused kernel parity NOT run";
  for (const KernelVariant& v : kernel_variants()) {
    for (size_t S : kBlockCounts) {
      const selection::BlockLayout layout = selection::cscv_layout(req.window, S);
      const std::vector<size_t>& cuts = layout.cuts;
      const size_t blocks = cuts.size() + 1;
      SCOPED_TRACE(std::string(to_string(v.isa)) + ", S=" + std::to_string(S) +
                   ", W=" + std::to_string(req.window.bars) + " (remainder " +
                   std::to_string(layout.remainder_bars) + ")");
      auto edge = [&](size_t b) { return b == 0 ? first : b == blocks ? end : cuts[b - 1]; };
      for (const cpu::Group& g : groups) {
        LaneInput in[cpu::kLanes];
        for (int j = 0; j < g.lanes; ++j) in[j] = lane_input(cache, grid.decode(g.ids[j]));
        // The separate pass: the window alone, then the blocks as a chain of ranges.
        Summary plain[cpu::kLanes];
        v.run(g.kind, g.stops, tables, cache.matrix(), in, g.lanes, {first, first, end}, plain,
              nullptr);
        std::vector<Summary> chained(blocks * cpu::kLanes);
        cpu::LaneState state[2][cpu::kLanes];
        StopState stops[2][cpu::kLanes];
        for (size_t b = 0; b < blocks; ++b) {
          const size_t in_state = (b + 1) % 2, out_state = b % 2;
          const cpu::LaneRange range{edge(b),          edge(b),
                                     edge(b + 1),      b == 0 ? nullptr : state[in_state],
                                     state[out_state], stops[in_state],
                                     stops[out_state]};
          v.run(g.kind, g.stops, tables, cache.matrix(), in, g.lanes, range,
                &chained[b * cpu::kLanes], nullptr);
        }
        // The fused pass.
        Summary window[cpu::kLanes];
        std::vector<Summary> fused(blocks * cpu::kLanes);
        const cpu::LaneBlocks lb{cuts.data(), cuts.size(), fused.data()};
        v.run(g.kind, g.stops, tables, cache.matrix(), in, g.lanes, {first, first, end}, window,
              &lb);
        for (int j = 0; j < g.lanes; ++j) {
          const std::string id = "combo " + std::to_string(g.ids[j]);
          test::expect_same_summary_bits(window[j], plain[j], id + " window");
          for (size_t b = 0; b < blocks; ++b)
            test::expect_same_summary_bits(fused[b * cpu::kLanes + static_cast<size_t>(j)],
                                           chained[b * cpu::kLanes + static_cast<size_t>(j)],
                                           id + " block " + std::to_string(b));
        }
        if (HasFailure()) return;  // one group's report is enough
      }
    }
  }
}

// The backend: a sweep on a preparation with pbo_blocks ranks as a plain sweep, keeps its
// blocks, and block_summaries() right after it hands them out equal to the separate pass.
TEST_P(SweepBlocksParity, SweepKeepsTheSeparatePassBlocks) {
  const BlocksCase& c = GetParam();
  const std::optional<Series> s = series_of(c);
  if (!s) GTEST_SKIP() << c.file << " is missing: fused blocks parity NOT run";
  const HistoryView h = HistoryView::of(*s);
  const SweepRequest plain_req = blocks_request(c, h);
  const std::unique_ptr<Backend> plain = make_backend("cpu");
  const SweepResult want = plain->sweep(plain_req);
  if (c.budget) {  // the sweep really runs tile by tile (its budget less the bar tables)
    ASSERT_GT(
        cpu::plan_tiles(c.spec.grid, h.size(), c.budget - 2 * h.size() * sizeof(double)).tiles, 1u);
  }
  for (size_t S : kBlockCounts) {
    SCOPED_TRACE("S=" + std::to_string(S));
    const std::vector<size_t> cuts = selection::cscv_layout(plain_req.window, S).cuts;
    const std::vector<Summary> separate = plain->block_summaries(plain_req, cuts);

    const std::unique_ptr<Backend> cpu = make_backend("cpu");
    PrepareSpec preparing;
    preparing.pbo_blocks = S;
    SweepRequest req = plain_req;
    req.prepared = cpu->prepare(h, req.strategy, preparing);
    auto* prep = dynamic_cast<cpu::CpuPreparedHistory*>(req.prepared.get());
    ASSERT_NE(prep, nullptr);
    test::expect_same_sweep_bits(cpu->sweep(req), want);
    // A few lane groups over a long window run in time chunks: no fused blocks there.
    const bool fuses = cpu::lane_kernel_fuses_blocks() &&
                       cpu::time_chunks(cpu::group_valid_combos(req.strategy.grid).size(),
                                        c.threads, req.window.bars) == 1;
    ASSERT_EQ(prep->holds_blocks(), fuses) << "the sweep fused its blocks: " << !fuses;
    const std::vector<Summary> kept = cpu->block_summaries(req, cuts);
    EXPECT_FALSE(prep->holds_blocks()) << "block_summaries did not take the kept blocks";
    ASSERT_EQ(kept.size(), separate.size());
    for (size_t i = 0; i < kept.size(); ++i) {
      test::expect_same_summary_bits(kept[i], separate[i], "slot " + std::to_string(i));
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, SweepBlocksParity, ::testing::ValuesIn(blocks_cases()),
                         [](const ::testing::TestParamInfo<BlocksCase>& tp) {
                           return tp.param.name;
                         });

// Kept blocks serve only the block_summaries right after their own sweep, with its cuts:
// another grid pass in between, other cuts or another window leave block_summaries to the
// separate pass, with the same result. (A time-chunked sweep, which does not fuse: the
// channel, rsi-with-stops and long-window cases above.)
TEST(SweepBlocksKeeping, OnlyTheNextCallWithTheSameCutsTakesThem) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {2, 5, 8, 13};
  g.slow = {21, 34, 55, 89};
  BlocksCase c{"ma", "", test::spec_of(g, Fill::close, 1)};
  const SweepRequest plain_req = blocks_request(c, h);
  const std::unique_ptr<Backend> plain = make_backend("cpu");
  const std::vector<size_t> cuts16 = selection::cscv_layout(plain_req.window, 16).cuts;
  const std::vector<size_t> cuts8 = selection::cscv_layout(plain_req.window, 8).cuts;
  const std::vector<Summary> want16 = plain->block_summaries(plain_req, cuts16);
  const std::vector<Summary> want8 = plain->block_summaries(plain_req, cuts8);
  auto expect_same = [](const std::vector<Summary>& got, const std::vector<Summary>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      test::expect_same_summary_bits(got[i], want[i], "slot " + std::to_string(i));
  };

  const std::unique_ptr<Backend> cpu = make_backend("cpu");
  PrepareSpec preparing;
  preparing.pbo_blocks = 16;
  SweepRequest req = plain_req;
  req.prepared = cpu->prepare(h, req.strategy, preparing);
  auto* prep = dynamic_cast<cpu::CpuPreparedHistory*>(req.prepared.get());
  ASSERT_NE(prep, nullptr);

  cpu->sweep(req);  // then another grid pass
  if (!cpu::lane_kernel_fuses_blocks())
    GTEST_SKIP() << "the kernel variant in use (" << cpu::lane_kernel_variant()
                 << ") has no fused block tallies: keeping NOT tested";
  ASSERT_TRUE(prep->holds_blocks());
  const uint64_t ids[] = {0, 5};
  cpu->evaluate(req, ids);
  expect_same(cpu->block_summaries(req, cuts16), want16);

  cpu->sweep(req);  // then other cuts
  expect_same(cpu->block_summaries(req, cuts8), want8);
  EXPECT_FALSE(prep->holds_blocks());

  cpu->sweep(req);  // then another window
  SweepRequest shorter = req;
  shorter.window.end -= 100;
  shorter.window.bars -= 100;
  const std::vector<size_t> shorter_cuts = selection::cscv_layout(shorter.window, 16).cuts;
  SweepRequest shorter_plain = plain_req;
  shorter_plain.window = shorter.window;
  expect_same(cpu->block_summaries(shorter, shorter_cuts),
              plain->block_summaries(shorter_plain, shorter_cuts));
}

// A walk whose selector runs PBO (WalkSpec::pbo_blocks: every fold's sweep fuses its blocks)
// gives the walk without it, bit for bit: winners, in-sample metrics, the stitched series and
// every fold's PBO.
TEST(SweepBlocksWalk, FoldsWithFusedBlocksEqualFoldsWithout) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "orcl_d1_1995-2014.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {2, 3, 5, 8, 13, 21};
  g.slow = {10, 21, 34, 55, 89};
  g.ma = {MaType::sma, MaType::ema};
  g.entry = {Entry::state, Entry::cross};
  const StrategySpec spec = test::spec_of(g, Fill::next_open, 1);
  for (WalkMode mode : {WalkMode::rolling, WalkMode::anchored}) {
    SCOPED_TRACE(mode == WalkMode::rolling ? "rolling" : "anchored");
    size_t fused_folds = 0;  // folds whose sweep left its blocks for the selection
    auto run = [&](size_t pbo_blocks, std::vector<double>& pbos) {
      const std::unique_ptr<Backend> cpu = make_backend("cpu");
      WalkSpec walk;
      walk.is_bars = 1001;
      walk.oos_bars = 250;
      walk.mode = mode;
      walk.warmup = default_warmup(g);
      walk.pbo_blocks = pbo_blocks;
      selection::SelectionSpec sel;
      sel.pbo_blocks = 16;
      FoldSelector select = [&](const SweepRequest& req, const SweepResult& sweep,
                                const std::optional<Ranked>& previous) {
        std::optional<uint64_t> current;
        if (previous) current = previous->combo.id;
        const auto* prep = dynamic_cast<const cpu::CpuPreparedHistory*>(req.prepared.get());
        if (prep && prep->holds_blocks()) ++fused_folds;
        selection::SelectionReport r = selection::select(*cpu, req, sweep, current, sel);
        pbos.push_back(r.pbo ? r.pbo->pbo : -1);
        return r.published;
      };
      return walk_forward(*cpu, h, spec, RankSpec{}, walk, Precision::exact, 1, {}, select);
    };
    std::vector<double> pbo_plain, pbo_fused;
    const WalkResult want = run(0, pbo_plain);
    ASSERT_EQ(fused_folds, 0u);
    const WalkResult got = run(16, pbo_fused);
    ASSERT_GE(want.folds.size(), 4u);
    EXPECT_EQ(fused_folds, cpu::lane_kernel_fuses_blocks() ? want.folds.size() : 0u)
        << "not every fold's sweep fused its blocks";
    ASSERT_EQ(got.folds.size(), want.folds.size());
    for (size_t f = 0; f < want.folds.size(); ++f) {
      ASSERT_EQ(got.folds[f].winner.has_value(), want.folds[f].winner.has_value()) << f;
      if (want.folds[f].winner) {
        EXPECT_EQ(got.folds[f].winner->combo.id, want.folds[f].winner->combo.id) << f;
      }
      EXPECT_TRUE(test::same_bits(got.folds[f].is.sharpe, want.folds[f].is.sharpe)) << f;
    }
    ASSERT_EQ(got.oos_returns.size(), want.oos_returns.size());
    for (size_t i = 0; i < want.oos_returns.size(); ++i)
      ASSERT_TRUE(test::same_bits(got.oos_returns[i], want.oos_returns[i])) << i;
    ASSERT_EQ(pbo_fused.size(), pbo_plain.size());
    for (size_t f = 0; f < pbo_plain.size(); ++f) {
      EXPECT_NE(pbo_plain[f], -1) << "fold " << f << " ran no PBO";
      EXPECT_TRUE(test::same_bits(pbo_fused[f], pbo_plain[f])) << "fold " << f;
    }
  }
}

}  // namespace
}  // namespace wfod
