// Device memory queries the backend's optional buffers size themselves by: the free memory
// now, and the cap on a decision table (LevelBits, SignalBits) that is only a speed-up.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "tuning.cuh"

namespace wfod::cuda {

inline size_t free_device_bytes() {
  size_t free = 0, total = 0;
  WFOD_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

// Combos per chunk of a block-Summary pass of `total` combos (`per_combo` bytes of Summaries
// each) staged on the device and copied to the host, which takes the whole result anyway:
// half the free device memory, counting the `held` bytes the staging buffer already has (it
// is reused), and at most 2 GiB.
inline uint64_t staged_summary_chunk(uint64_t total, size_t per_combo, size_t held) {
  const size_t budget = std::min<size_t>(free_device_bytes() / 2 + held, size_t{2} << 30);
  return std::max<uint64_t>(1, std::min<uint64_t>(total, budget / per_combo));
}

// The largest decision table built, in bytes: the tuning's cap (1 GiB), and its share (a
// quarter) of the free device memory counting the `held` bytes the table's own buffers hold now
// (they are reused or released). A table is a speed-up (without it the kernels decide from the
// indicator rows), so it must not take the memory a sweep's own buffers need on a smaller GPU.
inline size_t decision_table_cap(size_t held) {
  const CudaTuning& tune = cuda_tuning();
  return std::min(tune.table_max_bytes, (free_device_bytes() + held) / tune.table_free_divisor);
}

}  // namespace wfod::cuda
