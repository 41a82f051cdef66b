// Which GPUs a build's CUDA code can run on: the architectures compiled in
// (WFOD_CUDA_ARCHITECTURES) and the rule that matches a device's compute capability against
// them. Plain C++, no CUDA: the cuda backend asks it at start, the tests run everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wfod {

// A device's compute capability, e.g. 8.6 for an RTX 3090, 9.0 for an H100/H200.
struct ComputeCapability {
  int major = 0;
  int minor = 0;
  int number() const { return major * 10 + minor; }  // 86, 90: CMake's and nvcc's numbering
};

// What a build carries: machine code (SASS, sm_NN) for some architectures and PTX
// (compute_NN), which the driver compiles at load time for the device in front of it.
struct CudaArchs {
  std::vector<int> sass;  // ascending, e.g. {75, 80, 86, 89, 90}
  std::vector<int> ptx;   // ascending, e.g. {90}
  bool empty() const { return sass.empty() && ptx.empty(); }
};

// Parses CMake's CUDA_ARCHITECTURES notation, ',' or ';' separated: "NN-real" is SASS,
// "NN-virtual" PTX, a bare "NN" both. Throws std::invalid_argument naming a bad entry.
CudaArchs parse_cuda_archs(std::string_view list);

// The architectures this binary was built with; empty without the cuda backend.
const CudaArchs& compiled_cuda_archs();

// "sm_75 sm_80 sm_86 sm_89 sm_90 + compute_90 PTX" (or "no CUDA code").
std::string describe(const CudaArchs&);

// How a device would run this build's code, or why it cannot.
struct CudaFit {
  bool ok = false;
  // ok: what runs, "sm_86" (machine code) or "compute_90 PTX" (compiled by the driver when
  // the module loads: slower start, same results).
  std::string code;
  std::string why;  // !ok: "this build has sm_75 ... + compute_90 PTX: cc 6.1 is older ..."
};

// The CUDA compatibility rule: SASS for sm_XY runs on a device of the same major version X
// with a minor version >= Y (8.6 code on an 8.9 card, never 8.6 on 9.0 or 9.0 on 8.6); PTX
// for compute_XY is compiled by the driver for any device of capability >= X.Y. SASS is
// preferred (no load-time compilation): the newest that fits, else the newest PTX that fits.
CudaFit can_run(ComputeCapability cc, const CudaArchs& archs);

}  // namespace wfod
