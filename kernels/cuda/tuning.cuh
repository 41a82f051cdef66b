// The cuda backend's tuning, as data: every run-time choice the host makes by measurement (when
// a sweep cuts its window into time chunks, when a decision table pays for itself, how big a
// buffer may grow, how many combos a batch takes), one row per GPU architecture, each value
// beside the measurement that set it (as CUB keeps its tuning policies). The kernels'
// compile-time shapes (kBlock = 256 threads a block, 32-bar tiles, the warp's CSCV walk) are
// code, not here. Test and ablation switches that override a value are in wfod/env_knobs.hpp.
//
// A GPU whose architecture has no row takes the newest row at or below it, else the oldest:
// only sm_90 (H100, H200) has been measured. A new row needs the runs named in its comments
// repeated on that GPU (bench/device.sh), with the logs committed.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <span>

#include "cuda_check.cuh"

namespace wfod::cuda {

struct CudaTuning {
  int arch = 0;  // compute capability as major * 10 + minor

  // --- the sweep's layout (cuda_backend.cu) ---
  // A grid takes time chunks when combos x fill < the GPU's resident threads. ma_cross and
  // channel_breakout: 2 (fill at least half the GPU). The level families: 4, since their
  // chunks each scan back three positions for their entry state: on the H200 2 chunks ran
  // slower than a thread per combo (bench/results/h200-2026-12-01-s7: bollinger 100k x 10k
  // 9.0 ms vs 8.2, rsi 102k x 10k 10.1 ms vs 9.5).
  long long chunk_fill_set_or_hold = 2;
  long long chunk_fill_level = 4;
  // At least this many bars a time chunk: gpu_bench B (80 combos x 150k bars) evaluated in
  // 0.208 / 0.177 / 0.271 ms at 256 / 1024 / 4096 chunks (bench/results/h200-2026-12-03-s18d);
  // below it the chunks' backward scans and joins cost more than the bars they split.
  long long min_chunk_bars = 128;

  // --- decision tables (signal_bits.cu, level_bits.cu) ---
  // A set-or-hold signal table is built when at least this many combos share each key on
  // average: fewer, and building it costs about what it saves (set with the tables, H200,
  // bench/results/h200-2026-12-03-s19a..c; grids far from 16 were timed, 16 itself was not
  // bracketed).
  unsigned long long min_signal_sharing = 16;
  // The largest decision table: this many bytes, and 1 / table_free_divisor of the device
  // memory free (a table is only a speed-up: it must not take what a sweep's buffers need).
  // Bounds, not timings: no measured grid's tables came near them.
  size_t table_max_bytes = size_t{1} << 30;
  size_t table_free_divisor = 4;

  // --- the split sweep (sweep_split.cu) ---
  // Change events kept per combo; a combo with more is evaluated whole by the accounting
  // kernel. gpu_bench A: 3.92 ms at 256, 4.09 at 128, 4.19 at 512 (H200,
  // bench/results/h200-2026-12-04-s23a..e).
  unsigned int event_cap = 256;
  // Its events buffer: 1 / event_free_divisor of the free device memory, within these bounds
  // (s23 too: 512 MiB batches ran case C in 13..97 launch pairs, each with a part-empty last
  // wave: 50-80 ms against 57.5).
  size_t event_free_divisor = 4;
  unsigned long long event_buffer_min = 64ull << 20;
  unsigned long long event_buffer_max = 2ull << 30;

  // --- the stop evaluator (stop_sweep.cu) ---
  // Combos per batch: their Summaries staged on the device (~40 MB), small next to its memory
  // and 2^18 threads, about what an H100 holds resident (132 SMs x 2,048). Not timed.
  unsigned long long stop_batch_combos = 1ull << 18;

  // --- streams (cuda_stream.cu) ---
  // A run replays at most C / stream_sub_chunks bars per combo (the head chunk's sub-chunk
  // cache): 1M combos at W = 10k, C/16 -> C/32 with the window and rank kernels split took the
  // advance from 1.10 / 1.46 to 0.93 / 1.33 ms p50 / p99 (stream_bench, H200,
  // bench/RESULTS.md "Streams", 2026-11-29).
  size_t stream_sub_chunks = 32;
  // Bar columns staged per upload while a stream catches up (a bound on the staging buffers
  // and on the host work between uploads; not timed).
  size_t stream_max_batch_bars = 2048;
};

// One row per measured architecture, oldest first.
inline constexpr CudaTuning kCudaTunings[] = {
    CudaTuning{.arch = 90},  // H100 80GB HBM3, H200: every value above
};

// The row for compute capability `major`.`minor`: its own, else the newest measured below it,
// else the oldest.
inline const CudaTuning& cuda_tuning_for(int major, int minor) {
  const int arch = major * 10 + minor;
  const CudaTuning* pick = &kCudaTunings[0];
  for (const CudaTuning& row : kCudaTunings)
    if (row.arch <= arch) pick = &row;
  return *pick;
}

// The current device's row (asked once per process: a process uses one device).
inline const CudaTuning& cuda_tuning() {
  static const CudaTuning& row = []() -> const CudaTuning& {
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
      return kCudaTunings[0];
    }
    return cuda_tuning_for(prop.major, prop.minor);
  }();
  return row;
}

}  // namespace wfod::cuda
