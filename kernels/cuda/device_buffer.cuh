// Owning device allocation (RAII). Sized once per sweep; never allocated in a hot loop.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda_check.cuh"

namespace wfod::cuda {

// Every DeviceBuffer's allocations and releases, in bytes asked (cudaMalloc's own rounding
// aside): the count behind device_allocations() (cuda_backend.hpp), which the test of the
// size query of sweeps holds the query to. Defined in cuda_backend.cu.
void note_device_bytes(long long delta);

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) { resize(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
      capacity_ = std::exchange(o.capacity_, 0);
    }
    return *this;
  }

  void resize(size_t count) { ensure(count); }
  // Grow-only: keeps the allocation when it is already large enough (no cudaMalloc on the
  // hot path once a sweep of this size has run).
  void ensure(size_t count) {
    if (count > capacity_) {
      release();
      WFOD_CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T)));
      capacity_ = count;
      note_device_bytes(static_cast<long long>(count * sizeof(T)));
    }
    size_ = count;
  }
  void upload(const T* host, size_t count) {
    resize(count);
    if (count) WFOD_CUDA_CHECK(cudaMemcpy(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
  std::vector<T> download(size_t count) const {
    std::vector<T> host(count);
    if (count)
      WFOD_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  size_t size() const { return size_; }

 private:
  void release() {
    if (ptr_) {
      cudaFree(ptr_);
      note_device_bytes(-static_cast<long long>(capacity_ * sizeof(T)));
    }
    ptr_ = nullptr;
    size_ = capacity_ = 0;
  }
  T* ptr_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

}  // namespace wfod::cuda
