// Test hook for the daemon's backend fallback to cpu: WFOD_CUDA_FAULT=alloc[:N] or
// kernel[:N] makes the N-th (default 1st) and every later sweep, evaluate or stream advance
// of this process provoke a real CUDA error of that kind (an impossible allocation; a launch
// with an invalid configuration), which surfaces as CudaError like any device failure.
#pragma once

namespace wfod::cuda {

void maybe_inject_fault();

}  // namespace wfod::cuda
