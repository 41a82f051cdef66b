// The cpu backend's rules strategies (SPEC §5a, with §5b's stops): each combo's own target r_t
// evaluated on the host (rules_eval.hpp) over indicator rows shared by the combos
// (src/rules_rows.hpp) into a row per lane, then the lane kernel's given kind (src/lane_kinds.hpp
// kGivenKind) runs those rows as any family's: the stops, the segments and the Summary, so
// sweeps, evaluations and block summaries give what the built-in families' paths give.
// Rules groups run whole windows (no time chunks, no tiles): docs/engine.md says why.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lane_kernel.hpp"
#include "wfod/backend.hpp"

namespace wfod::cpu {

// A lane of combo `c` reading its r_t row (`row`, bar-indexed from the columns' first bar) at
// `offset` of the lanes' matrix (the kernel reads matrix[offset + t] for bar t).
LaneInput rules_lane_input(const Combo& c, const double* row, int64_t offset);

// Backend::sweep of a rules grid; `self` answers the reported combos' positions (growth
// refinement, src/growth_refine.hpp).
SweepResult rules_sweep(Backend& self, const SweepRequest& req);
// Backend::evaluate of a rules grid.
std::vector<Metrics> rules_evaluate(const SweepRequest& req, std::span<const uint64_t> ids);
// Backend::block_summaries of a rules grid.
std::vector<Summary> rules_block_summaries(const SweepRequest& req, std::span<const size_t> cuts);
// Backend::positions of a rules combo (its stops applied).
std::vector<int8_t> rules_positions(const HistoryView& h, const StrategySpec& spec, const Combo& c);

}  // namespace wfod::cpu
