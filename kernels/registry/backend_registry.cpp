// Backend names -> instances: the one place that sees every backend's factory (each backend
// is its own CMake target; this file is the umbrella wfod_kernels). The cuda backend gets
// its host backend (positions, fallbacks) from here, so it never links the cpu target; under
// "auto" the routing backend sends what cuda refuses (Backend::supports) to cpu.
#include <stdexcept>
#include <string>

#include "cpu/cpu_backend.hpp"
#include "cpu_ref/cpu_ref_backend.hpp"
#include "registry/routing_backend.hpp"
#include "wfod/backend.hpp"
#include "wfod/cuda_arch.hpp"
#ifdef WFOD_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif

namespace wfod {

std::vector<std::string> backend_names() {
  std::vector<std::string> names{"cpu_ref", "cpu"};
#ifdef WFOD_HAVE_CUDA
  names.push_back("cuda");
#endif
  return names;
}

BackendChoice choose_backend(std::string_view name) {
  if (name == "cpu_ref") return {make_cpu_ref_backend(), "", false};
  if (name == "cpu") return {make_cpu_backend(), "", false};
  if (name == "cuda" || name == "auto") {
#ifdef WFOD_HAVE_CUDA
    const cuda::DeviceCheck device = cuda::check_device();
    // "auto" runs on cpu what the device does not compute (Backend::supports); "cuda"
    // refuses it (wfod::Unsupported).
    if (device.usable) {
      std::unique_ptr<Backend> chosen = cuda::make_cuda_backend(make_cpu_backend());
      if (name == "auto")
        chosen = detail::make_routing_backend(std::move(chosen), make_cpu_backend());
      return {std::move(chosen), "backend=cuda " + device.text, false};
    }
    if (name == "cuda") throw std::invalid_argument("cuda backend unavailable: " + device.text);
    // "refused": a GPU is there but this build cannot run on it; "unavailable": no GPU.
    return {
        make_cpu_backend(),
        (device.present ? "cuda refused: " : "cuda unavailable: ") + device.text + "; backend=cpu",
        true};
#else
    if (name == "cuda")
      throw std::invalid_argument("cuda backend not built (configure with -DWFOD_CUDA=ON)");
    return {make_cpu_backend(), "", false};
#endif
  }
  throw std::invalid_argument("unknown backend '" + std::string(name) +
                              "' (expected auto|cpu|cpu_ref|cuda)");
}

std::unique_ptr<Backend> make_backend(std::string_view name) {
  return choose_backend(name).backend;
}

std::string backends_summary() {
  std::string out;
  for (const std::string& n : backend_names()) out += (out.empty() ? "" : " ") + n;
  const CudaArchs& archs = compiled_cuda_archs();
  if (!archs.empty()) out += " (" + describe(archs) + ")";
  return out;
}

}  // namespace wfod
