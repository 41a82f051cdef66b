// The device state of robust selection between calls (selection_pipeline.cu, selection_cscv.cu):
// grow-only buffers, the side stream that copies scores back while the CSCV kernels run, and
// the events that time those kernels; and the small tools both files use.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "cuda_check.cuh"
#include "cuda_handles.cuh"
#include "device_buffer.cuh"
#include "device_memory.cuh"
#include "pinned_buffer.cuh"
#include "wfod/summary.hpp"

namespace wfod::cuda {

// The first `count` elements of `buf` on the host, copied on `stream` (the caller knows the
// data is complete: nothing orders this copy after the default stream's work).
template <typename T>
std::vector<T> download_on(const DeviceBuffer<T>& buf, size_t count, cudaStream_t stream) {
  std::vector<T> host(count);
  if (count) {
    WFOD_CUDA_CHECK(cudaMemcpyAsync(host.data(), buf.data(), count * sizeof(T),
                                    cudaMemcpyDeviceToHost, stream));
    WFOD_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return host;
}

inline double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

class SelectionWorkspace {
 public:
  // Block summaries and window scores.
  DeviceBuffer<Summary> blocks;
  DeviceBuffer<long long> edges;
  DeviceBuffer<double> objective, sharpe, scores;
  DeviceBuffer<uint8_t> state, flags;
  // CSCV: participants (ids, in id order), their parts (order), lean columns, partials.
  DeviceBuffer<uint32_t> iota, ids, binom, masks, order, counts;
  DeviceBuffer<uint8_t> take, unchecked, scratch;
  DeviceBuffer<double> lean_d;
  DeviceBuffer<int32_t> lean_closed, lean_held;
  DeviceBuffer<int8_t> lean_flags;
  DeviceBuffer<unsigned long long> under, ties;
  DeviceBuffer<uint32_t> part_best, part_under, part_ties;
  DeviceBuffer<int32_t> winner;
  DeviceBuffer<double> is_obj, oos_obj;
  DeviceBuffer<float> store;  // pass A's screens, splits rows of cscv_store_stride floats
  PinnedBuffer<unsigned char> host_scores;  // the score arrays' staging on the host
  PinnedBuffer<Summary> host_summaries;     // window_summaries' staging
  GpuStream side;                           // copies that overlap the CSCV kernels
  GpuEvent walk_start, walk_end, count_start, count_end;
};

}  // namespace wfod::cuda
