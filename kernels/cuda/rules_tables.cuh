// A rules strategy (SPEC §5a) on the device: what one preparation holds for it (the compiled
// program's nodes, the indicator rows its combos read, built on the host by the core's RulesRows
// (the cpu backend's rows) and uploaded once, the volumes where the program reads them) and what a
// kernel reads of a batch of combos (each one's parameter values, rows, filter and stops, decoded
// on the host). Read by rules_eval.cuh, built by rules_sweep.cu; no code is compiled per strategy.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "device_buffer.cuh"
#include "src/rules_rows.hpp"
#include "wfod/detail/rule_eval.hpp"
#include "wfod/grid.hpp"

namespace wfod::cuda {

// The numeric and truth stack slots a device thread holds for a condition (local memory). A
// program needing more is refused by the backend's supports() (rules_stack_fits): it runs on
// cpu under auto.
inline constexpr size_t kRuleStack = 32;

// One combo of a batch, beside its values (RuleTables::values) and rows (RuleTables::row_of).
struct RuleComboData {
  double stop_loss = 0, take_profit = 0, trailing_stop = 0;
  double threshold = 0;
  // Every bar before `start` has an undefined used indicator or filter row, so r_t = p_t = 0
  // there and the state entering it is the anchor's: walks to a range's first bar start here.
  long long start = 0;
  int32_t vol_short = -1, vol_long = -1;  // the filter's STD rows; -1: no filter
};

// What the rules kernels read, by value.
struct RuleTables {
  detail::RuleProgramView program;  // the nodes, used indicators, rows and fields
  const RuleComboData* combos = nullptr;
  const double* values = nullptr;   // n_params per combo
  const int32_t* row_of = nullptr;  // n_ind per combo
  uint32_t n_params = 0, n_ind = 0;
  const double* gap = nullptr;  // SPEC §2's exit gap and body returns, bar-indexed
  const double* body = nullptr;
  const double* close = nullptr;
  const double* entry_open = nullptr;  // the opens with fill next_open (SPEC §5b), else null
  double cost = 0;
};

// A preparation's rules state: built for one program, grid axes (or combo list) and bars.
struct DeviceRules {
  bool built = false;
  std::unique_ptr<detail::RulesRows> rows;  // host copies: first-defined bars and row indices
  DeviceBuffer<double> matrix;              // rows.size() rows of `bars` values, row-major
  DeviceBuffer<rules::Node> nodes;          // the four conditions' nodes, one after the other
  DeviceBuffer<uint32_t> used;              // program indicators the conditions name
  DeviceBuffer<double> volume;              // where the program reads volume
  std::vector<double> uploaded_volume;      // its host copy (compared like the other bars)
  detail::RuleProgramView view;             // device pointers into the above and the history
  long long bars = 0;
};

// Whether the program's conditions fit a device thread's stacks (kRuleStack).
bool rules_stack_fits(const rules::Program& program, size_t* needed = nullptr);

}  // namespace wfod::cuda
