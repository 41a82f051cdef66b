// The CUDA backend (SPEC §9-exact sweeps on the GPU): host entry points. Built only when
// WFOD_CUDA is on; make_backend("cuda"|"auto") reaches it through these functions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "wfod/backend.hpp"
#include "wfod/env_knobs.hpp"

namespace wfod::cuda {

// The device the backend would use (the current one, 0 unless CUDA_VISIBLE_DEVICES says
// otherwise) and whether this binary can run on it: the device's compute capability against
// the architectures compiled in (wfod/cuda_arch.hpp), then a load of one of our kernels,
// so a GPU the build has no code for is refused here, never found out by failing launches.
struct DeviceCheck {
  bool present = false;  // a driver and a device answered
  bool usable = false;   // ... and this build's code loads on it
  // usable: `device="NVIDIA H200" cc=9.0 code=sm_90`; otherwise why not, e.g.
  // `device="Tesla P4" cc=6.1, this build has sm_75 ... + compute_90 PTX: ...` or
  // `no CUDA device present`.
  std::string text;
};
DeviceCheck check_device();

// Tests only: a compute capability "M.m" that check_device() uses instead of the device's,
// to see a refusal on a GPU the build supports. Named in the text when it is set.
inline constexpr const char* kTestComputeCapabilityEnv = env_name(Env::test_cuda_cc);

// check_device().usable; otherwise *why says what is missing.
bool device_available(std::string* why);

// Whether the device computes `work` for `family` (SPEC §5): the table behind the backend's
// capability query (Backend::supports). What it does not compute is never computed wrong:
// the backend refuses it (wfod::Unsupported naming the family and the backend); "auto" (the
// registry's routing backend) runs it on cpu, whose results then say backend "cpu".
bool supports(Family family, Work work);
// `host` is the backend the registry (make_backend) hands over, the cpu backend: it computes
// positions and the combos whose equity reaches zero (their literal drawdown). The cuda
// target does not link the cpu backend; it only calls `host` through the Backend interface.
std::unique_ptr<Backend> make_cuda_backend(std::unique_ptr<Backend> host);

// Device-event timings of the last sweep on this thread (milliseconds), for benchmarks.
struct SweepTiming {
  double indicators_ms = 0;  // indicator rows on the device
  double evaluate_ms = 0;    // window evaluation + block top-K
  double select_ms = 0;      // top-K reduction passes + the candidates' canonical re-score
  int chunks_per_combo = 1;  // layout chosen: 1 = combo-parallel, >1 = time-chunked
  // Exact precision: device screens run (1 unless the first was too short to settle the
  // top K; 0 where every combo was scored in the canonical order: a small grid, or the
  // selection's scores) and candidates re-scored in that order (docs/spec-notes.md item 13).
  int screen_passes = 1;
  size_t rescored = 0;
  std::string device;
};
SweepTiming last_sweep_timing();

// Tests only: the bytes every DeviceBuffer of this process holds now and the most they held
// since the last reset_device_allocation_peak() (bytes asked of cudaMalloc): what the test of
// the size query of sweeps (Backend::sweep_memory's device_bytes) holds the query to.
struct DeviceAllocations {
  uint64_t now = 0, peak = 0;
};
DeviceAllocations device_allocations();
void reset_device_allocation_peak();

}  // namespace wfod::cuda
