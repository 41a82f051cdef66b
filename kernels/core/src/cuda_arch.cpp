// CUDA architecture lists and the device-vs-build rule (wfod/cuda_arch.hpp). The compiled
// list arrives as WFOD_CUDA_ARCHS (kernels/CMakeLists.txt) when the cuda backend is built.
#include "wfod/cuda_arch.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace wfod {
namespace {

void add_sorted(std::vector<int>& v, int x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  std::sort(v.begin(), v.end());
}

int parse_number(std::string_view digits, std::string_view entry) {
  int n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || n < 10) {
    throw std::invalid_argument("CUDA architecture '" + std::string(entry) +
                                "': expected NN, NN-real or NN-virtual (e.g. 86-real)");
  }
  return n;
}

std::string cc_text(int number) {
  return std::to_string(number / 10) + "." + std::to_string(number % 10);
}

}  // namespace

CudaArchs parse_cuda_archs(std::string_view list) {
  CudaArchs out;
  while (!list.empty()) {
    const size_t cut = list.find_first_of(",;");
    const std::string_view entry = list.substr(0, cut);
    list = cut == std::string_view::npos ? std::string_view() : list.substr(cut + 1);
    if (entry.empty()) continue;
    const size_t dash = entry.find('-');
    const std::string_view kind = dash == std::string_view::npos ? "" : entry.substr(dash + 1);
    const int n = parse_number(entry.substr(0, dash), entry);
    if (kind == "real") {
      add_sorted(out.sass, n);
    } else if (kind == "virtual") {
      add_sorted(out.ptx, n);
    } else if (kind.empty()) {
      add_sorted(out.sass, n);
      add_sorted(out.ptx, n);
    } else {
      parse_number("", entry);  // throws, naming the entry
    }
  }
  return out;
}

const CudaArchs& compiled_cuda_archs() {
#ifdef WFOD_CUDA_ARCHS
  static const CudaArchs archs = parse_cuda_archs(WFOD_CUDA_ARCHS);
#else
  static const CudaArchs archs;
#endif
  return archs;
}

std::string describe(const CudaArchs& a) {
  if (a.empty()) return "no CUDA code";
  std::string out;
  for (int n : a.sass) out += (out.empty() ? "sm_" : " sm_") + std::to_string(n);
  if (!a.ptx.empty()) {
    out += out.empty() ? "" : " + ";
    for (size_t i = 0; i < a.ptx.size(); ++i) {
      out += (i == 0 ? "compute_" : " compute_") + std::to_string(a.ptx[i]);
    }
    out += " PTX";
  }
  return out;
}

CudaFit can_run(ComputeCapability cc, const CudaArchs& a) {
  if (a.empty()) return {false, "", "this build has no CUDA code"};
  const int device = cc.number();
  // Newest first: the closest machine code, then the closest PTX.
  for (auto it = a.sass.rbegin(); it != a.sass.rend(); ++it) {
    if (*it / 10 == cc.major && *it <= device) return {true, "sm_" + std::to_string(*it), ""};
  }
  for (auto it = a.ptx.rbegin(); it != a.ptx.rend(); ++it) {
    if (*it <= device) return {true, "compute_" + std::to_string(*it) + " PTX", ""};
  }
  std::string why = "this build has " + describe(a) + ": ";
  int lowest = 1 << 30;
  for (int n : a.sass) lowest = std::min(lowest, n);
  for (int n : a.ptx) lowest = std::min(lowest, n);
  if (device < lowest) {
    why += "cc " + cc_text(device) + " is older than every architecture in it";
  } else {
    why += "no sm_" + std::to_string(cc.major) + "x machine code at or below " + cc_text(device) +
           (a.ptx.empty() ? ", and no PTX" : ", and its PTX needs cc >= " + cc_text(a.ptx.front()));
  }
  return {false, "", why};
}

}  // namespace wfod
