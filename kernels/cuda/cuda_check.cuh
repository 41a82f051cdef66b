// Every CUDA call and launch goes through WFOD_CUDA_CHECK: a failure becomes a CudaError
// naming the expression, function, file and line (STYLE habit 7), never a crash.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace wfod::cuda {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check(cudaError_t e, const char* expr, const char* func, const char* file, int line) {
  if (e == cudaSuccess) return;
  throw CudaError(std::string("CUDA error: ") + cudaGetErrorString(e) + " in " + expr + " (" +
                  func + ", " + file + ":" + std::to_string(line) + ")");
}

}  // namespace wfod::cuda

#define WFOD_CUDA_CHECK(expr) ::wfod::cuda::check((expr), #expr, __func__, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors now, execution errors at the next sync.
#define WFOD_CUDA_CHECK_LAUNCH() WFOD_CUDA_CHECK(cudaGetLastError())
