// Robust selection on a bounded stream's window: Stream::evaluate, Stream::block_summaries and
// select() through selection::StreamWindow give, bit for bit, what the cpu backend gives on
// the whole history from the anchor (Backend::evaluate, block_summaries, select), for every
// kind of combo, windows whose equity reaches zero, and evaluations split in time.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/selection.hpp"

namespace wfod {
namespace {

bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

void expect_same_bits(const Metrics& got, const Metrics& want) {
  for (const test::IntField& f : test::kIntFields)
    EXPECT_EQ(got.*f.member, want.*f.member) << f.name;
  for (const test::RealField& f : test::kRealFields)
    EXPECT_TRUE(same_bits(got.*f.member, want.*f.member))
        << f.name << ": " << got.*f.member << " vs " << want.*f.member;
}

void expect_same_bits(const Summary& got, const Summary& want) {
  test::expect_same_summary_counts(got, want);
  const auto g = test::summary_reals(got), w = test::summary_reals(want);
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_TRUE(same_bits(g[i], w[i])) << "field " << i << ": " << g[i] << " vs " << w[i];
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

struct Case {
  const char* name;
  StreamSpec spec;
  Series series;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"ma_all_kinds",
                 test::bounded_spec(test::small_ma_grid(), 300, Fill::next_open, 2, 32),
                 test::spike_series(4000, 31, {1700, 2900}, 2.6)});
  out.push_back({"channel", test::bounded_spec(test::small_channel_grid(), 256, Fill::close, 1, 16),
                 test::spike_series(4000, 32, {2200}, 2.6)});
  out.push_back({"bollinger",
                 test::bounded_spec(test::small_bollinger_grid(), 280, Fill::next_open, 1, 32),
                 test::spike_series(4000, 34, {2500}, 2.6)});
  out.push_back({"rsi", test::bounded_spec(test::small_rsi_grid(), 300, Fill::close, 2, 16),
                 test::random_walk(3999, 35)});  // no spikes: not held to reach zero
  // A window long enough (>= 4096 bars) for evaluate() to split time over 4 threads.
  Case longer{"ma_long_window_time_chunks",
              test::bounded_spec(test::small_ma_grid(), 4500, Fill::close, 1),
              test::random_walk(9000, 33)};
  longer.spec.threads = 4;
  out.push_back(longer);
  return out;
}

TEST(StreamSelection, EvaluateAndBlockSummariesEqualTheBackendsBitForBit) {
  auto cpu = make_backend("cpu");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Grid& grid = c.spec.strategy.grid;
    std::vector<uint64_t> ids;
    for (uint64_t id = 0; id < grid.size(); ++id)
      if (grid.decode(id).valid()) ids.push_back(id);
    const size_t need = c.spec.warmup + c.spec.window + 1;
    auto stream = cpu->open_stream(c.spec, HistoryView::of(c.series).prefix(need - 1));
    EXPECT_THROW(stream->evaluate(ids), std::invalid_argument);  // no window yet
    std::mt19937_64 rng(7);
    size_t end = need - 1, checked = 0, through_zero = 0;
    while (end < c.series.size()) {
      const size_t k = std::min<size_t>(std::uniform_int_distribution<size_t>(1, 150)(rng),
                                        c.series.size() - end);
      stream->advance(test::bars_of(c.series, end, end + k));
      end += k;
      if (rng() % 4 != 0) continue;
      SCOPED_TRACE("end=" + std::to_string(end));
      ++checked;
      const SweepRequest req = request_of(c.spec, c.series, end);
      // Every combo at once, and a few in shuffled order (fewer groups: time chunks).
      const std::vector<Metrics> want = cpu->evaluate(req, ids), got = stream->evaluate(ids);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < ids.size(); ++i) {
        SCOPED_TRACE("id " + std::to_string(ids[i]));
        expect_same_bits(got[i], want[i]);
        through_zero += want[i].total_return <= -1.0;  // the literal-drawdown path
      }
      std::vector<uint64_t> few{ids[ids.size() - 1], ids[3], ids[ids.size() / 2]};
      const std::vector<Metrics> want_few = cpu->evaluate(req, few),
                                 got_few = stream->evaluate(few);
      for (size_t i = 0; i < few.size(); ++i) expect_same_bits(got_few[i], want_few[i]);

      const selection::BlockLayout layout = selection::cscv_layout(req.window, 8);
      const std::vector<Summary> bw = cpu->block_summaries(req, layout.cuts);
      const std::vector<Summary> bg = stream->block_summaries(layout.cuts);
      ASSERT_EQ(bg.size(), bw.size());
      for (size_t i = 0; i < bw.size(); ++i) {
        SCOPED_TRACE("summary " + std::to_string(i));
        expect_same_bits(bg[i], bw[i]);
      }
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_GE(checked, 3u);
    std::printf("[ SELECT   ] %s: %zu windows checked, %zu combo windows through zero equity\n",
                c.name, checked, through_zero);
    if (c.series.size() == 4000) {
      EXPECT_GT(through_zero, 0u) << "the spikes reach zero equity";
    }
    const std::vector<size_t> bad{stream->stats().bars};  // outside the window
    EXPECT_THROW(stream->block_summaries(bad), std::invalid_argument);
    const std::vector<uint64_t> outside{grid.size()};
    EXPECT_THROW(stream->evaluate(outside), std::invalid_argument);
  }
}

// select() with PBO, plateau and DSR: the same report from the stream's window as from the
// backend on the history from the anchor, given the same advance result.
TEST(StreamSelection, SelectOnTheStreamWindowEqualsSelectOnTheBackend) {
  auto cpu = make_backend("cpu");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    auto stream = cpu->open_stream(c.spec, HistoryView::of(c.series).prefix(c.series.size() - 40));
    const SweepResult result =
        stream->advance(test::bars_of(c.series, c.series.size() - 40, c.series.size()));
    const SweepRequest req = request_of(c.spec, c.series, c.series.size());
    for (bool plateau : {false, true}) {
      SCOPED_TRACE(plateau ? "plateau" : "raw");
      selection::SelectionSpec spec;
      spec.pbo_blocks = 8;
      spec.plateau = plateau;
      spec.hysteresis_rel = 0.05;
      spec.min_dsr = 0.1;
      const std::optional<uint64_t> current = uint64_t{5};
      selection::StreamWindow window(*stream, c.spec);
      const selection::SelectionReport got = selection::select(window, result, current, spec);
      const selection::SelectionReport want = selection::select(*cpu, req, result, current, spec);
      ASSERT_EQ(got.winner.has_value(), want.winner.has_value());
      if (want.winner) {
        EXPECT_EQ(got.winner->combo.id, want.winner->combo.id);
        expect_same_bits(got.winner->metrics, want.winner->metrics);
      }
      EXPECT_EQ(got.decision.id, want.decision.id);
      EXPECT_EQ(got.decision.reason, want.decision.reason);
      EXPECT_TRUE(same_bits(got.decision.margin, want.decision.margin));
      ASSERT_EQ(got.published.has_value(), want.published.has_value());
      if (want.published) expect_same_bits(got.published->metrics, want.published->metrics);
      ASSERT_EQ(got.current.has_value(), want.current.has_value());
      if (want.current) {
        EXPECT_TRUE(same_bits(got.current->objective, want.current->objective));
      }
      ASSERT_EQ(got.dsr.has_value(), want.dsr.has_value());
      if (want.dsr) {
        EXPECT_TRUE(same_bits(got.dsr->dsr, want.dsr->dsr));
        EXPECT_TRUE(same_bits(got.dsr->inputs.sharpe_var, want.dsr->inputs.sharpe_var));
        EXPECT_TRUE(same_bits(got.dsr->inputs.winner.skew, want.dsr->inputs.winner.skew));
      }
      ASSERT_EQ(got.pbo.has_value(), want.pbo.has_value());
      ASSERT_TRUE(want.pbo.has_value()) << want.pbo_skipped;
      EXPECT_TRUE(same_bits(got.pbo->pbo, want.pbo->pbo));
      EXPECT_EQ(got.pbo->logits.size(), want.pbo->logits.size());
      for (size_t i = 0; i < want.pbo->logits.size() && i < got.pbo->logits.size(); ++i)
        EXPECT_TRUE(same_bits(got.pbo->logits[i], want.pbo->logits[i])) << "logit " << i;
      EXPECT_EQ(got.pbo->histogram, want.pbo->histogram);
      EXPECT_TRUE(same_bits(got.pbo->slope, want.pbo->slope));
      ASSERT_EQ(got.plateau.has_value(), want.plateau.has_value());
      if (want.plateau) {
        EXPECT_EQ(got.plateau->id, want.plateau->id);
        EXPECT_TRUE(same_bits(got.plateau->score, want.plateau->score));
      }
    }
  }
}

}  // namespace
}  // namespace wfod
