// The cuda backend's count of its device allocations (cuda::device_allocations), reached from
// plain C++ tests through kernels/registry/device_allocations_probe.cpp, which alone knows
// whether this build has the cuda backend: the test of the size query of sweeps holds
// Backend::sweep_memory's device_bytes to it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wfod::detail {

struct DeviceAllocationCount {
  uint64_t now = 0;   // bytes every DeviceBuffer holds now
  uint64_t peak = 0;  // the most they held since the last reset
};

// The count; nullopt (and *why) where the cuda backend is not built or no device is usable.
std::optional<DeviceAllocationCount> device_allocation_count(std::string* why);
// Starts a new peak at what is held now (no-op without the cuda backend).
void reset_device_allocation_peak();

}  // namespace wfod::detail
