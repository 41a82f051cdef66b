// The cuda backend's work on a rules strategy (SPEC §5a, with §5b's stops), host side: the
// preparation's rules state (rows built on the host as the cpu backend builds them, uploaded
// once with the program's nodes), then sweeps, evaluate()'s Summaries and block Summaries
// through the rules kernels (a thread per combo walking its range from its exact entering
// state, rules_eval.cuh), in batches of combos decoded on the host.
#pragma once

#include <span>
#include <vector>

#include "device_buffer.cuh"
#include "device_indicators.cuh"
#include "rules_tables.cuh"
#include "wfod/backend.hpp"

namespace wfod::cuda {

// Combos per batch: their values, rows and Summaries staged on the device (a few MB), and the
// host's decode of one batch overlapping nothing (the decode is small next to a walk).
inline constexpr size_t kRulesBatch = size_t{1} << 16;

// What the preparation left on the device for a rules request.
struct RulesPrepared {
  const DeviceRules* rules = nullptr;
  const double* gap = nullptr;
  const double* body = nullptr;
  const double* close = nullptr;
  const double* entry_open = nullptr;  // with fill next_open, else null
  double cost = 0;
};

// Grow-only device buffers of the rules evaluator, kept by the backend between calls.
struct RulesWorkspace {
  DeviceBuffer<RuleComboData> combos;
  DeviceBuffer<double> values;
  DeviceBuffer<int32_t> row_of;
  DeviceBuffer<Summary> summaries;
  DeviceBuffer<long long> edges;
};

// Builds `out` for the request's program and grid over bars [0, n) of its history (uploaded in
// `history`): every row of every value the grid's axes give the used indicators and the
// filter. Throws std::invalid_argument where the program reads volume and the history has none
// for those bars, and wfod::Unsupported where the rows do not fit the device's free memory.
void build_rules(const SweepRequest& req, const DeviceHistory& history, size_t n, int threads,
                 DeviceRules& out);

// Whether the volumes `rules` was built with are the history's first n (true where the program
// reads none).
bool rules_volume_matches(const DeviceRules& rules, const HistoryView& h, size_t n);

// Every valid combo's window Summary, then finalized, constrained and ranked on the host by
// (objective, id) as every backend ranks. Combos whose equity reaches zero are evaluated by
// `host`. result.backend and seconds are left to the caller.
SweepResult rules_sweep(RulesWorkspace&, const SweepRequest&, const RulesPrepared&, Backend& host);

// The window Summaries of valid ids (in their order).
std::vector<Summary> rules_window_summaries(RulesWorkspace&, const SweepRequest&,
                                            const RulesPrepared&, std::span<const uint64_t> ids);

// Backend::block_summaries: combo-major, grid.size() x (cuts.size() + 1), the identity Summary
// for an invalid combo.
std::vector<Summary> rules_block_summaries(RulesWorkspace&, const SweepRequest&,
                                           std::span<const size_t> cuts, const RulesPrepared&);

}  // namespace wfod::cuda
