// Device memory queries the backend's optional buffers size themselves by: the free memory
// now, and the cap on a decision table (LevelBits, SignalBits) that is only a speed-up.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "cuda_check.cuh"
#include "tuning.cuh"

namespace wfod::cuda {

inline size_t free_device_bytes() {
  size_t free = 0, total = 0;
  WFOD_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
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
