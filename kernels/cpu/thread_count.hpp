// Thread-count resolution shared by the CPU backend's parallel stages.
#pragma once

#include <algorithm>
#include <thread>

namespace wfod::cpu {
// 0 means all cores.
inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency()) > 0
             ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
             : 1;
}
}  // namespace wfod::cpu
