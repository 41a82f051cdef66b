// detail::device_allocation_count (src/device_allocations.hpp): the cuda backend's count of its
// device allocations, reached from plain C++ tests. Beside the registry for the reason
// prefix_tables_probe.cpp gives: only the umbrella target knows whether the backend is built.
#include <optional>
#include <string>

#include "src/device_allocations.hpp"
#ifdef WFOD_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif

namespace wfod::detail {

std::optional<DeviceAllocationCount> device_allocation_count(std::string* why) {
#ifdef WFOD_HAVE_CUDA
  if (!cuda::device_available(why)) return std::nullopt;
  const cuda::DeviceAllocations a = cuda::device_allocations();
  return DeviceAllocationCount{a.now, a.peak};
#else
  if (why) *why = "cuda backend not built (configure with -DWFOD_CUDA=ON)";
  return std::nullopt;
#endif
}

void reset_device_allocation_peak() {
#ifdef WFOD_HAVE_CUDA
  cuda::reset_device_allocation_peak();
#endif
}

}  // namespace wfod::detail
