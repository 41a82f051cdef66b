// WFOD_CUDA_FAULT: real CUDA errors on demand (see fault_injection.cuh).
#include <cstdlib>
#include <mutex>
#include <string>

#include "cuda_check.cuh"
#include "fault_injection.cuh"
#include "wfod/env_knobs.hpp"

namespace wfod::cuda {
namespace {

__global__ void never_launched() {}

struct FaultPlan {
  enum Kind { none, alloc, kernel } kind = none;
  long long from = 1;
};

FaultPlan parse(const std::string& s) {
  FaultPlan p;
  const std::string what = s.substr(0, s.find(':'));
  if (what == "alloc") p.kind = FaultPlan::alloc;
  if (what == "kernel") p.kind = FaultPlan::kernel;
  if (s.find(':') != std::string::npos) p.from = std::atoll(s.c_str() + s.find(':') + 1);
  return p;
}

}  // namespace

void maybe_inject_fault() {
  // The variable is read on every call and calls are counted from when it took its value,
  // so a test can set it, provoke the fault, and unset it within one process.
  static std::mutex mutex;
  static std::string value;
  static long long calls = 0;
  const char* env = wfod::env_value(wfod::Env::cuda_fault);
  FaultPlan plan;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const std::string now = env ? env : "";
    if (now != value) {
      value = now;
      calls = 0;
    }
    if (now.empty()) return;
    plan = parse(now);
    if (plan.kind == FaultPlan::none || ++calls < plan.from) return;
  }
  if (plan.kind == FaultPlan::alloc) {
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, size_t{1} << 62);
    (void)
        cudaGetLastError();  // a failed allocation sets the last error: later calls must not see it
    if (e == cudaSuccess) cudaFree(p);
    check(e == cudaSuccess ? cudaErrorMemoryAllocation : e,
          "cudaMalloc(2^62 bytes) [WFOD_CUDA_FAULT]", __func__, __FILE__, __LINE__);
  } else {
    never_launched<<<0, 1>>>();  // an invalid configuration: the launch fails
    WFOD_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace wfod::cuda
