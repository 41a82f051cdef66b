// Run-time choice of the CPU kernel variant: the widest instruction set this CPU supports.
#include "lane_kernel.hpp"

#include <cstdlib>
#include <string_view>

namespace wfod::cpu {

#define WFOD_DECLARE_VARIANT(isa)                                                            \
  namespace isa {                                                                            \
  void run_lanes(Family, bool, bool, const BarTables&, const double*, const LaneInput*, int, \
                 const LaneRange&, Summary*);                                                \
  }
WFOD_DECLARE_VARIANT(avx512)
WFOD_DECLARE_VARIANT(avx2)
WFOD_DECLARE_VARIANT(generic)
#undef WFOD_DECLARE_VARIANT

namespace {
using RunLanes = void (*)(Family, bool, bool, const BarTables&, const double*, const LaneInput*,
                          int, const LaneRange&, Summary*);

struct Variant {
  RunLanes run;
  const char* name;
};

Variant pick() {
  // WFOD_CPU_KERNEL=generic|avx2|avx512 forces a variant (tests run parity on each one).
  if (const char* forced = std::getenv("WFOD_CPU_KERNEL")) {
    const std::string_view name = forced;
    if (name == "generic") return {generic::run_lanes, "generic"};
#if defined(__x86_64__) && defined(__GNUC__)
    if (name == "avx2" && __builtin_cpu_supports("avx2")) return {avx2::run_lanes, "avx2"};
    if (name == "avx512" && __builtin_cpu_supports("avx512f")) return {avx512::run_lanes, "avx512"};
#endif
  }
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    return {avx512::run_lanes, "avx512"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {avx2::run_lanes, "avx2"};
#endif
  return {generic::run_lanes, "generic"};
}

const Variant& chosen() {
  static const Variant v = pick();
  return v;
}
}  // namespace

void run_lanes(Family family, bool cross, bool vol, const BarTables& bars, const double* matrix,
               const LaneInput* in, int lanes, const LaneRange& range, Summary* out) {
  chosen().run(family, cross, vol, bars, matrix, in, lanes, range, out);
}

const char* lane_kernel_variant() { return chosen().name; }

}  // namespace wfod::cpu
