// The split sweep: the thread-per-combo sweep's work in two kernels per batch of combo ids.
// The decisions kernel runs TileDecider alone and writes each combo's change bars as events;
// with no accounting state its registers let twice the threads of the fused kernel fit, and
// its gathered indicator loads are what those threads wait on. The accounting kernel feeds the
// events to StretchAccount, ranks the Summary and keeps each block's top k, as the fused kernel
// does; a combo with more change bars than the events buffer holds for it is evaluated whole
// there (evaluate_stretches). Both evaluate with the very code of the fused kernel.
#include <algorithm>

#include "cuda_check.cuh"
#include "rank_device.cuh"
#include "stretch_evaluator.cuh"
#include "sweep_block.cuh"
#include "sweep_kernels.cuh"
#include "sweep_split.cuh"

namespace wfod::cuda {
namespace {

// Blocks per SM of the decisions kernel (a benchmark knob, -D...): 4, at most 64 registers
// (bench/results/h200-2026-12-04-s23c: C 57.5 ms against 66.1 at 6 blocks, whose 40 registers
// spill; A alike).
#ifndef WFOD_DECIDE_BLOCKS
#define WFOD_DECIDE_BLOCKS 4
#endif
// The decisions kernel's bars of loads in flight on the signal-bit path without a vol filter:
// 16 (-s24e: A 3.62 -> 3.31 ms against the other kernels' 8; 4: 4.54; C unchanged). Cross
// entries keep 8: at 16 their kernel spills (80/116 bytes) and no benchmark has measured it.
#ifndef WFOD_DECIDE_BITS_STEP
#define WFOD_DECIDE_BITS_STEP 16
#endif
template <bool Cross>
inline constexpr int kDecideBitsStep = Cross ? kBitsStepPlain : WFOD_DECIDE_BITS_STEP;
// Blocks per SM of the accounting kernel: the fused kernel's, since its fallback is that
// kernel's whole evaluation (-s23d: 4 blocks spill, A 4.35 ms against 3.80).
#ifndef WFOD_ACCOUNT_BLOCKS
#define WFOD_ACCOUNT_BLOCKS 3
#endif

// An event: bar t's held position changes; (t - first) << 2 | (b + 1), b in {-1, 0, 1} the
// position held from bar t on. A head: min(changes, cap + 1) << 2 | (p + 1), p the position
// held in bar first - 1.
__device__ __forceinline__ uint32_t event_word(long long offset, int held) {
  return static_cast<uint32_t>(offset) << 2 | static_cast<uint32_t>(held + 1);
}

// Event e of the batch's combo i: each warp's events in one run of cap rows of 32 lanes, so
// the lanes of a warp write and read side by side when they change at once, and a warp's
// events sit together however large the batch.
__device__ __forceinline__ size_t event_slot(unsigned int i, unsigned int e, unsigned int cap) {
  return (static_cast<size_t>(i / 32) * cap + e) * 32 + i % 32;
}

template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kBlock, WFOD_DECIDE_BLOCKS)
    decide_events_kernel(GridTables g, BarData bars, long long first, long long last,
                         unsigned long long n_ids, unsigned long long q0, unsigned int batch,
                         unsigned int cap, uint32_t* __restrict__ events,
                         uint32_t* __restrict__ heads) {
  const unsigned int i = blockIdx.x * kBlock + threadIdx.x;
  if (i >= batch) return;
  const DeviceCombo c = decode_combo(g, fused_combo_id<Family>(g, q0 + i, n_ids));
  if (!is_kind<Family, Cross>(c) || !c.valid) return;
  const double p2 = position_before<Family, Cross, Vol>(c, bars, first - 2);
  const double p1 = next_bar<Family, Cross, Vol>(c, bars, first - 1, p2);
  TileDecider<Family, Cross, Vol, kDecideBitsStep<Cross>> decider(c, bars, first, last, p2, p1,
                                                                  bars.fast != 0);
  unsigned int changes = 0;
  uint32_t* out = events + event_slot(i, 0, cap);
  for (long long t0 = first, end; t0 < last && changes <= cap; t0 = end) {
    end = tile_end(t0, last);
    const int count = static_cast<int>(end - t0);
    const TileDecisions tile = decider.next(t0, count);
    unsigned int mask = tile.change_mask;
    while (mask) {
      const int j = __ffs(mask) - 1;
      mask &= mask - 1;
      if (changes < cap) {
        const int held = static_cast<int>((tile.held_long >> j) & 1u) -
                         static_cast<int>((tile.held_short >> j) & 1u);
        out[static_cast<size_t>(changes) * 32] = event_word(t0 + j - first, held);
      }
      ++changes;
    }
  }
  // Past cap the decisions stop: the accounting kernel evaluates such a combo whole.
  heads[i] = event_word(changes > cap ? cap + 1 : changes, static_cast<int>(p2));
}

// One combo's Summary from its events (or whole, when they overflowed).
template <int Family, bool Cross, bool Vol>
__device__ Summary account_events(const DeviceCombo& c, const BarData& bars, long long first,
                                  long long last, unsigned int i, unsigned int cap,
                                  const uint32_t* __restrict__ events,
                                  const uint32_t* __restrict__ heads) {
  const uint32_t head = heads[i];
  const unsigned int changes = head >> 2;
  if (changes > cap) return evaluate_stretches<Family, Cross, Vol>(c, bars, first, last);
  const int head_pos = static_cast<int>(head & 3u) - 1;
  StretchAccount account(bars, first);
  double a = head_pos;
  for (unsigned int e = 0; e < changes; ++e) {
    const uint32_t ev = events[event_slot(i, e, cap)];
    const double b = static_cast<double>(static_cast<int>(ev & 3u) - 1);
    account.change_bar(first + static_cast<long long>(ev >> 2), a, b);
    a = b;
  }
  return account.finish(first, last, head_pos, a);
}

// The fused kernel's ranking of one batch: block b's top k at block_out[(q0 / kBlock + b) * k].
template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kBlock, WFOD_ACCOUNT_BLOCKS)
    account_events_kernel(GridTables g, BarData bars, long long first, long long last,
                          unsigned long long n_ids, unsigned long long q0, unsigned int batch,
                          unsigned int cap, const uint32_t* __restrict__ events,
                          const uint32_t* __restrict__ heads, RankParams rp, int k,
                          Candidate* block_out, Counters* counters, unsigned long long* fallback,
                          unsigned int fallback_cap) {
  const unsigned int i = blockIdx.x * kBlock + threadIdx.x;
  rank_sweep_block<Family, Cross>(g, q0 + i, n_ids, i < batch, rp, k,
                                  block_out + (q0 / kBlock + blockIdx.x) * static_cast<size_t>(k),
                                  counters, fallback, fallback_cap, [&](const DeviceCombo& c) {
                                    return account_events<Family, Cross, Vol>(
                                        c, bars, first, last, i, cap, events, heads);
                                  });
}

}  // namespace

bool split_sweep_applies(const KernelKind& kind, long long window) {
  // bollinger has only the per-bar evaluator; an event's bar offset has 30 bits.
  return !kind.plain && kind.family != kBollinger && window < (1ll << 30);
}

void launch_sweep_split(const KernelKind& kind, const GridTables& g, const BarData& bars,
                        long long first, long long last, unsigned long long n_ids,
                        const RankParams& rp, int k, Candidate* block_out, Counters* counters,
                        unsigned long long* fallback, unsigned int fallback_cap,
                        const SplitBuffers& buf) {
  dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
    constexpr int F = decltype(fam)::value;
    if constexpr (F != kBollinger) {
      constexpr bool C = decltype(cross)::value, V = decltype(vol)::value;
      for (unsigned long long q0 = 0; q0 < n_ids; q0 += buf.batch) {
        const auto batch =
            static_cast<unsigned int>(std::min<unsigned long long>(buf.batch, n_ids - q0));
        const unsigned blocks = (batch + kBlock - 1) / kBlock;
        decide_events_kernel<F, C, V><<<blocks, kBlock>>>(g, bars, first, last, n_ids, q0, batch,
                                                          buf.cap, buf.events, buf.heads);
        WFOD_CUDA_CHECK_LAUNCH();
        account_events_kernel<F, C, V>
            <<<blocks, kBlock>>>(g, bars, first, last, n_ids, q0, batch, buf.cap, buf.events,
                                 buf.heads, rp, k, block_out, counters, fallback, fallback_cap);
        WFOD_CUDA_CHECK_LAUNCH();
      }
    }
  });
}

}  // namespace wfod::cuda
