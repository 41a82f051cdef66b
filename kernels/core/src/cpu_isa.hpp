// The vector instruction sets the CPU kernels are built for (the lane kernel, the fast CSCV
// walk: one object file per set), and which one this CPU runs. WFOD_CPU_KERNEL=generic|avx2|
// avx512 forces a set the CPU supports (tests run each variant).
#pragma once

namespace wfod {

enum class CpuIsa { generic, avx2, avx512 };

const char* to_string(CpuIsa);
bool cpu_supports(CpuIsa);
// The forced set when WFOD_CPU_KERNEL names one this CPU supports, else the widest supported.
// Read afresh on every call: each kernel family keeps its own choice.
CpuIsa preferred_cpu_isa();

}  // namespace wfod

// M(isa) for each variant namespace this build compiles (avx512, avx2, generic): declaring a
// kernel's variants in its dispatcher. Sanitizer and fuzz builds compile generic only
// (WFOD_GENERIC_KERNELS_ONLY, kernels/CMakeLists.txt).
#if defined(WFOD_GENERIC_KERNELS_ONLY)
#define WFOD_FOR_EACH_CPU_VARIANT(M) M(generic)
#else
#define WFOD_FOR_EACH_CPU_VARIANT(M) M(avx512) M(avx2) M(generic)
#endif
