// detail::build_prefix_tables_on_device (src/prefix_tables.hpp): the device build of the
// stretch evaluator's tables, reached from plain C++ tests. It lives beside the registry
// because only the umbrella target knows whether this build has the cuda backend (the core
// is compiled without WFOD_HAVE_CUDA, where the probe would always report "not built").
#include <optional>
#include <string>

#include "src/prefix_tables.hpp"
#ifdef WFOD_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#include "cuda/prefix_tables_host.hpp"
#endif

namespace wfod::detail {

std::optional<PrefixTables> build_prefix_tables_on_device(const HistoryView& h, Fill fill,
                                                          size_t bars, double cost,
                                                          std::string* why) {
#ifdef WFOD_HAVE_CUDA
  if (!cuda::device_available(why)) return std::nullopt;
  return cuda::prefix_tables_on_device(h, fill, bars, cost);
#else
  (void)h, (void)fill, (void)bars, (void)cost;
  if (why) *why = "cuda backend not built (configure with -DWFOD_CUDA=ON)";
  return std::nullopt;
#endif
}

}  // namespace wfod::detail
