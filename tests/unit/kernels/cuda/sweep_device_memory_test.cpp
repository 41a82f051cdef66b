// The arithmetic of the cuda backend's sweep size query, device side
// (kernels/cuda/sweep_device_memory.hpp), which is plain C++: the prefix tables' sizes against
// the host build's tables (the device build has the same layout), the split sweep's batch, the
// decision tables' words, and the peak's terms (which path counts what, the caps). The query
// against what a real sweep allocates on a GPU is tests/parity/sweep_device_memory_test.cpp.
#include "kernels/cuda/sweep_device_memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "src/prefix_tables.hpp"
#include "wfod/bar.hpp"

namespace wfod::cuda {
namespace {

TEST(SweepDeviceMemory, PrefixTableSizesAreTheHostBuildsLayout) {
  for (size_t bars : {1u, 2u, 7u, 100u, 1000u, 4097u}) {
    std::vector<double> close(bars), open(bars);
    for (size_t i = 0; i < bars; ++i) {
      close[i] = 100 + static_cast<double>(i % 13);
      open[i] = 100 + static_cast<double>(i % 7);
    }
    HistoryView h;
    h.open = open;
    h.high = close;
    h.low = open;
    h.close = close;
    const detail::PrefixTables t = detail::build_prefix_tables(h, Fill::close, bars, 0.0);
    const PrefixTableSizes s = prefix_table_sizes(bars);
    EXPECT_EQ(s.gap, t.gap.size()) << bars;
    EXPECT_EQ(s.body, t.body.size()) << bars;
    EXPECT_EQ(s.prefix, t.prefix.size()) << bars;
    EXPECT_EQ(s.trees, t.trees.size()) << bars;
    EXPECT_EQ(s.sparse, t.sparse.size()) << bars;
    EXPECT_EQ(s.records, (bars + 1) * kStretchRecordDoubles);
  }
}

TEST(SweepDeviceMemory, SplitBatchIsWholeBlocksWithinItsBuffer) {
  // 64 MiB of 256-event combos: 65,536 combos; a smaller grid takes its own blocks.
  EXPECT_EQ(split_batch_combos(1'000'000, 256, 64ull << 20, 256), 65'536u);
  EXPECT_EQ(split_batch_combos(1'000, 256, 64ull << 20, 256), 1'024u);
  // A buffer under one block's events still takes one block.
  EXPECT_EQ(split_batch_combos(1'000'000, 256, 1024, 256), 256u);
}

TEST(SweepDeviceMemory, DecisionTableWords) {
  // 3 n x (1 + one word of 20 upper + one of 40 lower -> two) x 1,000 bars.
  EXPECT_EQ(level_bits_words(3, 20, 40, 1000), 3u * 4u * 1000u);
  // ma_cross 10 fast x 10 slow x 2 MA x 2 sides x 2 entries: 200 pair keys of 4 combos each.
  const uint64_t radix[] = {10, 10, 2, 2, 2};
  const SignalBitsWords shared = signal_bits_words(true, true, radix, 5, false, 5, 4, 64);
  EXPECT_EQ(shared.pair_keys, 200u);
  EXPECT_EQ(shared.pair, 200u * 2 * 2);
  EXPECT_EQ(shared.gate, 0u);
  // Under the sharing rule: no table.
  EXPECT_EQ(signal_bits_words(true, true, radix, 5, false, 5, 16, 64).pair, 0u);
  // The level families build none.
  EXPECT_EQ(signal_bits_words(false, false, radix, 5, false, 3, 0, 64).pair, 0u);
}

SweepDeviceShape device_screen_shape() {
  SweepDeviceShape s;
  s.bars = 10'000;
  s.window = 9'000;
  s.combos = 100'000;
  s.rows = 40;
  s.grid_table_bytes = 4096;
  s.table_cap = 1ull << 30;
  s.kinds = 2;
  s.canonical_chunks = 64;
  s.top = 10;
  s.event_buffer_max = 2ull << 30;
  s.eval_parts_bytes = 256ull << 20;
  s.stop_batch = 1ull << 18;
  s.rules_batch = 1ull << 16;
  s.summary_bytes = 128;
  return s;
}

TEST(SweepDeviceMemory, TermsOfTheScreen) {
  const SweepDeviceShape s = device_screen_shape();
  const SweepDeviceTerms t = sweep_device_terms(s);
  EXPECT_EQ(t.history, 4u * 10'000 * 8);
  EXPECT_EQ(t.prefix, prefix_table_sizes(10'000).doubles() * 8);
  EXPECT_EQ(t.rows, 40u * 10'000 * 8 + float_row_cells(10'000, 40, 4) * 4);
  // Exact precision counts the candidates at a whole block per block (k grown to kBlock).
  const uint64_t cand = screen_candidate_count(100'000, 256, 2, 256);
  EXPECT_GE(t.screen, cand * kCandidateBytes);
  // Thread per combo, split: every combo's events fit 2 GiB.
  EXPECT_EQ(t.split, 100'096u * 256 * 4 + 100'096u * 4);
  EXPECT_EQ(t.chunk_parts, 0u);
  EXPECT_EQ(t.stops + t.rules + t.scores, 0u);
  EXPECT_EQ(t.total(), t.history + t.prefix + t.rows + t.grid_tables + t.decision_tables +
                           t.screen + t.split + t.evaluate + t.returns);
  // Fast precision keeps k = top per block and rescores nothing (an evaluate of the top K).
  SweepDeviceShape fast = s;
  fast.exact = false;
  EXPECT_LT(sweep_device_terms(fast).screen, t.screen);
  EXPECT_LT(sweep_device_terms(fast).evaluate, t.evaluate);
  // Time chunks replace the events with every combo's chunk Summaries.
  SweepDeviceShape chunked = s;
  chunked.chunks = 8;
  EXPECT_EQ(sweep_device_terms(chunked).split, 0u);
  EXPECT_EQ(sweep_device_terms(chunked).chunk_parts, 100'000u * 9 * 128);
  // The events' buffer is counted at its cap, no more.
  SweepDeviceShape big = s;
  big.combos = 100'000'000;
  EXPECT_LE(sweep_device_terms(big).split,
            (2ull << 30) + 4 * split_batch_combos(big.combos, 256, 2ull << 30, 256));
}

TEST(SweepDeviceMemory, DecisionTablesOverTheCapAreNotBuilt) {
  SweepDeviceShape s = device_screen_shape();
  s.level_bits_bytes = 1000;
  s.signal_bits_bytes = 2000;
  EXPECT_EQ(sweep_device_terms(s).decision_tables, 3000u);
  s.table_cap = 1500;
  EXPECT_EQ(sweep_device_terms(s).decision_tables, 1000u);
}

TEST(SweepDeviceMemory, PathsCountTheirOwnBuffers) {
  SweepDeviceShape s = device_screen_shape();
  s.path = SweepPath::stops;
  SweepDeviceTerms t = sweep_device_terms(s);
  EXPECT_EQ(t.stops, 100'000u * (128 + 1 + 8));
  EXPECT_EQ(t.screen + t.split + t.returns, 0u);

  s.path = SweepPath::all_canonical;
  t = sweep_device_terms(s);
  EXPECT_EQ(t.evaluate, 100'000u * (8 + 128) + (256ull << 20) / (64 * 128) * 64 * 128);

  s.path = SweepPath::from_scores;
  s.scores_bytes = 12345;
  t = sweep_device_terms(s);
  EXPECT_EQ(t.scores, 12345u);

  s.path = SweepPath::rules;
  s.rules_params = 3;
  s.rules_indicators = 2;
  s.rule_combo_bytes = 64;
  t = sweep_device_terms(s);
  EXPECT_EQ(t.rows, 40u * 10'000 * 8 + 2 * 4);
  EXPECT_EQ(t.rules, 65'536u * (64 + 3 * 8 + 2 * 4 + 128));
  EXPECT_EQ(t.grid_tables + t.screen + t.split, 0u);
}

TEST(SweepDeviceMemory, BuildScratchCountsWhereItIsTheLarger) {
  SweepDeviceShape s = device_screen_shape();
  s.combos = 1;
  s.hma_scratch_rows = 40;
  const SweepDeviceTerms t = sweep_device_terms(s);
  EXPECT_EQ(t.build_scratch, 3u * 40 * 10'000 * 8);
  EXPECT_EQ(t.total(), t.history + t.prefix + t.rows + t.build_scratch);
}

}  // namespace
}  // namespace wfod::cuda
