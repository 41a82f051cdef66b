// A rules strategy's stream on the cpu backend (SPEC §5a, §5b, §9): every advance equals
// cpu_ref's sweep of the same bars, its queries (positions, returns, evaluate, block summaries)
// equal cpu_ref's on the history, and a stream restored from its checkpoint mid-way gives, bar
// for bar, the uninterrupted stream's results and queries to the bit; a corrupted blob or one
// of another spec is refused. The rule reads volume, crosses and arithmetic, with stops.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "wfod/backend.hpp"
#include "wfod/combo_returns.hpp"
#include "wfod/position_tracker.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod {
namespace {

Grid stream_rules_grid() {
  rules::RulesText t;
  t.params = {"fast", "slow", "lvl"};
  t.indicators = {{"f", "ema($fast)"},
                  {"s", "sma($slow)"},
                  {"r", "rsi(14)"},
                  {"l", "bb_lower(20, 2)"},
                  {"h", "hh(10, high_low)"}};
  t.long_entry = "f > s and r < $lvl or crosses_above(close, l)";
  t.long_exit = "crosses_below(f, s)";
  t.short_entry =
      "f < s * 0.99 and r > 100 - $lvl and volume + 1 > 0 or not (close < h) and r > 80";
  t.short_exit = "f > s";
  t.valid = "$fast < $slow";
  Grid g;
  g.family = Family::rules;
  g.program = std::make_shared<const rules::Program>(rules::compile(t));
  g.rule_axes = {{5, 10, 30}, {20, 40}, {45, 60}};
  g.stop_loss = {0, 0.05};
  g.trailing_stop = {0, 0.08};
  g.validate();
  return g;
}

void expect_same_metrics_bits(const std::vector<Metrics>& a, const std::vector<Metrics>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(std::memcmp(&a[i], &b[i], sizeof(Metrics)), 0) << "combo " << i;
}

TEST(RulesStream, CpuStreamMatchesCpuRefAndRestoresExactly) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "nvda_d1_1999-2014.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  const Series s = test::load_csv(path);
  const Grid grid = stream_rules_grid();
  const StreamSpec spec = test::bounded_spec(grid, 500, Fill::next_open, 2);
  std::unique_ptr<Backend> cpu = make_backend("cpu"), ref = make_backend("cpu_ref");
  ASSERT_TRUE(cpu->supports(Work::stream, spec.strategy).ok());

  const size_t open_at = spec.warmup + spec.window + 1;
  const HistoryView head = HistoryView::of(s).prefix(open_at);
  std::unique_ptr<Stream> stream = cpu->open_stream(spec, head);
  EXPECT_TRUE(stream->bounded());
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (grid.decode(id).valid()) ids.push_back(id);

  // The reference of the stream's window over the first `bars` bars.
  auto request = [&](size_t bars) {
    SweepRequest req;
    req.history = HistoryView::of(s).prefix(bars);
    req.strategy = spec.strategy;
    req.window = {bars, spec.window, spec.warmup};
    req.rank = spec.rank;
    return req;
  };
  size_t at = open_at;
  const size_t steps[] = {1, 1, 7, 50, 1, 200, 13};
  std::unique_ptr<Stream> restored;
  for (size_t i = 0; i < std::size(steps) && at + steps[i] <= s.size(); ++i) {
    const std::vector<Bar> bars = test::bars_of(s, at, at + steps[i]);
    at += steps[i];
    SCOPED_TRACE("after bar " + std::to_string(at));
    const SweepResult got = stream->advance(bars);
    const SweepRequest req = request(at);
    test::expect_same_result(got, ref->sweep(req));
    if (restored) test::expect_same_sweep_bits(restored->advance(bars), got);

    // Queries against cpu_ref on the history, and the restored stream's to the bit.
    const std::vector<Metrics> m = stream->evaluate(ids), mr = ref->evaluate(req, ids);
    for (size_t k = 0; k < ids.size(); ++k)
      EXPECT_TRUE(test::metrics_near(m[k], mr[k], 1e-9, 1e-12)) << "id " << ids[k];
    const size_t first = req.window.first();
    const std::vector<size_t> cuts{first + 100, first + 300};
    const std::vector<Summary> b = stream->block_summaries(cuts),
                               br = ref->block_summaries(req, cuts);
    ASSERT_EQ(b.size(), br.size());
    for (size_t k = 0; k < b.size(); ++k) test::expect_same_summary_counts(b[k], br[k]);
    for (uint64_t id : {ids[0], ids[ids.size() / 2], ids.back()}) {
      const Combo c = grid.decode(id);
      const std::vector<int8_t> pos = ref->positions(req.history, spec.strategy, c);
      EXPECT_EQ(stream->positions(c, first, at),
                std::vector<int8_t>(pos.begin() + static_cast<ptrdiff_t>(first), pos.end()));
      const std::vector<double> ret = stream->returns(c, first, at);
      const std::vector<double> ret_ref =
          combo_returns(*ref, req.history, spec.strategy, c, first, at);
      ASSERT_EQ(ret.size(), ret_ref.size());
      for (size_t k = 0; k < ret.size(); ++k)
        EXPECT_TRUE(test::near("return", ret[k], ret_ref[k], 1e-9, 1e-12));
      if (restored) {
        EXPECT_EQ(restored->positions(c, first, at), stream->positions(c, first, at));
        EXPECT_EQ(restored->returns(c, first, at), ret);
      }
    }
    if (restored) expect_same_metrics_bits(restored->evaluate(ids), m);

    if (i == 2) {  // checkpoint mid-way; the restored stream runs beside the original
      const std::vector<uint8_t> blob = stream->checkpoint();
      restored = cpu->restore_stream(spec, blob);
      EXPECT_EQ(restored->stats().bars, at);
      std::vector<uint8_t> bad = blob;
      bad[bad.size() / 2] ^= 1;
      EXPECT_THROW(cpu->restore_stream(spec, bad), std::invalid_argument);
      EXPECT_THROW(cpu->restore_stream(spec, std::span(blob).first(blob.size() - 9)),
                   std::invalid_argument);
      StreamSpec other = spec;
      other.strategy.grid.stop_loss = {0, 0.04};
      EXPECT_THROW(cpu->restore_stream(other, blob), std::invalid_argument);
    }
  }
  ASSERT_TRUE(restored);
  // The stream seeds a tracker at its newest bar: its positions are cpu_ref's.
  const Combo c = grid.decode(ids[ids.size() / 2]);
  const PositionTracker t = stream->tracker(c, 10);
  EXPECT_EQ(t.bars(), at);
  const std::vector<int8_t> want = ref->positions(HistoryView::of(s).prefix(at), spec.strategy, c);
  EXPECT_EQ(t.positions(at - 10, at), std::vector<int8_t>(want.end() - 10, want.end()));
}

}  // namespace
}  // namespace wfod
