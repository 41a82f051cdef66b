// Robust selection on the device (docs/spec-10-selection.md §10.0, §10.2, §10.4): launchers of
// the block-summary, window-score, CSCV and plateau kernels (selection_kernels.cu). Every
// kernel reproduces the host's arithmetic exactly (built with -fmad=false); the pipeline that
// chains them is selection_pipeline.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device_grid.cuh"
#include "selection_lean.cuh"
#include "selection_plateau.cuh"
#include "sweep_kernels.cuh"
#include "wfod/summary.hpp"

namespace wfod::cuda {

// Combos [id0, id0 + count) of one kernel kind, every block b = [edges[b], edges[b + 1]):
// out[(id - id0) * blocks + b]. Invalid combos of this kind get identity Summaries; combos of
// other kinds are not written (each kind's launch writes its own).
void launch_block_summaries(const KernelKind& kind, const GridTables& g, const BarData& bars,
                            const long long* edges, int blocks, unsigned long long id0,
                            unsigned long long count, Summary* out);

// Per-combo window standing from its blocks (combined left to right, as score_grid does).
enum WindowFlags : uint8_t {
  kReplay = 1,     // joined Summary nonpositive: the host re-evaluates it (spec-notes 5)
  kCscvTakes = 2,  // valid, and none of its CSCV blocks is nonpositive: a PBO participant
};
// Combos id0 + i, i < n: blocks[i * stride ...] in, objective[i] ... flags[i] out.
void launch_window_scores(const GridTables& g, const Summary* blocks, int stride, int cscv_first,
                          int cscv_blocks, unsigned long long n, const RankParams& rp,
                          double sqrt_bars_per_year, double* objective, double* sharpe,
                          uint8_t* state, uint8_t* flags, unsigned long long id0 = 0);

// take[id] = 1 for CSCV participants (valid, kCscvTakes), iota[id] = id, for id < n.
void launch_cscv_take(const uint8_t* state, const uint8_t* flags, unsigned long long n,
                      uint8_t* take, uint32_t* iota);

// CSCV blocks of the participants, field-major for coalesced loads: d[(f * S + b) * np + k]
// for the Lean's doubles f, closed/held/flags[b * np + k] (flags: head_pos + 1 | (tail_pos
// + 1) << 2 | single_run << 4).
struct LeanColumns {
  double* d = nullptr;
  int32_t* closed = nullptr;
  int32_t* held = nullptr;
  int8_t* flags = nullptr;
  uint32_t np = 0;  // participants
  int S = 0;        // CSCV blocks
};

// The Lean layout a ranking needs: its doubles per block (0 when the objective is not one the
// device computes bit-identically: cagr, calmar).
int lean_doubles(const selection::lean::Ranking& rk);
// Threads per block of the split walks.
inline constexpr int kWalkThreads = 128;

// Participants a pack kernel marks as passing the constraints on every half-set (`unchecked`,
// selection_lean.cuh lean_always_passes) are walked by a kernel without the checks.
void launch_cscv_pack(const selection::lean::Ranking& rk, const Summary* blocks, int stride,
                      int first, const uint32_t* ids, const LeanColumns& cols, uint8_t* unchecked);
// Walk warps of `n` participants (whole walk blocks).
inline uint32_t cscv_walk_warps(uint32_t n) {
  return (n + kWalkThreads - 1) / kWalkThreads * (kWalkThreads / 32);
}
// The participants one walk launch takes: order[0..count), ascending participant indices;
// its warps write the partial columns warp_base.. of every split's walk_warps partials.
struct WalkPart {
  const uint32_t* order = nullptr;
  uint32_t count = 0;
  uint32_t warp_base = 0;
  uint32_t walk_warps = 0;  // partials per split, every part's warps together
};
// Row length of pass A's store: participants rounded up to 4 (rows of whole float4s).
__host__ __device__ inline size_t cscv_store_stride(uint32_t np) {
  return (static_cast<size_t>(np) + 3) / 4 * 4;
}
// Pass A over one part: per (walk warp, split) the best screen_key among the warp's passing
// participants, 0 for none (checked: the constraints are checked at every leaf). With `store`
// (splits rows of cscv_store_stride floats) every participant's screen on each half-set is
// kept.
void launch_cscv_pass_a(const selection::lean::Ranking& rk, const LeanColumns& cols,
                        const WalkPart& part, bool checked, const uint32_t* binom, uint32_t splits,
                        uint32_t* part_best, float* store);
// Per split: the winner's participant index (-1: none ranked in sample), exactly: the lanes
// of the walk warps whose best screen's band reaches the split's best, decided on their
// exact objectives (rank_key, then lowest k). The parts cover the partial columns together.
void launch_cscv_resolve(const selection::lean::Ranking& rk, const LeanColumns& cols,
                         const uint32_t* part_best, const WalkPart& unchecked_part,
                         const WalkPart& checked_part, const uint32_t* masks, uint32_t splits,
                         const selection::lean::ScreenBand& band, int32_t* winner_k);
// Per split with a winner: its IS objective and its OOS objective (the target of pass B).
void launch_cscv_targets(const selection::lean::Ranking& rk, const LeanColumns& cols,
                         const uint32_t* masks, uint32_t splits, const int32_t* winner_k,
                         double* is_obj, double* oos_obj);
// Pass B from pass A's store: per split, participants below the winner's OOS objective and
// others equal to it (screens whose band holds the target decided on the exact objective).
void launch_cscv_count_stored(const selection::lean::Ranking& rk, const LeanColumns& cols,
                              const float* store, const uint32_t* masks, uint32_t splits,
                              const selection::lean::ScreenBand& band, const int32_t* winner_k,
                              const double* oos_obj, unsigned long long* under,
                              unsigned long long* ties);
// Pass B without a store (it did not fit): a second walk with exact objectives, per (walk
// warp, split) counts, then their sums.
void launch_cscv_pass_b(const selection::lean::Ranking& rk, const LeanColumns& cols,
                        const WalkPart& part, const uint32_t* binom, uint32_t splits,
                        const int32_t* winner_k, const double* oos_obj, uint32_t* part_under,
                        uint32_t* part_ties);
void launch_cscv_reduce_b(const uint32_t* part_under, const uint32_t* part_ties,
                          uint32_t walk_warps, uint32_t splits, unsigned long long* under,
                          unsigned long long* ties);

// Plateau scores of every combo (NaN where the centre is not ranked or its objective is NaN).
void launch_plateau(const selection::stencil::StencilGrid& g, const double* objective,
                    const uint8_t* state, unsigned long long n, double* scores,
                    cudaStream_t stream = nullptr);

}  // namespace wfod::cuda
