// Device window evaluation. Each thread runs one combo over one range of bars exactly as the
// CPU kernel does (SPEC §2 segments, §6 statistics); the state at the range's start comes
// from a backward scan to the last bar that sets the position, so ranges are independent.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda_check.cuh"
#include "rank_device.cuh"
#include "stretch_evaluator.cuh"
#include "sweep_block.cuh"
#include "sweep_kernels.cuh"
#include "tally.cuh"
#include "tile_decisions.cuh"
#include "wfod/detail/summary_math.hpp"
#include "wfod/ranking.hpp"

namespace wfod::cuda {
namespace {

// The fused kernel's blocks per SM, compile-time so a benchmark can build variants (-D...;
// the load steps are in tile_decisions.cuh): 3, at most 80 registers (bench/results
// h200-2026-12-03-s16a/-s16b, against 4 blocks of at most 64: A 6.18 -> 5.25-5.27 ms,
// D 7.18 -> 6.73-6.78, E 9.43 -> 8.61-8.64, C 365 -> 369).
#ifndef WFOD_FUSED_BLOCKS
#define WFOD_FUSED_BLOCKS 3
#endif
constexpr int kFusedBlocksPerSm = WFOD_FUSED_BLOCKS;

// The per-bar evaluator: every bar's accounting in order (the canonical summation order,
// docs/spec-notes.md 13), the decisions made a tile ahead (TileDecider, exact: fast = false
// whatever the precision, as next() decides). The accounting reads only the bar's two returns,
// which all lanes of a chunk-major warp share, loaded kAccountStep bars at a time (a knob
// like those above).
#ifndef WFOD_ACCOUNT_STEP
#define WFOD_ACCOUNT_STEP 8
#endif
constexpr int kAccountStep = WFOD_ACCOUNT_STEP;

template <int Family, bool Cross, bool Vol>
__device__ Summary evaluate_range(const DeviceCombo& c, const BarData& bars, long long first,
                                  long long last) {
  const double p2 = position_before<Family, Cross, Vol>(c, bars, first - 2);
  const double p1 = next_bar<Family, Cross, Vol>(c, bars, first - 1, p2);
  TileDecider<Family, Cross, Vol> decider(c, bars, first, last, p2, p1, false);
  RangeWalk<false> walk;
  for (long long t0 = first, end; t0 < last; t0 = end) {
    end = tile_end(t0, last);
    const int count = static_cast<int>(end - t0);
    double a = decider.ip2;  // the position held in the body of the bar before the tile
    const TileDecisions tile = decider.next(t0, count);
    // The tile's bars by held sign at once, from the codes (walk.step leaves them out).
    walk.tally.longs += tile.long_bars();
    walk.tally.shorts += tile.short_bars();
    const double* gap = bars.gap + t0;
    const double* body = bars.body + t0;
    int j = 0;
    for (; j + kAccountStep <= count; j += kAccountStep) {
      double g[kAccountStep], r[kAccountStep];
#pragma unroll
      for (int u = 0; u < kAccountStep; ++u) {
        g[u] = gap[j + u];
        r[u] = body[j + u];
      }
#pragma unroll
      for (int u = 0; u < kAccountStep; ++u)
        walk.step((tile.change_mask >> (j + u)) & 1u, a, [&] { return tile.held_at(j + u); }, g[u],
                  r[u], bars.cost);
    }
    for (; j < count; ++j)
      walk.step((tile.change_mask >> j) & 1u, a, [&] { return tile.held_at(j); }, gap[j], body[j],
                bars.cost);
  }
  return walk.summary(first, last, p2, decider.ip2);
}

template <int Family, bool Cross, bool Vol, bool Plain>
__device__ Summary evaluate_kind(const DeviceCombo& c, const BarData& bars, long long first,
                                 long long last) {
  if constexpr (Plain)
    return evaluate_range<Family, Cross, Vol>(c, bars, first, last);
  else
    return evaluate_stretches<Family, Cross, Vol>(c, bars, first, last);
}

// Persistent blocks: each takes groups of 256 consecutive combo ids (block index, then every
// gridDim-th group) so the grid is exactly what the GPU holds at once (no partial last wave);
// each group leaves its top k in block_out[group * k]. kFusedBlocksPerSm blocks per SM.
template <int Family, bool Cross, bool Vol, bool Plain>
__global__ void __launch_bounds__(kBlock, kFusedBlocksPerSm)
    sweep_fused_kernel(GridTables g, BarData bars, long long first, long long last,
                       unsigned long long n_ids, RankParams rp, int k, Candidate* block_out,
                       Counters* counters, unsigned long long* fallback,
                       unsigned int fallback_cap) {
  const unsigned long long groups = (n_ids + kBlock - 1) / kBlock;
  for (unsigned long long group = blockIdx.x; group < groups; group += gridDim.x) {
    const unsigned long long q = group * kBlock + threadIdx.x;
    rank_sweep_block<Family, Cross>(
        g, q, n_ids, q < n_ids, rp, k, block_out + static_cast<size_t>(group) * k, counters,
        fallback, fallback_cap, [&](const DeviceCombo& c) {
          return evaluate_kind<Family, Cross, Vol, Plain>(c, bars, first, last);
        });
    __syncthreads();  // block_topk's shared buffer is reused by the next group
  }
}

// Chunk-major: thread gid = chunk * n + i runs ids[i] (or id0 + i) over its chunk
// (launch_chunk_summaries).
template <int Family, bool Cross, bool Vol, bool Plain>
__global__ void __launch_bounds__(kBlock)
    chunk_parts_kernel(GridTables g, BarData bars, long long first, long long window,
                       unsigned long long n, const unsigned long long* __restrict__ ids,
                       unsigned long long id0, int chunks, Summary* parts) {
  const unsigned long long gid = static_cast<unsigned long long>(blockIdx.x) * kBlock + threadIdx.x;
  if (gid >= n * static_cast<unsigned long long>(chunks)) return;
  const long long chunk = static_cast<long long>(gid / n);
  const unsigned long long i = gid % n;
  const DeviceCombo c = decode_combo(g, ids ? ids[i] : id0 + i);
  if (!is_kind<Family, Cross>(c)) return;
  Summary s;
  if (c.valid) {
    const long long lo = first + window * chunk / chunks;
    const long long hi = first + window * (chunk + 1) / chunks;
    s = evaluate_kind<Family, Cross, Vol, Plain>(c, bars, lo, hi);
  }
  parts[gid] = s;
}

// One combo's strategy returns s_t over [first, last) (combo_returns' values, bit for bit): a
// thread per tile of kTile bars, its entry state by the backward scan and its decisions and
// per-bar values exactly as evaluate_range makes them, written to out[t - first].
template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kBlock)
    window_returns_kernel(GridTables g, BarData bars, unsigned long long id, long long first,
                          long long last, double* __restrict__ out) {
  const long long t0 = first + (static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x) * kTile;
  if (t0 >= last) return;
  const DeviceCombo c = decode_combo(g, id);
  if (!is_kind<Family, Cross>(c) || !c.valid) return;
  const int count = last - t0 < kTile ? static_cast<int>(last - t0) : kTile;
  const double p2 = position_before<Family, Cross, Vol>(c, bars, t0 - 2);
  const double p1 = next_bar<Family, Cross, Vol>(c, bars, t0 - 1, p2);
  TileDecider<Family, Cross, Vol> decider(c, bars, t0, t0 + count, p2, p1, false);
  double a = decider.ip2;
  const TileDecisions tile = decider.next(t0, count);
  for (int j = 0; j < count; ++j) {
    const double b = tile.held_at(j);
    out[t0 - first + j] = bar_return(a, b, bars.gap[t0 + j], bars.body[t0 + j], bars.cost);
    a = b;
  }
}

// The perfect binary tree over the Leaves consecutive chunk parts of id i from chunk c0 on
// (Leaves a power of two: left half first, then the right, joined).
template <int Leaves>
__device__ Summary join_subtree(const Summary* parts, unsigned long long n, unsigned long long i,
                                unsigned long long c0) {
  if constexpr (Leaves == 1)
    return parts[c0 * n + i];
  else
    return detail::combine_hd(join_subtree<Leaves / 2>(parts, n, i, c0),
                              join_subtree<Leaves / 2>(parts, n, i, c0 + Leaves / 2));
}

// Thread gid = i * (chunks / Leaves) + c joins parts c * Leaves .. c * Leaves + Leaves - 1 of
// ids[i] (parts[chunk * n + i], chunk-major) by the perfect binary tree, and a block joins
// each span = min(chunks / Leaves, kBlock) consecutive such subtrees of an id by the rest of
// that tree, left to right at every level (pairs at stride 1, 2, 4, ..., the left part
// first), in shared memory, into out[i * groups + c / span] (groups = chunks / Leaves / span:
// one Summary per id when chunks <= Leaves * kBlock). A few ids with many chunks (a long
// window's re-scores) take a few levels, not chunks - 1 dependent joins. out may be parts
// when groups == 1: row 0 of an id is read by its own block only.
template <int Leaves>
__global__ void __launch_bounds__(kBlock)
    join_chunks_kernel(const Summary* parts, unsigned long long n, int chunks, Summary* out) {
  __shared__ alignas(Summary) unsigned char raw[kBlock * sizeof(Summary)];
  Summary* sh = reinterpret_cast<Summary*>(raw);
  const int subtrees = chunks / Leaves;
  const unsigned long long gid = static_cast<unsigned long long>(blockIdx.x) * kBlock + threadIdx.x;
  const unsigned long long i = gid / static_cast<unsigned long long>(subtrees);
  const unsigned long long c = gid % static_cast<unsigned long long>(subtrees);
  const int span = subtrees < kBlock ? subtrees : kBlock;
  const int tid = threadIdx.x;
  sh[tid] = i < n ? join_subtree<Leaves>(parts, n, i, c * Leaves) : Summary{};
  __syncthreads();
  for (int stride = 1; stride < span; stride <<= 1) {
    if (tid % (2 * stride) == 0) sh[tid] = detail::combine_hd(sh[tid], sh[tid + stride]);
    __syncthreads();
  }
  if (c % span == 0 && i < n) out[i * (subtrees / span) + c / span] = sh[tid];
}

__global__ void __launch_bounds__(kBlock)
    finalize_rank_kernel(GridTables g, const Summary* parts, int parts_per_combo,
                         unsigned long long n_ids, RankParams rp, int k, Candidate* block_out,
                         Counters* counters, unsigned long long* fallback,
                         unsigned int fallback_cap) {
  const unsigned long long id = static_cast<unsigned long long>(blockIdx.x) * kBlock + threadIdx.x;
  Candidate cand{0.0, kEmptyId};
  bool valid = false, ranked = false;
  const bool in_range = id < n_ids;
  if (in_range) {
    valid = decode_combo(g, id).valid;
    if (valid) {
      Summary s;
      for (int p = 0; p < parts_per_combo; ++p)
        s = detail::combine_hd(s, parts[id * parts_per_combo + p]);
      cand = rank_one(s, id, rp, fallback, fallback_cap, counters, &ranked);
    }
  }
  count_block(in_range && valid, in_range && !valid, ranked, counters);
  block_topk(cand, k, block_out + static_cast<size_t>(blockIdx.x) * k);
}

template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kBlock)
    fast_parity_kernel(GridTables g, BarData bars, long long first, long long last,
                       unsigned long long n_ids, RankParams rp, FastParityCounters* out) {
  const unsigned long long id = static_cast<unsigned long long>(blockIdx.x) * kBlock + threadIdx.x;
  unsigned long long compared = 0, differing = 0, trade_diff = 0, total = 0, objective_bits = 0;
  if (id < n_ids) {
    const DeviceCombo c = decode_combo(g, id);
    if (is_kind<Family, Cross>(c) && c.valid) {
      BarData exact = bars, fast = bars;
      exact.fast = 0;
      fast.fast = 1;
      const Summary se = evaluate_stretches<Family, Cross, Vol>(c, exact, first, last);
      const Summary sf = evaluate_stretches<Family, Cross, Vol>(c, fast, first, last);
      const Metrics me = detail::finalize_hd(se, rp.bars_per_year);
      const Metrics mf = detail::finalize_hd(sf, rp.bars_per_year);
      compared = 1;
      const long long d = mf.trades - me.trades;
      trade_diff = static_cast<unsigned long long>(d < 0 ? -d : d);
      differing = trade_diff != 0;
      total = static_cast<unsigned long long>(me.trades);
      if (!se.nonpositive && !sf.nonpositive) {
        const double od = fabs(objective_of(mf, rp.objective) - objective_of(me, rp.objective));
        // Non-negative doubles order like their bit patterns: atomicMax on the bits.
        if (od == od) objective_bits = static_cast<unsigned long long>(__double_as_longlong(od));
      }
    }
  }
  // Warp reduction, then one atomic per warp.
  unsigned long long max_diff = trade_diff, shifted = trade_diff, max_obj = objective_bits;
  for (int off = 16; off > 0; off >>= 1) {
    compared += __shfl_xor_sync(0xffffffffu, compared, off);
    differing += __shfl_xor_sync(0xffffffffu, differing, off);
    shifted += __shfl_xor_sync(0xffffffffu, shifted, off);
    total += __shfl_xor_sync(0xffffffffu, total, off);
    const unsigned long long md = __shfl_xor_sync(0xffffffffu, max_diff, off);
    const unsigned long long mo = __shfl_xor_sync(0xffffffffu, max_obj, off);
    max_diff = md > max_diff ? md : max_diff;
    max_obj = mo > max_obj ? mo : max_obj;
  }
  if ((threadIdx.x & 31) == 0 && compared) {
    atomicAdd(&out->combos, compared);
    atomicAdd(&out->differing, differing);
    atomicAdd(&out->shifted, shifted);
    atomicAdd(&out->total_trades, total);
    atomicMax(&out->max_trade_diff, max_diff);
    atomicMax(&out->max_objective_diff_bits, max_obj);
  }
}

__global__ void __launch_bounds__(kBlock)
    topk_reduce_kernel(const Candidate* in, unsigned long long n, int k, Candidate* out) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * kBlock + threadIdx.x;
  block_topk(i < n ? in[i] : Candidate{0.0, kEmptyId}, k,
             out + static_cast<size_t>(blockIdx.x) * k);
}

unsigned blocks_for(unsigned long long threads) {
  return static_cast<unsigned>((threads + kBlock - 1) / kBlock);
}

}  // namespace

// Calls f(family, cross, vol, plain) with each as a compile-time constant. bollinger has only
// the per-bar evaluator (cuda_backend.cu's kinds_of says why): its change-driven
// instantiations are never compiled.
template <typename F>
void dispatch_kind(const KernelKind& kind, F&& f) {
  dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
    if constexpr (decltype(fam)::value == kBollinger) {
      f(fam, cross, vol, std::true_type{});
    } else if (kind.plain) {
      f(fam, cross, vol, std::true_type{});
    } else {
      f(fam, cross, vol, std::false_type{});
    }
  });
}

void launch_sweep_fused(const KernelKind& kind, const GridTables& g, const BarData& bars,
                        long long first, long long last, unsigned long long n_ids,
                        const RankParams& rp, int k, Candidate* block_out, Counters* counters,
                        unsigned long long* fallback, unsigned int fallback_cap) {
  dispatch_kind(kind, [&](auto fam, auto cross, auto vol, auto plain) {
    auto kernel = sweep_fused_kernel<decltype(fam)::value, decltype(cross)::value,
                                     decltype(vol)::value, decltype(plain)::value>;
    // As many blocks as fit at once (persistent), never more than there are groups.
    int per_sm = 0, device = 0, sms = 0;
    WFOD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0));
    WFOD_CUDA_CHECK(cudaGetDevice(&device));
    WFOD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const unsigned long long resident = static_cast<unsigned long long>(std::max(1, per_sm * sms));
    const unsigned grid =
        static_cast<unsigned>(std::min<unsigned long long>(blocks_for(n_ids), resident));
    kernel<<<grid, kBlock>>>(g, bars, first, last, n_ids, rp, k, block_out, counters, fallback,
                             fallback_cap);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_chunk_summaries(const std::vector<KernelKind>& kinds, bool per_bar, const GridTables& g,
                            const BarData& bars, long long first, long long window,
                            unsigned long long n, const unsigned long long* ids,
                            unsigned long long id0, int chunks, Summary* parts, Summary* out,
                            bool join_all) {
  // join_all's one Summary per id: a join thread takes at most two chunks (canonical_chunks).
  if (join_all && chunks > 2 * kBlock)
    throw std::invalid_argument("launch_chunk_summaries: " + std::to_string(chunks) +
                                " chunks joined into one Summary per id; at most " +
                                std::to_string(2 * kBlock));
  const unsigned blocks = blocks_for(n * static_cast<unsigned long long>(chunks));
  for (KernelKind kind : kinds) {
    kind.plain = kind.plain || per_bar;
    dispatch_kind(kind, [&](auto fam, auto cross, auto vol, auto plain) {
      chunk_parts_kernel<decltype(fam)::value, decltype(cross)::value, decltype(vol)::value,
                         decltype(plain)::value>
          <<<blocks, kBlock>>>(g, bars, first, window, n, ids, id0, chunks, parts);
    });
    WFOD_CUDA_CHECK_LAUNCH();
  }
  // join_all past kBlock chunks: each thread first joins two of them.
  if (join_all && chunks > kBlock)
    join_chunks_kernel<2><<<blocks_for(n * static_cast<unsigned long long>(chunks / 2)), kBlock>>>(
        parts, n, chunks, out);
  else
    join_chunks_kernel<1><<<blocks, kBlock>>>(parts, n, chunks, out);
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_window_returns(const std::vector<KernelKind>& kinds, const GridTables& g,
                           const BarData& bars, unsigned long long id, long long first,
                           long long last, double* out) {
  const unsigned long long tiles =
      static_cast<unsigned long long>((last - first + kTile - 1) / kTile);
  for (const KernelKind& kind : kinds) {
    dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
      window_returns_kernel<decltype(fam)::value, decltype(cross)::value, decltype(vol)::value>
          <<<blocks_for(tiles), kBlock>>>(g, bars, id, first, last, out);
    });
    WFOD_CUDA_CHECK_LAUNCH();
  }
}

void launch_fast_parity(const KernelKind& kind, const GridTables& g, const BarData& bars,
                        long long first, long long last, unsigned long long n_ids,
                        const RankParams& rp, FastParityCounters* out) {
  dispatch_kind(kind, [&](auto fam, auto cross, auto vol, auto) {
    fast_parity_kernel<decltype(fam)::value, decltype(cross)::value, decltype(vol)::value>
        <<<blocks_for(n_ids), kBlock>>>(g, bars, first, last, n_ids, rp, out);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_finalize_rank(const GridTables& g, const Summary* parts, int parts_per_combo,
                          unsigned long long n_ids, const RankParams& rp, int k,
                          Candidate* block_out, Counters* counters, unsigned long long* fallback,
                          unsigned int fallback_cap, cudaStream_t stream) {
  finalize_rank_kernel<<<blocks_for(n_ids), kBlock, 0, stream>>>(
      g, parts, parts_per_combo, n_ids, rp, k, block_out, counters, fallback, fallback_cap);
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_topk_reduce(const Candidate* in, unsigned long long n, int k, Candidate* out,
                        cudaStream_t stream) {
  topk_reduce_kernel<<<blocks_for(n), kBlock, 0, stream>>>(in, n, k, out);
  WFOD_CUDA_CHECK_LAUNCH();
}

}  // namespace wfod::cuda
