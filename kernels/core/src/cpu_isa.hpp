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
