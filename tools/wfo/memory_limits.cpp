// The budget a run is held to (memory_limits.hpp): --memory-budget, RLIMIT_AS and the
// cgroup v2 memory.max, whichever is lowest.
#include "memory_limits.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "run_plan.hpp"

namespace wfod::cli {

namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A memory.max file's limit: digits, else none ("max", missing, unreadable).
std::optional<uint64_t> limit_in(const std::string& path) {
  std::string t = file_text(path);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  if (t.empty() || t.size() > 19 ||
      !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoull(t);
}

// VmSize: /proc/self/statm's first field, in pages.
uint64_t mapped_bytes() {
  std::istringstream s(file_text("/proc/self/statm"));
  uint64_t pages = 0;
  if (!(s >> pages)) return 0;
  const long page = ::sysconf(_SC_PAGE_SIZE);
  return pages * static_cast<uint64_t>(page > 0 ? page : 4096);
}

}  // namespace

std::optional<std::pair<uint64_t, std::string>> cgroup_memory_max(std::string_view proc_self_cgroup,
                                                                  const std::string& root) {
  // The v2 entry is the line with hierarchy 0 and no controllers: "0::/some/path".
  std::string path;
  bool found = false;
  size_t at = 0;
  while (at < proc_self_cgroup.size()) {
    size_t end = proc_self_cgroup.find('\n', at);
    if (end == std::string_view::npos) end = proc_self_cgroup.size();
    const std::string_view line = proc_self_cgroup.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, 3) == "0::") {
      path = std::string(line.substr(3));
      found = true;
      break;
    }
  }
  if (!found) return std::nullopt;
  // A parent's limit holds its children too: the lowest on the way up counts.
  std::optional<std::pair<uint64_t, std::string>> lowest;
  while (true) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    const std::string dir = path == "/" || path.empty() ? root : root + path;
    const std::string file = dir + "/memory.max";
    if (const auto v = limit_in(file); v && (!lowest || *v < lowest->first))
      lowest = std::make_pair(*v, file);
    if (path.empty() || path == "/") break;
    const size_t slash = path.rfind('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  return lowest;
}

ProcessLimits read_process_limits() {
  ProcessLimits p;
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
    p.address_space = static_cast<uint64_t>(lim.rlim_cur);
  p.mapped = mapped_bytes();
  if (auto m = cgroup_memory_max(file_text("/proc/self/cgroup"), "/sys/fs/cgroup")) {
    p.cgroup_max = m->first;
    p.cgroup_file = m->second;
  }
  return p;
}

MemoryBudget binding_budget(uint64_t configured_bytes, const ProcessLimits& p) {
  MemoryBudget b;
  b.bytes = static_cast<double>(configured_bytes);
  b.name = "--memory-budget " + bytes_text(b.bytes);
  b.raise = "raise --memory-budget";
  if (p.address_space) {
    // What is mapped already (the program, its libraries, started threads' stacks) is not
    // the run's to use.
    const double as = static_cast<double>(*p.address_space);
    const double left = std::max(0.0, as - static_cast<double>(p.mapped));
    if (left < b.bytes) {
      b.bytes = left;
      b.name = "the address-space limit (RLIMIT_AS, ulimit -v " +
               std::to_string(*p.address_space / 1024) + ") of " + bytes_text(as) + ", " +
               bytes_text(left) + " of it free beside the " +
               bytes_text(static_cast<double>(p.mapped)) + " mapped already";
      b.raise = "raise the address-space limit (ulimit -v)";
      b.label = "ulimit -v";
    }
  }
  if (p.cgroup_max && static_cast<double>(*p.cgroup_max) < b.bytes) {
    b.bytes = static_cast<double>(*p.cgroup_max);
    b.name = "the cgroup's memory.max of " + bytes_text(b.bytes) + " (" + p.cgroup_file + ")";
    b.raise = "raise the cgroup's memory.max";
    b.label = "cgroup memory.max";
  }
  return b;
}

}  // namespace wfod::cli
