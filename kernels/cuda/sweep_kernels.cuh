// Window evaluation on the device: per (combo, time chunk) Summaries (SPEC §6), joined by a
// tree of combine() in shared memory, finalized, filtered by the constraints (SPEC §7) and
// reduced to a top-K per block; then top-K reduction passes. Host launchers below.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "device_grid.cuh"
#include "level_bits.cuh"
#include "signal_bits.cuh"
#include "sweep_device_memory.hpp"
#include "wfod/ranking.hpp"
#include "wfod/summary.hpp"

namespace wfod::cuda {

inline constexpr int kBlock = 256;
inline constexpr unsigned long long kEmptyId = ~0ull;

// The stretch evaluator's tables (built by prefix_tables.cu). Per index i in [0, bars], one
// 128-byte record (StretchRecord) of what a change bar and its stretch read: the prefix sums
// over the bars of the return of a bar held unchanged, r_t = gap_t + body_t (SPEC §2: exit and
// body at one position p earn p * r_t; index t + 1 = sum over u <= t), which summarise a
// stretch of bars without a position change in O(1); the log growth per sign, for the
// drawdown; the count of bars where 1 + p r_t <= 0 (log undefined: such combos are
// re-evaluated sequentially on the host); and bar i's own returns and change-bar growths. In
// one record the scattered loads touch 2 cache lines per change instead of 13.
struct PrefixData {
  // Segment trees (max, min, internal max drawdown per node, 3 doubles, root at node 1) over
  // the leaves log_long[t + 1] / log_short[t + 1]: a stretch's drawdown in O(log bars).
  const double* tree_long;
  const double* tree_short;
  long long tree_leaves;  // a power of two >= bars
  // Sparse tables of the same leaves: level k holds max / min over [i, i + 2^k), so a
  // stretch's range max and min cost two loads each; the tree is queried only when the
  // stretch's swing (max - min) could beat the drawdown found so far.
  const double* sparse;  // [sign][level][max|min][bars]
  int sparse_levels;
  const double* records;  // StretchRecord per index i in [0, bars]
  // Compensated prefix of |gap_t| + |body_t| (index t + 1 = sum over u <= t): a held stretch's
  // sum of absolute segment values, for its trade's dead band (SPEC v1.2 §6).
  const double* abs_prefix;
};

// A record's fields (doubles), copies of the host layout's rows (src/prefix_tables.hpp) at
// index i: the kRecordPrefixes prefixes in their order (sum r, sum r^2, sum min(r, 0)^2 and
// sum max(r, 0)^2 (the downside of p = +1 / -1), sum log1p(r) and sum log1p(-r) (bad bars
// count 0), the counts of bars with 1 + r <= 0 and 1 - r <= 0), then bar i's gap and body
// returns and its change rows, log(1 + s_i) of a change bar for each (p_{i-2}, p_{i-1}) with
// p2 != p1 (all zero at i = bars).
struct StretchRecord {
  static constexpr int kDoubles = 16;
  static constexpr int kR = 0, kR2 = 1, kDownLong = 2, kDownShort = 3, kLogLong = 4, kLogShort = 5,
                       kBadLong = 6, kBadShort = 7, kGap = 8, kBody = 9;
  // The change rows (p2, p1) with p2 != p1, row (p2 + 1) * 3 + (p1 + 1) in {1, 2, 3, 5, 6, 7}.
  __host__ __device__ static constexpr int change(int row) { return 10 + row - 1 - (row > 4); }
};

struct BarData {
  const double* gap;
  const double* body;
  const double* close;
  const double* matrix;
  const float* matrix32;  // the same rounded to float, in groups of bars (float_cell): the screen
  long long bars;         // history length (row stride of the sparse tables)
  int fast;               // precision "fast": float32 decisions without the double check
  int rows;
  double cost;
  PrefixData prefix;
  LevelBits level;     // the level families' decision bits (null: decide from the rows)
  SignalBits signals;  // the set-or-hold families' shared signal bits (null: from the rows)
};

// p_t from p_{t-1} = held: next(), or for a level family with a LevelBits table the same
// decision read from it (level_next_bits).
template <int Family, bool Cross, bool Vol>
__device__ __forceinline__ double next_bar(const DeviceCombo& c, const BarData& bars, long long t,
                                           double held) {
  if constexpr (is_level_family(Family)) {
    if (bars.level.bits != nullptr)
      return level_next_bits<Family, Vol>(c, bars.level, bars.matrix, bars.rows, t, held,
                                          c.short_value);
  }
  return next<Family, Cross, Vol>(c, bars.matrix, bars.rows, bars.close, t, held);
}

// p_t by scanning back, as position_at(), the level families' maps read from LevelBits when
// there is a table.
template <int Family, bool Cross, bool Vol>
__device__ inline double position_before(const DeviceCombo& c, const BarData& bars, long long t) {
  if constexpr (is_level_family(Family)) {
    if (bars.level.bits != nullptr)
      return compose_back(t, [&](long long u, double held) {
        return level_next_bits<Family, Vol>(c, bars.level, bars.matrix, bars.rows, u, held,
                                            c.short_value);
      });
  }
  return position_at<Family, Cross, Vol>(c, bars.matrix, bars.rows, bars.close, t);
}

struct RankParams {
  int objective;  // wfod::Objective as int
  long long min_trades;
  double max_drawdown;
  int has_min_exposure;
  double min_exposure;
  double bars_per_year;
};

struct Candidate {
  double objective;
  unsigned long long id;  // kEmptyId: no candidate
};

struct Counters {
  unsigned long long evaluated, skipped, ranked, fallback;
};
// The size query of sweeps counts them by these (sweep_device_memory.hpp).
static_assert(sizeof(Candidate) == kCandidateBytes && sizeof(Counters) == kCountersBytes);

// One kernel instantiation per kind of combo: a grid mixing `entry` values runs one launch
// per value (each thread skips combos of the other kind), so no kernel carries the code and
// registers of every strategy rule.
struct KernelKind {
  int family;  // kMaCross, kChannel, kBollinger or kRsi (device_grid.cuh)
  bool cross;
  bool vol;
  bool plain;  // the per-bar baseline evaluator instead of the stretch one
};

// The kernels' ranking scalars from a request's ranking and annualisation (host side).
inline RankParams rank_params_of(const RankSpec& rank, double bars_per_year) {
  RankParams rp{};
  rp.objective = static_cast<int>(rank.objective);
  rp.min_trades = rank.min_trades;
  rp.max_drawdown = rank.max_drawdown;
  rp.has_min_exposure = rank.min_exposure.has_value() ? 1 : 0;
  rp.min_exposure = rank.min_exposure.value_or(0.0);
  rp.bars_per_year = bars_per_year;
  return rp;
}

// Calls f(family, cross, vol) with each as a compile-time constant: one kernel
// instantiation per kind of combo in the grid (sweep, stream and selection launches).
template <typename F>
void dispatch_family(const KernelKind& kind, F&& f) {
  using std::false_type, std::true_type;
  using Ma = std::integral_constant<int, kMaCross>;
  using Channel = std::integral_constant<int, kChannel>;
  using Bollinger = std::integral_constant<int, kBollinger>;
  using Rsi = std::integral_constant<int, kRsi>;
  if (kind.family == kMaCross) {
    if (kind.cross)
      kind.vol ? f(Ma{}, true_type{}, true_type{}) : f(Ma{}, true_type{}, false_type{});
    else
      kind.vol ? f(Ma{}, false_type{}, true_type{}) : f(Ma{}, false_type{}, false_type{});
  } else if (kind.family == kBollinger) {
    kind.vol ? f(Bollinger{}, false_type{}, true_type{})
             : f(Bollinger{}, false_type{}, false_type{});
  } else if (kind.family == kRsi) {
    kind.vol ? f(Rsi{}, false_type{}, true_type{}) : f(Rsi{}, false_type{}, false_type{});
  } else {
    kind.vol ? f(Channel{}, false_type{}, true_type{}) : f(Channel{}, false_type{}, false_type{});
  }
}

// Combo-parallel: one thread per combo id in [0, n_ids) over the whole window [first, last);
// writes k candidates per block. Combos whose equity reached zero are listed in `fallback`.
void launch_sweep_fused(const KernelKind& kind, const GridTables& g, const BarData& bars,
                        long long first, long long last, unsigned long long n_ids,
                        const RankParams& rp, int k, Candidate* block_out, Counters* counters,
                        unsigned long long* fallback, unsigned int fallback_cap);

// Time chunks of the canonical evaluation: a function of the window length alone (>= 256
// bars each, at most kMaxCanonicalChunks of them, a power of two), so that every combo of
// every call sums its returns in one order (docs/spec-notes.md 13). A window of 131,072 bars
// or more takes 512 (a join thread then joins two: launch_chunk_summaries), so few combos walk
// shorter dependent chains (gpu_bench B, 80 combos x 150k bars: eval median 0.158 -> 0.137 ms,
// bench/results/h200-2026-12-04-s25e; 1,024 chunks were no faster, and >= 128 bars slowed the
// default-selection walk's 10k windows 0.093 -> 0.107 s: -s25c).
#ifndef WFOD_CANONICAL_MAX_CHUNKS
#define WFOD_CANONICAL_MAX_CHUNKS 512
#endif
#ifndef WFOD_CANONICAL_MIN_BARS
#define WFOD_CANONICAL_MIN_BARS 256
#endif
inline constexpr int kMaxCanonicalChunks = WFOD_CANONICAL_MAX_CHUNKS;
inline constexpr long long kMinCanonicalBars = WFOD_CANONICAL_MIN_BARS;
static_assert(kMaxCanonicalChunks <= 2 * kBlock, "a join thread takes at most 2 chunks");
inline int canonical_chunks(long long window) {
  int chunks = 1;
  while (chunks < kMaxCanonicalChunks && window / (2 * chunks) >= kMinCanonicalBars) chunks *= 2;
  return chunks;
}

// Chunked evaluation of n ids (ids[i], or id0 + i where ids is null) over `chunks` time chunks
// (a power of two), laid out chunk-major: a warp runs 32 combos over one chunk (their bar
// loads coalesce: the indicator rows of a bar sit side by side, where 32 chunks of one combo
// read 32 bars far apart), each kind of `kinds` writes its own ids' parts[chunk * n + i]
// (per_bar: with the per-bar evaluator, whatever the kind says), then a join kernel in
// shared memory: each min(chunks, kBlock) consecutive chunks of an id by the perfect binary
// tree, left to right at every level, into out[i * groups + group] (groups = chunks / kBlock,
// at least 1; out may be parts when there is one group). join_all: one Summary per id into
// out[i] (up to 2 * kBlock chunks: each join thread first joins two consecutive ones). With
// per_bar and canonical_chunks() (join_all): evaluate()'s canonical Summaries; without, the
// sweep's time-chunked layout (its groups joined by finalize_rank). Every id must be of one of
// `kinds`.
void launch_chunk_summaries(const std::vector<KernelKind>& kinds, bool per_bar, const GridTables& g,
                            const BarData& bars, long long first, long long bars_in_window,
                            unsigned long long n, const unsigned long long* ids,
                            unsigned long long id0, int chunks, Summary* parts, Summary* out,
                            bool join_all);

// One valid combo's strategy returns s_t over bars [first, last) into out[t - first], as
// combo_returns makes them on the host (bit for bit): the per-bar evaluator's decisions and
// values, a thread per tile of bars. `kinds`: the grid's (the combo's kind writes).
void launch_window_returns(const std::vector<KernelKind>& kinds, const GridTables& g,
                           const BarData& bars, unsigned long long id, long long first,
                           long long last, double* out);

// Joins each combo's parts, finalizes, ranks: k candidates per block of 256 combos.
void launch_finalize_rank(const GridTables& g, const Summary* parts, int parts_per_combo,
                          unsigned long long n_ids, const RankParams& rp, int k,
                          Candidate* block_out, Counters* counters, unsigned long long* fallback,
                          unsigned int fallback_cap, cudaStream_t stream = 0);

// SPEC §9 fast-mode report: every valid combo in [0, n_ids) evaluated with float and with
// exact decisions; differences reduced into *out (counts, sums, maxima).
struct FastParityCounters {
  unsigned long long combos, differing, max_trade_diff, shifted, total_trades,
      max_objective_diff_bits;
};
void launch_fast_parity(const KernelKind& kind, const GridTables& g, const BarData& bars,
                        long long first, long long last, unsigned long long n_ids,
                        const RankParams& rp, FastParityCounters* out);

// One reduction pass: each block of 256 candidates keeps its best k.
void launch_topk_reduce(const Candidate* in, unsigned long long n, int k, Candidate* out,
                        cudaStream_t stream = 0);

}  // namespace wfod::cuda
