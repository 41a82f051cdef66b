// Robust-selection kernels (docs/spec-10-selection.md §10): block summaries, window scores,
// CSCV passes and the plateau stencil. Exactness: every float is computed with the host's
// operations in the host's order (block_eval.cuh, summary_math.hpp, selection_lean.cuh,
// selection_plateau.cuh) and this file is built with -fmad=false (kernels/CMakeLists.txt), so
// no multiply-add is contracted where the host rounds twice. Reductions choose winners by
// integer keys and sum integer counts: no float is reduced in an order-dependent way.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <type_traits>

#include "block_eval.cuh"
#include "cuda_check.cuh"
#include "rank_device.cuh"
#include "selection_kernels.cuh"
#include "wfod/detail/summary_math.hpp"
#include "wfod/env_knobs.hpp"
#include "wfod/support.hpp"

namespace wfod::cuda {
namespace {

namespace lean = selection::lean;
using lean::Lean;

constexpr int kThreads = 256;
constexpr unsigned kFull = 0xffffffffu;

// The warp's largest value, in every lane (all 32 active; exact, unsigned). One instruction
// from sm_80 on; Turing (sm_75, in the default architecture list) has no __reduce_max_sync
// and takes five xor-shuffles.
__device__ __forceinline__ uint32_t warp_max(uint32_t v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(kFull, v);
#else
  for (int off = 16; off > 0; off >>= 1) v = max(v, __shfl_xor_sync(kFull, v, off));
  return v;
#endif
}

unsigned blocks_for(unsigned long long threads, int per_block = kThreads) {
  return static_cast<unsigned>((threads + per_block - 1) / per_block);
}

template <int Family, bool Cross, bool Vol, bool Screened>
__global__ void __launch_bounds__(kThreads)
    block_summaries_kernel(GridTables g, BarData bars, const long long* __restrict__ edges,
                           int blocks, unsigned long long id0, unsigned long long count,
                           Summary* out) {
  const unsigned long long gid =
      static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (gid >= count * static_cast<unsigned long long>(blocks)) return;
  // Neighbouring threads hold neighbouring combos of one block: a warp reads one bar's
  // column of the transposed indicator matrix at a time.
  const int b = static_cast<int>(gid / count);
  const unsigned long long i = gid % count;
  const DeviceCombo c = decode_combo(g, id0 + i);
  if (!is_kind<Family, Cross>(c)) return;
  out[i * blocks + b] =
      c.valid ? block_range_summary<Family, Cross, Vol, Screened>(c, bars, edges[b], edges[b + 1])
              : Summary{};
}

__global__ void __launch_bounds__(kThreads)
    window_scores_kernel(GridTables g, const Summary* __restrict__ blocks, int stride,
                         int cscv_first, int cscv_blocks, unsigned long long n, RankParams rp,
                         double sqrt_bpy, double* objective, double* sharpe, uint8_t* state,
                         uint8_t* flags, unsigned long long id0) {
  const unsigned long long id =
      static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (id >= n) return;
  const double kNaN = __longlong_as_double(0x7ff8000000000000ll);
  objective[id] = kNaN;
  sharpe[id] = kNaN;
  state[id] = selection::stencil::kInvalid;
  flags[id] = 0;
  if (!decode_combo(g, id0 + id).valid) return;
  const Summary* own = blocks + id * static_cast<unsigned long long>(stride);
  Summary s;  // left to right from the identity, as score_grid joins them
  for (int b = 0; b < stride; ++b) s = detail::combine_hd(s, own[b]);
  bool takes = true;
  for (int b = cscv_first; b < cscv_first + cscv_blocks; ++b) takes = takes && !own[b].nonpositive;
  uint8_t f = takes ? kCscvTakes : 0;
  if (s.nonpositive) {
    flags[id] = f | kReplay;
    state[id] = selection::stencil::kUnranked;  // until the host's exact replay
    return;
  }
  const Metrics m = detail::finalize_hd(s, rp.bars_per_year);
  objective[id] = objective_of(m, rp.objective);
  sharpe[id] = m.sharpe / sqrt_bpy;
  state[id] = passes(m, rp) ? selection::stencil::kRanked : selection::stencil::kUnranked;
  flags[id] = f;
}

// CSCV participants: valid combos none of whose CSCV blocks is nonpositive (the window scores'
// state and flags); iota[id] = id, the compaction's input.
__global__ void __launch_bounds__(kThreads)
    cscv_take_kernel(const uint8_t* __restrict__ state, const uint8_t* __restrict__ flags,
                     unsigned long long n, uint8_t* take, uint32_t* iota) {
  const unsigned long long id =
      static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (id >= n) return;
  take[id] = state[id] != selection::stencil::kInvalid && (flags[id] & kCscvTakes) ? 1 : 0;
  iota[id] = static_cast<uint32_t>(id);
}

// A participant's CSCV block c as a Lean, from the field-major columns (global or shared:
// `base` is the participant's column, `step` the distance between blocks, `fstep` between
// fields).
template <unsigned M>
__device__ __forceinline__ Lean<M> load_lean(const double* d, const int32_t* closed,
                                             const int32_t* held, const int8_t* flags, long long at,
                                             long long fstep) {
  Lean<M> l;
#pragma unroll
  for (int f = 0; f < Lean<M>::kDoubles; ++f) l.v[f] = d[f * fstep + at];
  l.closed = closed[at];
  l.held = held[at];
  const int8_t fl = flags[at];
  l.head_pos = static_cast<int8_t>((fl & 3) - 1);
  l.tail_pos = static_cast<int8_t>(((fl >> 2) & 3) - 1);
  l.single_run = ((fl >> 4) & 1) != 0;
  return l;
}

template <unsigned M>
__global__ void __launch_bounds__(kThreads)
    cscv_pack_kernel(const Summary* __restrict__ blocks, int stride, int first,
                     const uint32_t* __restrict__ ids, lean::Ranking rk, LeanColumns cols,
                     uint8_t* unchecked) {
  const unsigned k = blockIdx.x * kThreads + threadIdx.x;
  if (k >= cols.np) return;
  const Summary* own = blocks + static_cast<unsigned long long>(ids[k]) * stride + first;
  const long long np = cols.np;
  for (int b = 0; b < cols.S; ++b) {
    const Lean<M> l = lean::lean_of<M>(own[b]);
    const long long at = b * np + k;
#pragma unroll
    for (int f = 0; f < Lean<M>::kDoubles; ++f)
      cols.d[(static_cast<long long>(f) * cols.S) * np + at] = l.v[f];
    cols.closed[at] = l.closed;
    cols.held[at] = l.held;
    cols.flags[at] =
        static_cast<int8_t>((l.head_pos + 1) | ((l.tail_pos + 1) << 2) | (l.single_run ? 16 : 0));
  }
  unchecked[k] = lean::lean_always_passes<M>(
                     cols.S, [&](int c) { return lean::lean_of<M>(own[c]); }, rk)
                     ? 1
                     : 0;
}

// Whether a walk kernel keeps the blocks' trade and exposure fields: to check the constraints
// (Checked) or because the objective reads the runs (profit factor). Without them the joins
// are the doubles' arithmetic alone and a block takes 8 bytes per double of shared memory.
template <unsigned M, bool Checked>
constexpr bool walk_ints() {
  return Checked || lean::has(M, lean::kHeadRet);
}

// Shared-memory layout of a walk block: the threads' blocks (field-major, thread fastest),
// then (walk_ints) closed, held and flags, then the binomial table.
struct WalkSmem {
  double* d;
  int32_t* closed;
  int32_t* held;
  int8_t* flags;
  uint32_t* binom;
};

__host__ __device__ inline size_t walk_smem_bytes(int doubles, int S, bool ints) {
  const size_t per_block = static_cast<size_t>(S) * kWalkThreads;
  size_t bytes = per_block * (8 * static_cast<size_t>(doubles) + (ints ? 4 + 4 + 1 : 0));
  bytes = (bytes + 15) / 16 * 16;
  return bytes + sizeof(uint32_t) * (lean::kMaxBlocks + 1) * lean::kBinomCols;
}

template <unsigned M, bool Ints>
__device__ WalkSmem walk_smem(unsigned char* raw, int S) {
  const size_t per_block = static_cast<size_t>(S) * kWalkThreads;
  WalkSmem w;
  w.d = reinterpret_cast<double*>(raw);
  w.closed = reinterpret_cast<int32_t*>(w.d + per_block * Lean<M>::kDoubles);
  w.held = w.closed + per_block;
  w.flags = reinterpret_cast<int8_t*>(w.held + per_block);
  size_t used = per_block * (8 * static_cast<size_t>(Lean<M>::kDoubles) + (Ints ? 4 + 4 + 1 : 0));
  used = (used + 15) / 16 * 16;
  w.binom = reinterpret_cast<uint32_t*>(raw + used);
  return w;
}

// One thread per participant k = part.order[t] walks every S/2-subset H of its CSCV blocks
// (walk_half_sets); at each leaf its warp reduces over its 32 lanes and lane 0 writes the
// warp's partial for the split (warps never wait for each other: no barrier inside the walk).
// Pass A (!PassB): H is split s's IS half; the partial is the best screen_key among the warp's
// passing participants (0: none); with `store`, every participant's screen on H is also kept
// (store[s * cscv_store_stride + k]) for the streaming pass B.
// Checked: the constraints are checked at every leaf; otherwise every participant of the part
// passes on every half-set (lean_always_passes, decided by the pack kernel). Pass B (the
// fallback when the store does not fit): H is the OOS half of split J = splits - 1 - s; the
// partial counts the warp's participants below the winner's OOS objective and the others
// equal to it. All lanes walk the same tree in the same order, so the warp-wide reductions
// are uniform.
template <unsigned M, int Obj, bool PassB, int Half, bool Checked>
__global__ void __launch_bounds__(kWalkThreads, walk_ints<M, Checked>() ? 4 : 6)
    cscv_walk_kernel(LeanColumns cols, WalkPart part, const uint32_t* __restrict__ binom_g,
                     lean::Ranking rk, uint32_t splits, uint32_t* part_best, float* store,
                     const int32_t* __restrict__ winner_k, const double* __restrict__ target,
                     uint32_t* part_under, uint32_t* part_ties) {
  constexpr bool kInts = walk_ints<M, Checked>();
  extern __shared__ __align__(16) unsigned char raw[];
  const int S = cols.S, tid = threadIdx.x, lane = tid & 31;
  const WalkSmem sm = walk_smem<M, kInts>(raw, S);
  const uint32_t t = blockIdx.x * kWalkThreads + tid;
  const size_t warp_col = part.warp_base + (t >> 5);
  const bool active = t < part.count;
  const uint32_t k = active ? part.order[t] : 0;
  const long long np = cols.np;
  const size_t store_stride = cscv_store_stride(cols.np);
  for (int b = 0; b < S; ++b) {
    const long long g_at = b * np + k, s_at = b * kWalkThreads + tid;
#pragma unroll
    for (int f = 0; f < Lean<M>::kDoubles; ++f)
      sm.d[static_cast<long long>(f) * S * kWalkThreads + s_at] =
          active ? cols.d[static_cast<long long>(f) * S * np + g_at] : 0.0;
    if constexpr (kInts) {
      sm.closed[s_at] = active ? cols.closed[g_at] : 0;
      sm.held[s_at] = active ? cols.held[g_at] : 0;
      sm.flags[s_at] = active ? cols.flags[g_at] : static_cast<int8_t>(1 | 4 | 16);
    }
  }
  for (int i = tid; i < (lean::kMaxBlocks + 1) * lean::kBinomCols; i += kWalkThreads)
    sm.binom[i] = binom_g[i];
  __syncthreads();  // the only barrier: the block's data and the binomials are in place

  auto block = [&](int c) {
    const long long at = c * kWalkThreads + tid;
    if constexpr (kInts) {
      return load_lean<M>(sm.d, sm.closed, sm.held, sm.flags, at,
                          static_cast<long long>(S) * kWalkThreads);
    } else {
      Lean<M> l{};  // the fields a join of doubles alone leaves unread
#pragma unroll
      for (int f = 0; f < Lean<M>::kDoubles; ++f)
        l.v[f] = sm.d[static_cast<long long>(f) * S * kWalkThreads + at];
      return l;
    }
  };
  auto leaf = [&](uint32_t s, const Lean<M>& fold) {
    if constexpr (!PassB) {
      uint32_t key = 0;
      if (active) {
        const float y = lean::screen_objective<M, Obj>(fold, rk);
        if (store) store[static_cast<size_t>(s) * store_stride + k] = y;
        if (!Checked || lean::lean_passes(fold, rk)) key = lean::screen_key(y);
      }
      // The warp's best screen (cscv_resolve_kernel finds the exact winner from these).
      const uint32_t best = warp_max(key);
      if (lane == 0) part_best[static_cast<size_t>(s) * part.walk_warps + warp_col] = best;
    } else {
      const uint32_t J = splits - 1 - s;  // H is split J's OOS half
      const int32_t w = winner_k[J];
      bool is_below = false, is_tie = false;
      if (active && w >= 0) {
        const double x = lean::lean_objective<M, Obj>(fold, rk), tgt = target[J];
        is_below = lean::below(x, tgt);
        is_tie = static_cast<int32_t>(k) != w && lean::same(x, tgt);
      }
      const unsigned under = __popc(__ballot_sync(kFull, is_below));
      const unsigned ties = __popc(__ballot_sync(kFull, is_tie));
      if (lane == 0) {
        const size_t at = static_cast<size_t>(J) * part.walk_warps + warp_col;
        part_under[at] = under;
        part_ties[at] = ties;
      }
    }
  };
  lean::walk_half_sets<M, Half>(S, block, sm.binom, leaf);  // Half: 0 or S / 2
}

// The exact objective of participant k on the blocks of `mask` (the host's fold and
// finalize: what the screens stand for).
template <unsigned M, int Obj>
__device__ double exact_objective(const LeanColumns& cols, uint32_t k, uint32_t mask,
                                  const lean::Ranking& rk) {
  const long long np = cols.np;
  auto block = [&](int c) {
    return load_lean<M>(cols.d, cols.closed, cols.held, cols.flags, c * np + k,
                        static_cast<long long>(cols.S) * np);
  };
  return lean::lean_objective<M, Obj>(lean::fold_mask<M>(mask, cols.S, block), rk);
}

// The exact decision of one participant against the target (out of line: rare, and the
// streaming loop keeps its registers).
template <unsigned M, int Obj>
__device__ __noinline__ void count_exactly(const LeanColumns& cols, uint32_t k, uint32_t oos,
                                           const lean::Ranking& rk, double t, int32_t w,
                                           unsigned long long& u, unsigned long long& e) {
  const double x = exact_objective<M, Obj>(cols, k, oos, rk);
  u += lean::below(x, t) ? 1 : 0;
  e += (static_cast<int32_t>(k) != w && lean::same(x, t)) ? 1 : 0;
}

// Pass B from the stored screens: one block per split J counts, over every participant, the
// OOS objectives (store row splits - 1 - J: the complement's IS half) below the winner's
// exact OOS objective t and the others equal to it. A screen whose band lies wholly below or
// above t decides by itself; any other (t inside the band, or an infinite or NaN screen) is
// decided on the exact objective. Integer counts: the order of the sums does not matter.
template <unsigned M, int Obj>
__global__ void __launch_bounds__(kThreads)
    cscv_count_stored_kernel(LeanColumns cols, const float* __restrict__ store,
                             const uint32_t* __restrict__ masks, uint32_t splits,
                             lean::ScreenBand band, lean::Ranking rk,
                             const int32_t* __restrict__ winner_k,
                             const double* __restrict__ target, unsigned long long* under,
                             unsigned long long* ties) {
  __shared__ unsigned long long s_u[kThreads / 32], s_t[kThreads / 32];
  const uint32_t J = blockIdx.x, np = cols.np;
  const int32_t w = winner_k[J];
  if (w < 0) {  // no winner: the split is left out; its counts are never read
    if (threadIdx.x == 0) under[J] = ties[J] = 0;
    return;
  }
  const double t = target[J];
  const uint32_t oos = ((1u << cols.S) - 1u) & ~masks[J];
  const size_t stride = cscv_store_stride(np);
  const float4* row = reinterpret_cast<const float4*>(store + (splits - 1 - J) * stride);
  unsigned long long u = 0, e = 0;
  // A NaN target: every number is above it (pbo.cpp's order: neither below nor equal).
  const lean::ScreenThresholds th = lean::screen_thresholds(t, band);
  auto decide = [&](float y, uint32_t k) {
    if (k >= np) return;  // the row's padding
    if (isfinite(y)) {
      if (y < th.below) {
        ++u;
        return;
      }
      if (y > th.above) return;
    }
    count_exactly<M, Obj>(cols, k, oos, rk, t, w, u, e);
  };
  // Four float4 loads in flight per thread before any decision: the loop streams the row at
  // memory speed (the exact decisions are rare and out of line).
  constexpr uint32_t kInFlight = 4;
  const uint32_t quads = static_cast<uint32_t>(stride / 4);
  for (uint32_t q0 = threadIdx.x; q0 < quads; q0 += kInFlight * kThreads) {
    float4 v[kInFlight];
#pragma unroll
    for (uint32_t i = 0; i < kInFlight; ++i) {
      const uint32_t q = q0 + i * kThreads;
      v[i] = q < quads ? row[q] : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (uint32_t i = 0; i < kInFlight; ++i) {
      const uint32_t k = 4 * (q0 + i * kThreads);
      if (k >= np) break;
      decide(v[i].x, k);
      decide(v[i].y, k + 1);
      decide(v[i].z, k + 2);
      decide(v[i].w, k + 3);
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    u += __shfl_xor_sync(kFull, u, off);
    e += __shfl_xor_sync(kFull, e, off);
  }
  if ((threadIdx.x & 31) == 0) {
    s_u[threadIdx.x >> 5] = u;
    s_t[threadIdx.x >> 5] = e;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long tu = 0, te = 0;
    for (int i = 0; i < kThreads / 32; ++i) {
      tu += s_u[i];
      te += s_t[i];
    }
    under[J] = tu;
    ties[J] = te;
  }
}

// One warp per split finds the exact winner from the walk warps' best screens. y* is the
// split's best screen; some passing participant's exact objective is at least band_lo(y*),
// and a walk warp whose best band ends below that holds no winner. The lanes of every other
// warp with a passing participant are decided on their exact objectives and constraints
// (rank_key, then the lowest k). A NaN or -inf y* makes every such warp a candidate.
// Integer keys: order-free.
template <unsigned M, int Obj>
__global__ void __launch_bounds__(kThreads)
    cscv_resolve_kernel(LeanColumns cols, const uint32_t* __restrict__ part_best,
                        WalkPart first_part, bool first_checked, WalkPart second_part,
                        bool second_checked, const uint32_t* __restrict__ masks, uint32_t splits,
                        lean::ScreenBand band, lean::Ranking rk, int32_t* winner_k) {
  const uint32_t s = (blockIdx.x * kThreads + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (s >= splits) return;  // whole warps leave together
  const uint32_t walk_warps = first_part.walk_warps;
  const uint32_t* row = part_best + static_cast<size_t>(s) * walk_warps;
  uint32_t best = 0;
  for (uint32_t b = lane; b < walk_warps; b += 32) best = max(best, row[b]);
  best = warp_max(best);
  unsigned long long best_key = 0;
  uint32_t best_k = 0xffffffffu;
  if (best != 0) {
    const float y_best = best >= 2 ? lean::screen_of_key(best) : 0.0f;
    // A screen of +inf stands for an objective above FLT_MAX; NaN (all NaN) and -inf (all at
    // most -FLT_MAX) leave no floor: every warp with a passing participant is a candidate.
    const bool all = best < 2 || y_best == -INFINITY;
    // The floor is a key unit lower (rank_key_tie_floor): a combo whose exact objective ties
    // the best one's rank key with a lower k wins.
    const double floor = all ? 0.0
                             : ::wfod::detail::rank_key_tie_floor(
                                   isfinite(y_best) ? lean::band_lo(y_best, band) : FLT_MAX);
    const uint32_t mask = masks[s];
    for (uint32_t b0 = 0; b0 < walk_warps; b0 += 32) {
      const uint32_t b = b0 + lane;
      bool candidate = false;
      if (b < walk_warps && row[b] != 0) {
        const uint32_t key = row[b];
        const float y = key >= 2 ? lean::screen_of_key(key) : 0.0f;
        // An infinite best screen has no band: its warp is a candidate.
        candidate = all || (key >= 2 && (!isfinite(y) || lean::band_hi(y, band) >= floor));
      }
      // Every lane of each candidate warp, one resolving lane per walk lane.
      for (uint32_t c = __ballot_sync(kFull, candidate); c != 0; c &= c - 1) {
        const uint32_t wb = b0 + (__ffs(c) - 1);
        const bool in_first = wb < second_part.warp_base || second_part.count == 0;
        const WalkPart& part = in_first ? first_part : second_part;
        const bool checked = in_first ? first_checked : second_checked;
        const uint32_t t = (wb - part.warp_base) * 32 + lane;
        if (t >= part.count) continue;
        const uint32_t k = part.order[t];
        const long long np = cols.np;
        auto block = [&](int blk) {
          return load_lean<M>(cols.d, cols.closed, cols.held, cols.flags, blk * np + k,
                              static_cast<long long>(cols.S) * np);
        };
        const Lean<M> fold = lean::fold_mask<M>(mask, cols.S, block);
        if (checked && !lean::lean_passes(fold, rk)) continue;
        const unsigned long long key = lean::rank_key(lean::lean_objective<M, Obj>(fold, rk));
        if (key > best_key || (key == best_key && k < best_k)) {
          best_key = key;
          best_k = k;
        }
      }
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    const unsigned long long ok = __shfl_xor_sync(kFull, best_key, off);
    const uint32_t okk = __shfl_xor_sync(kFull, best_k, off);
    if (ok > best_key || (ok == best_key && okk < best_k)) {
      best_key = ok;
      best_k = okk;
    }
  }
  if (lane == 0) winner_k[s] = best_key == 0 ? -1 : static_cast<int32_t>(best_k);
}

template <unsigned M, int Obj>
__global__ void __launch_bounds__(kThreads)
    cscv_targets_kernel(LeanColumns cols, const uint32_t* __restrict__ masks, uint32_t splits,
                        const int32_t* __restrict__ winner_k, lean::Ranking rk, double* is_obj,
                        double* oos_obj) {
  const uint32_t s = blockIdx.x * kThreads + threadIdx.x;
  if (s >= splits) return;
  const int32_t w = winner_k[s];
  if (w < 0) return;
  const uint32_t all = (1u << cols.S) - 1u;
  is_obj[s] = exact_objective<M, Obj>(cols, static_cast<uint32_t>(w), masks[s], rk);
  oos_obj[s] = exact_objective<M, Obj>(cols, static_cast<uint32_t>(w), all & ~masks[s], rk);
}

// One warp per split: integer sums of the split's contiguous walk-warp counts.
__global__ void __launch_bounds__(kThreads)
    cscv_reduce_b_kernel(const uint32_t* __restrict__ part_under,
                         const uint32_t* __restrict__ part_ties, uint32_t walk_warps,
                         uint32_t splits, unsigned long long* under, unsigned long long* ties) {
  const uint32_t s = (blockIdx.x * kThreads + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (s >= splits) return;
  unsigned long long u = 0, t = 0;
  for (uint32_t b = lane; b < walk_warps; b += 32) {
    u += part_under[static_cast<size_t>(s) * walk_warps + b];
    t += part_ties[static_cast<size_t>(s) * walk_warps + b];
  }
  for (int off = 16; off > 0; off >>= 1) {
    u += __shfl_xor_sync(kFull, u, off);
    t += __shfl_xor_sync(kFull, t, off);
  }
  if (lane == 0) {
    under[s] = u;
    ties[s] = t;
  }
}

__global__ void __launch_bounds__(kThreads)
    plateau_kernel(selection::stencil::StencilGrid g, const double* __restrict__ objective,
                   const uint8_t* __restrict__ state, unsigned long long n, double* scores) {
  const unsigned long long id =
      static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (id >= n) return;
  const double o = objective[id];
  if (state[id] != selection::stencil::kRanked || o != o) {
    scores[id] = __longlong_as_double(0x7ff8000000000000ll);
    return;
  }
  scores[id] = selection::stencil::centre_score(g, id, objective, state).score;
}

template <class F>
void with_lean(const lean::Ranking& rk, F&& f) {
  if (!lean::dispatch(rk, f))
    throw Unsupported("device CSCV: objective not computed bit-identically on the device");
}

}  // namespace

void launch_block_summaries(const KernelKind& kind, const GridTables& g, const BarData& bars,
                            const long long* edges, int blocks, unsigned long long id0,
                            unsigned long long count, Summary* out) {
  // The float32 screen decides as the float64 rules do (block_eval.cuh) and reads half the
  // bytes; WFOD_CUDA_BLOCKS_EXACT=1 keeps the plain float64 decisions (tests run both).
  const char* env = wfod::env_value(wfod::Env::cuda_blocks_exact);
  const bool screened = !(env && std::string_view(env) == "1");
  dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
    constexpr int F = decltype(fam)::value;
    constexpr bool C = decltype(cross)::value, V = decltype(vol)::value;
    const unsigned grid = blocks_for(count * static_cast<unsigned long long>(blocks));
    if (screened)
      block_summaries_kernel<F, C, V, true>
          <<<grid, kThreads>>>(g, bars, edges, blocks, id0, count, out);
    else
      block_summaries_kernel<F, C, V, false>
          <<<grid, kThreads>>>(g, bars, edges, blocks, id0, count, out);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_window_scores(const GridTables& g, const Summary* blocks, int stride, int cscv_first,
                          int cscv_blocks, unsigned long long n, const RankParams& rp,
                          double sqrt_bars_per_year, double* objective, double* sharpe,
                          uint8_t* state, uint8_t* flags, unsigned long long id0) {
  window_scores_kernel<<<blocks_for(n), kThreads>>>(g, blocks, stride, cscv_first, cscv_blocks, n,
                                                    rp, sqrt_bars_per_year, objective, sharpe,
                                                    state, flags, id0);
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_cscv_take(const uint8_t* state, const uint8_t* flags, unsigned long long n,
                      uint8_t* take, uint32_t* iota) {
  cscv_take_kernel<<<blocks_for(n), kThreads>>>(state, flags, n, take, iota);
  WFOD_CUDA_CHECK_LAUNCH();
}

int lean_doubles(const lean::Ranking& rk) {
  int doubles = 0;
  lean::dispatch(rk, [&](auto mask, auto) { doubles = Lean<decltype(mask)::value>::kDoubles; });
  return doubles;
}

void launch_cscv_pack(const lean::Ranking& rk, const Summary* blocks, int stride, int first,
                      const uint32_t* ids, const LeanColumns& cols, uint8_t* unchecked) {
  with_lean(rk, [&](auto mask, auto) {
    cscv_pack_kernel<decltype(mask)::value>
        <<<blocks_for(cols.np), kThreads>>>(blocks, stride, first, ids, rk, cols, unchecked);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

namespace {
template <bool PassB, bool Checked>
void launch_walk(const lean::Ranking& rk, const LeanColumns& cols, const WalkPart& part,
                 const uint32_t* binom, uint32_t splits, uint32_t* part_best, float* store,
                 const int32_t* winner_k, const double* target, uint32_t* part_under,
                 uint32_t* part_ties) {
  if (part.count == 0) return;
  // S = 16 (the default pbo_blocks) has its own instantiation with the tree's shape fixed at
  // compile time; WFOD_CUDA_WALK_GENERIC=1 forces the run-time shape (tests run both).
  const char* env = wfod::env_value(wfod::Env::cuda_walk_generic);
  const bool fixed16 = cols.S == 16 && !(env && std::string_view(env) == "1");
  with_lean(rk, [&](auto mask, auto obj) {
    constexpr unsigned M = decltype(mask)::value;
    constexpr int Obj = decltype(obj)::value;
    auto kernel = fixed16 ? cscv_walk_kernel<M, Obj, PassB, 8, Checked>
                          : cscv_walk_kernel<M, Obj, PassB, 0, Checked>;
    const size_t smem = walk_smem_bytes(Lean<M>::kDoubles, cols.S, walk_ints<M, Checked>());
    WFOD_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
    kernel<<<blocks_for(part.count, kWalkThreads), kWalkThreads, smem>>>(
        cols, part, binom, rk, splits, part_best, store, winner_k, target, part_under, part_ties);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}
}  // namespace

void launch_cscv_pass_a(const lean::Ranking& rk, const LeanColumns& cols, const WalkPart& part,
                        bool checked, const uint32_t* binom, uint32_t splits, uint32_t* part_best,
                        float* store) {
  if (checked) {
    launch_walk<false, true>(rk, cols, part, binom, splits, part_best, store, nullptr, nullptr,
                             nullptr, nullptr);
  } else {
    launch_walk<false, false>(rk, cols, part, binom, splits, part_best, store, nullptr, nullptr,
                              nullptr, nullptr);
  }
}

void launch_cscv_resolve(const lean::Ranking& rk, const LeanColumns& cols,
                         const uint32_t* part_best, const WalkPart& unchecked_part,
                         const WalkPart& checked_part, const uint32_t* masks, uint32_t splits,
                         const lean::ScreenBand& band, int32_t* winner_k) {
  with_lean(rk, [&](auto mask, auto obj) {
    cscv_resolve_kernel<decltype(mask)::value, decltype(obj)::value>
        <<<blocks_for(static_cast<unsigned long long>(splits) * 32), kThreads>>>(
            cols, part_best, unchecked_part, false, checked_part, true, masks, splits, band, rk,
            winner_k);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_cscv_targets(const lean::Ranking& rk, const LeanColumns& cols, const uint32_t* masks,
                         uint32_t splits, const int32_t* winner_k, double* is_obj,
                         double* oos_obj) {
  with_lean(rk, [&](auto mask, auto obj) {
    cscv_targets_kernel<decltype(mask)::value, decltype(obj)::value>
        <<<blocks_for(splits), kThreads>>>(cols, masks, splits, winner_k, rk, is_obj, oos_obj);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_cscv_pass_b(const lean::Ranking& rk, const LeanColumns& cols, const WalkPart& part,
                        const uint32_t* binom, uint32_t splits, const int32_t* winner_k,
                        const double* oos_obj, uint32_t* part_under, uint32_t* part_ties) {
  // Pass B reads objectives only: the unchecked walk serves every part.
  launch_walk<true, false>(rk, cols, part, binom, splits, nullptr, nullptr, winner_k, oos_obj,
                           part_under, part_ties);
}

void launch_cscv_count_stored(const lean::Ranking& rk, const LeanColumns& cols, const float* store,
                              const uint32_t* masks, uint32_t splits, const lean::ScreenBand& band,
                              const int32_t* winner_k, const double* oos_obj,
                              unsigned long long* under, unsigned long long* ties) {
  with_lean(rk, [&](auto mask, auto obj) {
    cscv_count_stored_kernel<decltype(mask)::value, decltype(obj)::value><<<splits, kThreads>>>(
        cols, store, masks, splits, band, rk, winner_k, oos_obj, under, ties);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_cscv_reduce_b(const uint32_t* part_under, const uint32_t* part_ties,
                          uint32_t walk_warps, uint32_t splits, unsigned long long* under,
                          unsigned long long* ties) {
  cscv_reduce_b_kernel<<<blocks_for(static_cast<unsigned long long>(splits) * 32), kThreads>>>(
      part_under, part_ties, walk_warps, splits, under, ties);
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_plateau(const selection::stencil::StencilGrid& g, const double* objective,
                    const uint8_t* state, unsigned long long n, double* scores,
                    cudaStream_t stream) {
  plateau_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, objective, state, n, scores);
  WFOD_CUDA_CHECK_LAUNCH();
}

}  // namespace wfod::cuda
