// The memory a `wfo` run is held to: the lowest of --memory-budget, the process's
// address-space limit (RLIMIT_AS, `ulimit -v`) less what is mapped already, and its cgroup
// v2 memory.max; which one binds, for the refusals to name it and say what to change.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wfod::cli {

// The limits of this process beside the configured budget (none where absent or "max").
struct ProcessLimits {
  std::optional<uint64_t> address_space;  // RLIMIT_AS soft limit, bytes
  uint64_t mapped = 0;                    // address space mapped at the reading (VmSize)
  std::optional<uint64_t> cgroup_max;     // the lowest memory.max of the cgroup and its parents
  std::string cgroup_file;                // the memory.max file that gave it
};

// The limits as the system reports them now.
ProcessLimits read_process_limits();

// The lowest memory.max on the path from the process's cgroup up to the hierarchy's root:
// `proc_self_cgroup` is /proc/self/cgroup's text (the v2 line "0::/path"), `root` the
// cgroup2 mount (/sys/fs/cgroup). "max" or an unreadable file is no limit at that level.
// Returns the bytes and the file, or nothing when no level has a limit (or no v2 line).
std::optional<std::pair<uint64_t, std::string>> cgroup_memory_max(std::string_view proc_self_cgroup,
                                                                  const std::string& root);

// The budget that binds.
struct MemoryBudget {
  double bytes = 0;
  std::string name;   // "--memory-budget 2.0 GiB", "the address-space limit ..."
  std::string raise;  // the way out: "raise --memory-budget", "raise ulimit -v", ...
  std::string label;  // for the plan line's "of 2.0 GiB budget (...)": empty for the flag
};

// The lowest of `configured_bytes` (--memory-budget) and the limits.
MemoryBudget binding_budget(uint64_t configured_bytes, const ProcessLimits&);

}  // namespace wfod::cli
