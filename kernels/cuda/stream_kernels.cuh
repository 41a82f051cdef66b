// Device side of the CUDA stream (incremental re-optimisation, Backend::open_stream): the
// history ring and the per-combo caches of cuda_stream.cu, and the kernels that advance
// them. Every kernel runs one thread per combo id (invalid ids and ids of another kernel
// kind return at once) and reads the advance's scalars from a StreamStep in device memory,
// so a launch sequence can be captured once in a CUDA graph and replayed with new steps.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device_grid.cuh"
#include "sweep_kernels.cuh"
#include "wfod/detail/summary_fields.hpp"
#include "wfod/summary.hpp"

namespace wfod::cuda {

// A combo's strategy state entering a bar t: p_{t-2}, p_{t-1} (SPEC §2).
struct PositionState {
  int8_t p2 = 0, p1 = 0;
};

// The last `mask + 1` bars (a power of two) of the indicator matrix (transposed: bar t's
// column holds `rows` values at m + (t & mask) * rows) and of the per-bar tables. Column
// slot `mask` is mirrored at m - rows, so "the previous bar's column" is always at - rows.
struct RingView {
  double* m;
  double* gap;
  double* body;
  double* close;
  long long mask;
  int rows;
  double cost;
};

// Summaries of n combos stored field-major: word f of combo id at words[f * n + id], so a
// warp's threads (neighbouring ids) load each field in one coalesced transaction instead of
// striding through 144-byte records. A table of several slots puts slot i at i * kWords * n.
// The words follow Summary's field lists (wfod/detail/summary_fields.hpp): a word per count
// and per real, one for the flags.
struct SummaryColumns {
  static constexpr int kWords = detail::kSummaryCounts + detail::kSummaryReals + 1;
  unsigned long long* words;
  unsigned long long n;
  __host__ __device__ SummaryColumns slot(long long i) const {
    return {words + static_cast<unsigned long long>(i) * kWords * n, n};
  }
  __device__ Summary get(unsigned long long id) const;
  __device__ void set(unsigned long long id, const Summary& s) const;
};

// Per combo id caches (ids neighbouring in a warp sit side by side). Chunk j of C bars (bars
// [jC, (j+1)C) from the anchor) lives in ring slot j % ring.
struct StreamArrays {
  PositionState* state;        // entering bar `rolled`
  SummaryColumns tail;         // bars [max(1, floor(rolled / C) C), rolled)
  SummaryColumns back;         // chunks [split, floor(rolled / C))
  SummaryColumns chunk_sum;    // ring slots: raw, or the suffix combine up to split (< split)
  PositionState* chunk_start;  // [slot * n + id]: entering the chunk's first bar
  SummaryColumns head_suffix;  // per sub-chunk i of the head chunk: combine of sub-chunks i..
  PositionState* head_start;   // [i * n + id]: entering sub-chunk i of the head chunk
  SummaryColumns window;       // the run's window Summary (the winners' metrics)
  unsigned long long n;        // combo ids
  long long chunk, sub;        // bars per chunk, per sub-chunk
  int ring, subs;              // chunk slots, sub-chunks per chunk
};

// The scalars of one step, written by the host before the launches that read them.
struct StreamStep {
  long long rolled, end;  // roll: bars [rolled, end) are new (their columns are staged)
  // flip: chunks [flip_from, flip_to) become suffix combines (do_flip)
  int do_flip;
  long long flip_from, flip_to;
  // cache_head: replay chunk `head` into sub-chunk states and suffixes (do_cache_head)
  int do_cache_head;
  long long head;
  // window [first, end): head chunk, tail chunk (floor(end / C)), the replayed sub-chunk
  long long first, tail_chunk, sub_index, sub_start, sub_end;
  int has_suffix, has_middle, in_one_chunk;
};

// Copies `count` staged columns (bars step->rolled ..) into the ring, with the mirror.
void launch_stream_scatter(const StreamStep* step, const double* staged_columns,
                           const double* staged_bars, long long count, RingView ring,
                           cudaStream_t stream);
void launch_stream_roll(const KernelKind& kind, const GridTables& g, RingView ring, StreamArrays a,
                        const StreamStep* step, cudaStream_t stream);
// A restore's chunk Summaries: bars [bounds[0], bounds[pieces]) of every combo of `kind`
// replayed through the roll from the start state of bounds[0]'s chunk (a chunk boundary), in
// the pieces [bounds[k], bounds[k + 1]) the advance rolled them in (none crossing a chunk
// boundary): the chunk Summaries and start states as the roll stored them. Writes back (the
// caller restores it after); leaves state and tail alone.
void launch_stream_rebuild(const KernelKind& kind, const GridTables& g, RingView ring,
                           StreamArrays a, const long long* bounds, long long pieces,
                           cudaStream_t stream);
// Block Summaries of every combo id in [id0, id0 + count) of `kind` (and identity Summaries for
// invalid ids): bars [edges[0], edges[blocks]) cut at edges[1..blocks-1] (device memory),
// replayed from the start state of edges[0]'s chunk, which the ring must still hold.
// out[(id - id0) * blocks + b], combo-major as Backend::block_summaries.
void launch_stream_blocks(const KernelKind& kind, const GridTables& g, RingView ring,
                          StreamArrays a, const long long* edges, int blocks,
                          unsigned long long id0, unsigned long long count, Summary* out,
                          cudaStream_t stream);
void launch_stream_flip(const GridTables& g, StreamArrays a, const StreamStep* step,
                        cudaStream_t stream);
void launch_stream_cache_head(const KernelKind& kind, const GridTables& g, RingView ring,
                              StreamArrays a, const StreamStep* step, cudaStream_t stream);
// Per kind: optionally the roll of the step's new bars (the steady state fuses it here),
// then each combo's window Summary into a.window.
void launch_stream_window(const KernelKind& kind, const GridTables& g, RingView ring,
                          StreamArrays a, const StreamStep* step, bool roll, cudaStream_t stream);
// Every valid combo's window ranked: k candidates per block of 256 ids into block_out,
// counters and non-positive-equity fallbacks as the sweep's finalize does.
void launch_stream_rank(const GridTables& g, SummaryColumns window, const RankParams& rp, int k,
                        Candidate* block_out, Counters* counters, unsigned long long* fallback,
                        unsigned int fallback_cap, cudaStream_t stream);
void launch_stream_gather(const Candidate* candidates, int count, SummaryColumns window,
                          Summary* out, cudaStream_t stream);
// Sets every record of `cols` (n x slots) to the identity Summary{}.
void launch_stream_fill_identity(SummaryColumns cols, int slots, cudaStream_t stream);

}  // namespace wfod::cuda
