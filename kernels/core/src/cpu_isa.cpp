// Run-time detection of the vector instruction sets (cpu_isa.hpp).
#include "src/cpu_isa.hpp"

#include <cstdlib>
#include <string_view>

#include "wfod/env_knobs.hpp"

namespace wfod {

const char* to_string(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::avx512:
      return "avx512";
    case CpuIsa::avx2:
      return "avx2";
    case CpuIsa::generic:
      break;
  }
  return "generic";
}

bool cpu_supports(CpuIsa isa) {
#if defined(WFOD_GENERIC_KERNELS_ONLY)
  // This build carries no wider variant (sanitizer and fuzz builds: kernels/CMakeLists.txt).
  return isa == CpuIsa::generic;
#elif defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  switch (isa) {
    case CpuIsa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl");
    case CpuIsa::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case CpuIsa::generic:
      return true;
  }
  return false;
#else
  return isa == CpuIsa::generic;
#endif
}

CpuIsa preferred_cpu_isa() {
  if (const char* forced = env_value(Env::cpu_kernel)) {
    const std::string_view name = forced;
    for (CpuIsa isa : {CpuIsa::generic, CpuIsa::avx2, CpuIsa::avx512})
      if (name == to_string(isa) && cpu_supports(isa)) return isa;
  }
  for (CpuIsa isa : {CpuIsa::avx512, CpuIsa::avx2})
    if (cpu_supports(isa)) return isa;
  return CpuIsa::generic;
}

}  // namespace wfod
