// The split sweep (sweep_split.cu): the thread-per-combo sweep as a decisions kernel writing
// each combo's change bars and an accounting kernel ranking from them, per batch of combo ids.
// The same candidates, counters and fallback list as launch_sweep_fused.
#pragma once

#include <cstdint>

#include "sweep_kernels.cuh"

namespace wfod::cuda {

// Change events are kept per combo up to CudaTuning::event_cap (tuning.cuh) unless
// WFOD_CUDA_EVENT_CAP says otherwise: a combo with more is evaluated whole by the accounting
// kernel.
// The device buffers of one batch: cap events per combo (events[...], sweep_split.cu's
// event_slot) and heads[i].
struct SplitBuffers {
  uint32_t* events;
  uint32_t* heads;
  unsigned int batch;  // combos per batch, a multiple of kBlock
  unsigned int cap;
};

// Combos per batch for n_ids combos and cap events each, within `bytes` of events: all of them
// when they fit, and at least one block's. Each batch is a launch pair whose last wave runs
// part-empty: few large batches (bench/results/h200-2026-12-04-s23d: C 80 ms in batches of
// 128k combos, 50 in batches of 1M).
inline unsigned int split_batch(unsigned long long n_ids, unsigned int cap,
                                unsigned long long bytes) {
  return static_cast<unsigned int>(split_batch_combos(n_ids, cap, bytes, kBlock));
}

// Whether a sweep of this kind over a window of `window` bars can run split.
bool split_sweep_applies(const KernelKind& kind, long long window);

// launch_sweep_fused's contract, in batches of buf.batch ids.
void launch_sweep_split(const KernelKind& kind, const GridTables& g, const BarData& bars,
                        long long first, long long last, unsigned long long n_ids,
                        const RankParams& rp, int k, Candidate* block_out, Counters* counters,
                        unsigned long long* fallback, unsigned int fallback_cap,
                        const SplitBuffers& buf);

}  // namespace wfod::cuda
