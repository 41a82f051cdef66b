// The memory a CSV load takes, estimated from the file's size and its first lines before
// any of it is read, and the refusal of a load over the budget that binds (exit 2), so a
// file too large for the run fails in milliseconds rather than after minutes of parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "memory_limits.hpp"

namespace wfod::cli {

struct LoadEstimate {
  uint64_t file_bytes = 0;
  uint64_t bars = 0;         // at most: the file's size over its shortest sampled line
  double text_bytes = 0;     // the whole file as read_csv holds it (its growth included)
  double columns_bytes = 0;  // the parsed bars, reserved before parsing
  double peak_bytes = 0;     // the load's largest moment, the process's own bytes included
};

// From the file's size and its head (its first bytes, the header line included).
LoadEstimate estimate_load(uint64_t file_bytes, std::string_view head);
// The estimate of the file at `path`; nothing when it cannot be read (read_csv says why).
std::optional<LoadEstimate> estimate_csv_load(const std::string& path);

// Throws InputError when the estimate's peak exceeds the budget: the file, the estimate,
// the budget that binds and what to change.
void check_load(const LoadEstimate&, const MemoryBudget&, const std::string& path);

}  // namespace wfod::cli
