// Summary's field lists (wfod/detail/summary_fields.hpp): every field is in exactly one
// list, and the lists keep the order the cpu stream's checkpoint records are written in
// (changing it would change the checkpoint format).
#include "wfod/detail/summary_fields.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "support/compare.hpp"

namespace wfod {
namespace {

// Every field set, none to its default.
Summary all_fields_set() {
  Summary s;
  s.bars = 11;
  s.sum = 0.5;
  s.sum_sq = 0.25;
  s.down_sq = 0.125;
  s.growth = 1.5;
  s.peak = 1.75;
  s.trough = 0.875;
  s.drawdown = 0.0625;
  s.nonpositive = true;
  s.head_pos = -1;
  s.tail_pos = 1;
  s.single_run = false;
  s.head_ret = -0.03;
  s.tail_ret = 0.07;
  s.head_abs = 0.04;
  s.tail_abs = 0.09;
  s.closed_trades = 5;
  s.closed_wins = 3;
  s.closed_win_sum = 0.2;
  s.closed_loss_sum = -0.1;
  s.long_bars = 6;
  s.short_bars = 4;
  s.changes = 7;
  return s;
}

TEST(SummaryFields, CopyingThroughTheListsCopiesEveryField) {
  const Summary from = all_fields_set();
  std::vector<int64_t> counts;
  std::vector<double> reals;
  std::vector<int> flags;
  detail::for_each_summary_count(from, [&](int64_t v) { counts.push_back(v); });
  detail::for_each_summary_real(from, [&](double v) { reals.push_back(v); });
  detail::for_each_summary_flag(from, [&](auto v) { flags.push_back(static_cast<int>(v)); });
  EXPECT_EQ(counts.size(), size_t(detail::kSummaryCounts));
  EXPECT_EQ(reals.size(), size_t(detail::kSummaryReals));
  EXPECT_EQ(flags.size(), size_t(detail::kSummaryFlags));

  Summary to;
  size_t c = 0, r = 0, f = 0;
  detail::for_each_summary_count(to, [&](int64_t& v) { v = counts[c++]; });
  detail::for_each_summary_real(to, [&](double& v) { v = reals[r++]; });
  detail::for_each_summary_flag(
      to, [&](auto& v) { v = static_cast<std::decay_t<decltype(v)>>(flags[f++]); });
  test::expect_same_summary_counts(from, to);
  EXPECT_EQ(test::summary_reals(from), test::summary_reals(to));
}

// The order of each list, which is the checkpoint record's (cpu_stream_checkpoint.cpp).
TEST(SummaryFields, ListsKeepTheCheckpointRecordOrder) {
  Summary s;
  std::vector<const void*> seen;
  auto note = [&](const auto& v) { seen.push_back(&v); };
  detail::for_each_summary_count(s, note);
  detail::for_each_summary_real(s, note);
  detail::for_each_summary_flag(s, note);
  const std::vector<const void*> expected = {
      &s.bars,       &s.closed_trades, &s.closed_wins,    &s.long_bars,       &s.short_bars,
      &s.changes,    &s.sum,           &s.sum_sq,         &s.down_sq,         &s.growth,
      &s.peak,       &s.trough,        &s.drawdown,       &s.head_ret,        &s.tail_ret,
      &s.head_abs,   &s.tail_abs,      &s.closed_win_sum, &s.closed_loss_sum, &s.nonpositive,
      &s.single_run, &s.head_pos,      &s.tail_pos};
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace wfod
