// The stop evaluator's kernels (stop_kernels.cuh). Built with -fmad=false
// (kernels/CMakeLists.txt): the stop levels and the Summary's arithmetic round as the host's.
#include "cuda_check.cuh"
#include "rank_device.cuh"
#include "stop_kernels.cuh"

namespace wfod::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(unsigned long long threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kThreads)
    stop_summaries_kernel(GridTables g, StopTables st, BarData bars, long long first,
                          long long last, unsigned long long n,
                          const unsigned long long* __restrict__ ids, unsigned long long id0,
                          Summary* out, uint8_t* valid) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const StopCombo sc = decode_stop_combo(g, st, ids ? ids[i] : id0 + i);
  if (!is_kind<Family, Cross>(sc.combo)) return;
  valid[i] = sc.valid ? 1 : 0;
  out[i] = sc.valid ? stop_range_summary<Family, Cross, Vol>(sc, st, bars, first, last) : Summary{};
}

template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kThreads)
    stop_blocks_kernel(GridTables g, StopTables st, BarData bars,
                       const long long* __restrict__ edges, int blocks, unsigned long long id0,
                       unsigned long long count, Summary* out) {
  const unsigned long long gid =
      static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (gid >= count * static_cast<unsigned long long>(blocks)) return;
  // Neighbouring threads hold neighbouring combos of one block (their bar loads coalesce).
  const int b = static_cast<int>(gid / count);
  const unsigned long long i = gid % count;
  const StopCombo sc = decode_stop_combo(g, st, id0 + i);
  if (!is_kind<Family, Cross>(sc.combo)) return;
  out[i * blocks + b] =
      sc.valid ? stop_range_summary<Family, Cross, Vol>(sc, st, bars, edges[b], edges[b + 1])
               : Summary{};
}

}  // namespace

void launch_stop_summaries(const std::vector<KernelKind>& kinds, const GridTables& g,
                           const StopTables& st, const BarData& bars, long long first,
                           long long last, unsigned long long n, const unsigned long long* ids,
                           unsigned long long id0, Summary* out, uint8_t* valid) {
  if (n == 0) return;
  for (const KernelKind& kind : kinds) {
    dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
      constexpr int F = decltype(fam)::value;
      constexpr bool C = decltype(cross)::value, V = decltype(vol)::value;
      stop_summaries_kernel<F, C, V>
          <<<blocks_for(n), kThreads>>>(g, st, bars, first, last, n, ids, id0, out, valid);
    });
    WFOD_CUDA_CHECK_LAUNCH();
  }
  WFOD_CUDA_CHECK(cudaDeviceSynchronize());
}

void launch_stop_block_summaries(const std::vector<KernelKind>& kinds, const GridTables& g,
                                 const StopTables& st, const BarData& bars, const long long* edges,
                                 int blocks, unsigned long long id0, unsigned long long count,
                                 Summary* out) {
  if (count == 0) return;
  const unsigned long long threads = count * static_cast<unsigned long long>(blocks);
  for (const KernelKind& kind : kinds) {
    dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
      constexpr int F = decltype(fam)::value;
      constexpr bool C = decltype(cross)::value, V = decltype(vol)::value;
      stop_blocks_kernel<F, C, V>
          <<<blocks_for(threads), kThreads>>>(g, st, bars, edges, blocks, id0, count, out);
    });
    WFOD_CUDA_CHECK_LAUNCH();
  }
  WFOD_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace wfod::cuda
