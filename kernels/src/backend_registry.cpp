// Backend names -> instances, and the request checks every backend shares (SPEC §3).
#include <stdexcept>
#include <string>

#include "cpu/cpu_backend.hpp"
#include "cpu_ref/cpu_ref_backend.hpp"
#include "wfod/backend.hpp"
#include "wfod/cuda_arch.hpp"
#ifdef WFOD_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif

namespace wfod {

std::string_view to_string(Precision p) { return p == Precision::exact ? "exact" : "fast"; }

Precision parse_precision(std::string_view s) {
  if (s == "exact") return Precision::exact;
  if (s == "fast") return Precision::fast;
  throw std::invalid_argument("unknown precision '" + std::string(s) + "' (expected exact|fast)");
}

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
    // "auto" runs on cpu what the device does not compute (cuda::supports); "cuda" refuses it.
    if (device.usable)
      return {cuda::make_cuda_backend(name == "auto"), "backend=cuda " + device.text, false};
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

size_t default_warmup(const Grid& grid) { return 3 * static_cast<size_t>(grid.max_period()); }

void check_window(const SweepRequest& req) {
  check_window(req.window, req.history.size(), req.strategy);
}

void check_window(const WindowSpec& w, size_t n, const StrategySpec& strategy) {
  if (w.bars < 1) throw std::invalid_argument("window must hold at least 1 bar");
  if (w.end > n)
    throw std::invalid_argument("window ends at bar " + std::to_string(w.end) +
                                " but the history has " + std::to_string(n) + " bars");
  if (w.end < w.bars + 1 + w.warmup)
    throw std::invalid_argument(
        "window of " + std::to_string(w.bars) + " bars ending at bar " + std::to_string(w.end) +
        " leaves fewer than warmup = " + std::to_string(w.warmup) +
        " bars before it (SPEC §3 needs T - W - 1 >= warmup; at most " +
        std::to_string(w.end > w.warmup + 1 ? w.end - w.warmup - 1 : 0) + " bars fit)");
  if (strategy.grid.size() == 0) throw std::invalid_argument("the parameter grid is empty");
  strategy.grid.validate();
  if (!(strategy.bars_per_year > 0)) throw std::invalid_argument("bars_per_year must be > 0");
  if (!(strategy.costs.per_unit() >= 0)) throw std::invalid_argument("costs must be >= 0");
}

}  // namespace wfod
