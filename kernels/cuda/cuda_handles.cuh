// Owning CUDA handles (RAII) the backend files share: an event for device-side timings and a
// stream that does not wait for the legacy default stream's work.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"

namespace wfod::cuda {

class GpuEvent {
 public:
  GpuEvent() { WFOD_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~GpuEvent() { cudaEventDestroy(e_); }
  GpuEvent(const GpuEvent&) = delete;
  GpuEvent& operator=(const GpuEvent&) = delete;
  void record(cudaStream_t stream = nullptr) { WFOD_CUDA_CHECK(cudaEventRecord(e_, stream)); }
  // Device milliseconds from `start` to this event; waits for this event.
  float since(const GpuEvent& start) const {
    WFOD_CUDA_CHECK(cudaEventSynchronize(e_));
    float ms = 0;
    WFOD_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_{};
};

class GpuStream {
 public:
  GpuStream() { WFOD_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~GpuStream() { cudaStreamDestroy(s_); }
  GpuStream(const GpuStream&) = delete;
  GpuStream& operator=(const GpuStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_{};
};

}  // namespace wfod::cuda
