// The cuda backend's sweep size query, device side (Backend::sweep_memory's device_bytes), in
// plain C++ (no CUDA type: the host tests check its arithmetic): the sizes the allocation sites
// take (ask the size, then allocate) and the peak a sweep of one request holds, term by term.
// Fixed parts are exact; the buffers sized from the device's free memory are counted at their
// caps (the tuning's bounds, tuning.cuh), and only as far as the grid would fill them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "src/prefix_tables.hpp"

namespace wfod::cuda {

// Doubles of one StretchRecord (sweep_kernels.cuh asserts its own kDoubles equals it).
inline constexpr size_t kStretchRecordDoubles = 16;
// Bytes of the device's ranking records (sweep_kernels.cuh asserts them): Candidate (objective,
// id), Counters (four counts).
inline constexpr size_t kCandidateBytes = 16;
inline constexpr size_t kCountersBytes = 32;

// The prefix tables of `bars` bars (prefix_tables.cu's buffers, in doubles).
struct PrefixTableSizes {
  size_t gap = 0, body = 0, terms = 0, prefix = 0, trees = 0, sparse = 0, records = 0;
  size_t doubles() const { return gap + body + terms + prefix + trees + sparse + records; }
};
inline PrefixTableSizes prefix_table_sizes(size_t bars) {
  const detail::PrefixShape shape = detail::prefix_shape(bars);
  PrefixTableSizes s;
  s.gap = s.body = bars;
  s.terms = detail::kPrefixArrays * bars;
  s.prefix = detail::kPrefixArrays * (bars + 1) + detail::kChangeRows * bars;
  s.trees = static_cast<size_t>(2 * 3 * 2 * shape.tree_leaves);
  s.sparse = 2 * static_cast<size_t>(shape.sparse_levels) * 2 * bars;
  s.records = (bars + 1) * kStretchRecordDoubles;
  return s;
}

// The float32 copy of the indicator rows (precision fast reads it): bars rounded up to the
// float groups (kFloatGroup bars), times the rows. device_indicators.cu sizes it by this.
inline size_t float_row_cells(size_t bars, size_t rows, size_t float_group) {
  return (bars + float_group - 1) / float_group * float_group * rows;
}

// Candidates the screen keeps over n combos at k per block of `block` threads, for `kinds`
// kernel kinds (screen_on_device's candidates_).
inline uint64_t screen_candidate_count(uint64_t n, uint64_t k, uint64_t kinds, uint64_t block) {
  return (n + block - 1) / block * k * kinds;
}

// The split sweep's combos per launch pair: events of `cap` 4-byte entries each in `bytes`,
// whole blocks, at least one block, at most every combo (sweep_split.cuh's split_batch).
inline uint64_t split_batch_combos(uint64_t n, uint64_t cap, uint64_t bytes, uint64_t block) {
  const uint64_t fit = bytes / (4 * cap) / block * block;
  const uint64_t most = fit > block ? fit : block;
  const uint64_t all = (n + block - 1) / block * block;
  return std::min<uint64_t>(std::min(all, most), uint64_t{1} << 31);
}

// The LevelBits table (level_bits.cu), in 32-bit words: per (n, bar) one word of middle-band
// flags and a bit per upper and per lower level.
inline uint64_t level_bits_words(uint64_t n_count, uint64_t up_count, uint64_t down_count,
                                 uint64_t bars) {
  const uint64_t words = 1 + (up_count + 31) / 32 + (down_count + 31) / 32;
  return n_count * bars * words;
}

// The SignalBits tables (signal_bits.cu), in 32-bit words: a pair table of two bits per key
// and bar, keyed by the first two axes (and ma_cross's third, its MA type), and a gate table
// keyed by the vol filter's three axes (from `vol_axis` on), each built only where at least
// `min_sharing` combos share a key on average.
inline int signal_vol_axis(bool ma_cross) { return ma_cross ? 5 : 3; }
struct SignalBitsWords {
  uint64_t pair_keys = 0, gate_keys = 0, pair = 0, gate = 0;
};
inline SignalBitsWords signal_bits_words(bool ma_cross, bool set_or_hold, const uint64_t* radix,
                                         int axes, bool has_vol, int vol_axis, uint64_t min_sharing,
                                         uint64_t bars) {
  SignalBitsWords w;
  if (!set_or_hold || bars == 0) return w;
  uint64_t combos = 1;
  for (int i = 0; i < axes; ++i) combos *= radix[i];
  w.pair_keys = radix[0] * radix[1] * (ma_cross ? radix[2] : 1);
  if (w.pair_keys == 0 || combos / w.pair_keys < min_sharing) w.pair_keys = 0;
  if (has_vol) {
    w.gate_keys = radix[vol_axis] * radix[vol_axis + 1] * radix[vol_axis + 2];
    if (w.gate_keys == 0 || combos / w.gate_keys < min_sharing) w.gate_keys = 0;
  }
  const uint64_t words = (bars + 31) / 32;
  w.pair = w.pair_keys * words * 2;
  w.gate = w.gate_keys * words;
  return w;
}

// Which sweep a request runs (CudaBackend::sweep's order of tests).
enum class SweepPath {
  screen,         // the device's screen (thread per combo, split or fused, or time chunks)
  all_canonical,  // every valid combo scored in the canonical order (a small grid)
  from_scores,    // ranked from the selection's window scores (PrepareSpec::keep_scores)
  stops,          // the stop evaluator (stop_sweep.cu)
  rules,          // the rules evaluator (rules_sweep.cu)
};

// What the query reads: the request's sizes and the layout the backend would pick for it.
struct SweepDeviceShape {
  SweepPath path = SweepPath::screen;
  uint64_t bars = 0;               // bars prepared (CudaBackend::prepare_target)
  uint64_t window = 0;             // the window's bars
  uint64_t combos = 0;             // grid.size()
  uint64_t rows = 0;               // indicator rows (rows_needed; a rules grid's RulesRows)
  uint64_t float_group = 4;        // kFloatGroup
  uint64_t grid_table_bytes = 0;   // the axis tables (grid_tables.cu), exact
  uint64_t level_bits_bytes = 0;   // what the grid's LevelBits table would take (0: none)
  uint64_t signal_bits_bytes = 0;  // its SignalBits tables (pair + gate; 0: none)
  uint64_t table_cap = 0;          // CudaTuning::table_max_bytes (the free-memory share below it)
  uint64_t hma_scratch_rows = 0;   // HMA rows built (three scratch rows each while building)
  uint64_t kinds = 1;              // kernel kinds (ma_cross: one per entry)
  uint64_t block = 256;            // kBlock
  uint64_t chunks = 1;             // the screen's time chunks (1: thread per combo)
  uint64_t canonical_chunks = 1;   // canonical_chunks(window)
  uint64_t top = 1;                // rank.top
  bool exact = true;               // precision exact: the screen may grow k to a whole block
  bool split = true;               // the split sweep runs (a thread per combo, not fused)
  uint64_t event_cap = 256;        // events per combo (CudaTuning::event_cap)
  uint64_t event_buffer_max = 0;   // CudaTuning::event_buffer_max
  uint64_t eval_parts_bytes = 0;   // CudaBackend::kEvalPartsBytes: evaluate's parts at most
  uint64_t stop_batch = 0;         // CudaTuning::stop_batch_combos
  uint64_t rules_batch = 0;        // rules_sweep.cu's kBatch
  uint64_t rules_params = 0;       // a rules program's params (values per combo)
  uint64_t rules_indicators = 0;   // its indicators (rows per combo)
  uint64_t rules_nodes = 0;        // its conditions' nodes
  uint64_t summary_bytes = 0;      // sizeof(Summary)
  uint64_t rule_combo_bytes = 0;   // sizeof(RuleComboData)
  uint64_t node_bytes = 0;         // sizeof(rules::Node)
  uint64_t scores_bytes = 0;       // from_scores: robust_scores_bytes(combos, 1, ...)
  bool volume = false;             // a rules program reads volume (uploaded)
};

// The terms of the peak, in bytes (each beside what it counts in sweep_device_terms).
struct SweepDeviceTerms {
  uint64_t history = 0, prefix = 0, rows = 0, build_scratch = 0, grid_tables = 0;
  uint64_t decision_tables = 0, screen = 0, split = 0, chunk_parts = 0, evaluate = 0;
  uint64_t returns = 0, stops = 0, rules = 0, scores = 0;
  uint64_t total() const {
    // The indicator build's scratch is freed before any table or sweep buffer is allocated:
    // it counts only where it is larger than what follows it.
    const uint64_t after = grid_tables + decision_tables + screen + split + chunk_parts + evaluate +
                           returns + stops + rules + scores;
    return history + prefix + rows + std::max(build_scratch, after);
  }
};

inline SweepDeviceTerms sweep_device_terms(const SweepDeviceShape& s) {
  SweepDeviceTerms t;
  const uint64_t n = s.combos;
  // The uploaded bars: four columns of every prepared bar (exact).
  t.history = 4 * s.bars * sizeof(double);
  // Bar returns, prefix sums, trees, sparse tables, stretch records (exact).
  t.prefix = prefix_table_sizes(s.bars).doubles() * sizeof(double);
  if (s.path == SweepPath::rules) {
    // The rules rows (bars x rows doubles), the program's nodes and used indicators, the
    // volumes where read (exact); a batch's combos, values, row indices and Summaries (exact:
    // at most rules_batch combos).
    const uint64_t batch = std::min(n, s.rules_batch);
    t.rows = s.rows * s.bars * sizeof(double) + s.rules_nodes * s.node_bytes +
             s.rules_indicators * 4 + (s.volume ? s.bars * sizeof(double) : 0);
    t.rules = batch * (s.rule_combo_bytes + s.rules_params * sizeof(double) +
                       s.rules_indicators * 4 + s.summary_bytes);
    return t;
  }
  // The indicator rows: float64, and their float32 copy (exact).
  t.rows = s.rows * s.bars * sizeof(double) +
           float_row_cells(s.bars, s.rows, s.float_group) * sizeof(float);
  // HMA rows are built through three scratch rows each, freed before the tables (exact).
  t.build_scratch = 3 * s.hma_scratch_rows * s.bars * sizeof(double);
  t.grid_tables = s.grid_table_bytes;
  // The decision tables: what the grid's would take, none where that is over the cap (the
  // builds drop a table past min(cap, a quarter of the free memory): a cap, not exact).
  t.decision_tables = (s.level_bits_bytes <= s.table_cap ? s.level_bits_bytes : 0) +
                      (s.signal_bits_bytes <= s.table_cap ? s.signal_bits_bytes : 0);
  // The canonical evaluation of the combos it scores (rescore, the small grid's every combo):
  // their ids and Summaries, and chunk parts in batches of at most eval_parts_bytes (exact for
  // the ids it is asked; the screen's rescore asks at most a block).
  const uint64_t per_id = std::max<uint64_t>(1, s.canonical_chunks * s.summary_bytes);
  auto evaluate = [&](uint64_t ids) {
    if (ids == 0) return uint64_t{0};
    const uint64_t batch = std::max<uint64_t>(1, std::min(ids, s.eval_parts_bytes / per_id));
    return ids * (sizeof(uint64_t) + s.summary_bytes) + batch * per_id;
  };
  // The winner's window returns kept for the selection's DSR (exact).
  t.returns = s.window * sizeof(double);
  switch (s.path) {
    case SweepPath::rules:
      break;
    case SweepPath::stops: {
      // A batch's Summaries, valid flags and ids (exact: at most stop_batch combos).
      const uint64_t batch = std::min(n, s.stop_batch);
      t.stops = batch * (s.summary_bytes + 1 + sizeof(uint64_t));
      t.returns = 0;
      break;
    }
    case SweepPath::all_canonical:
      t.evaluate = evaluate(n);
      t.returns = 0;
      break;
    case SweepPath::from_scores:
      // The selection workspace's scores pass (robust_scores_bytes: exact), the winners'
      // canonical metrics.
      t.scores = s.scores_bytes;
      t.evaluate = evaluate(s.top);
      break;
    case SweepPath::screen: {
      // Candidates at the largest k (exact precision doubles k up to a block while the top K
      // does not settle), two reduction buffers (each pass's blocks x k: the first is at most
      // a block's share of the candidates), the fallback ids (at most 2^20) and the counters.
      const uint64_t k = s.exact ? s.block : std::min(s.top, s.block);
      const uint64_t cand = screen_candidate_count(n, k, s.kinds, s.block);
      const uint64_t reduce = 2 * ((cand + s.block - 1) / s.block * k);
      t.screen = (cand + reduce) * kCandidateBytes +
                 std::max<uint64_t>(1, std::min<uint64_t>(n, uint64_t{1} << 20)) * 8 +
                 kCountersBytes;
      if (s.chunks <= 1 && s.split) {
        // The split sweep's events and heads: batch x cap events, the batch at most its buffer
        // (a share of the free memory, at most event_buffer_max: a cap) and every combo.
        const uint64_t batch = split_batch_combos(n, s.event_cap, s.event_buffer_max, s.block);
        t.split = batch * s.event_cap * 4 + batch * 4;
      } else if (s.chunks > 1) {
        // Every combo's chunk Summaries and their joined parts (exact).
        const uint64_t parts = std::max<uint64_t>(1, s.chunks / s.block);
        t.chunk_parts = n * (s.chunks + parts) * s.summary_bytes;
      }
      // The rescore of 2K + 16 candidates at a time (exact precision); an evaluate of the top
      // K after the sweep (fast precision: the sweep rescored nothing).
      t.evaluate = evaluate(std::min(n, s.exact ? 2 * s.top + 16 : s.top));
      break;
    }
  }
  return t;
}

}  // namespace wfod::cuda
