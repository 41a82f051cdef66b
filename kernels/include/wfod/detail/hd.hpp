// WFOD_HD marks functions shared by host code and CUDA device code (SPEC math that both
// backends must compute identically, written once).
#pragma once

#if defined(__CUDACC__)
#define WFOD_HD __host__ __device__
#else
#define WFOD_HD
#endif

namespace wfod::detail {
template <typename T>
WFOD_HD inline T hd_max(T a, T b) {
  return a < b ? b : a;
}
template <typename T>
WFOD_HD inline T hd_min(T a, T b) {
  return b < a ? b : a;
}
}  // namespace wfod::detail
