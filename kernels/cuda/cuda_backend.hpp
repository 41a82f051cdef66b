// The CUDA backend (SPEC §9-exact sweeps on the GPU): host entry points. Built only when
// WFOD_CUDA is on; make_backend("cuda"|"auto") reaches it through these functions.
#pragma once

#include <memory>
#include <string>

#include "wfod/backend.hpp"

namespace wfod::cuda {

// True when a CUDA device can be used; otherwise *why says what is missing.
bool device_available(std::string* why);
std::unique_ptr<Backend> make_cuda_backend();

// Device-event timings of the last sweep on this thread (milliseconds), for benchmarks.
struct SweepTiming {
  double indicators_ms = 0;  // indicator rows on the device
  double evaluate_ms = 0;    // window evaluation + block top-K
  double select_ms = 0;      // top-K reduction passes + re-evaluation of the winners
  int chunks_per_combo = 1;  // layout chosen: 1 = combo-parallel, >1 = time-chunked
  std::string device;
};
SweepTiming last_sweep_timing();

}  // namespace wfod::cuda
