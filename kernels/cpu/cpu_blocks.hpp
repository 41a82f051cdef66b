// The cpu backend's block_summaries (robust selection): every valid combo's Summary of each
// block of the window, from the same lane kernel the sweeps use. A sweep whose preparation
// asks for the blocks (PrepareSpec::pbo_blocks) computes them in its own pass instead
// (cpu_backend.cpp, LaneBlocks), bit for bit as this separate pass, which remains for
// every other case.
#pragma once

#include <span>
#include <vector>

#include "wfod/backend.hpp"

namespace wfod::cpu {

// As Backend::block_summaries: combo-major, grid.size() x (cuts.size() + 1).
std::vector<Summary> block_summaries(const SweepRequest&, std::span<const size_t> cuts);

}  // namespace wfod::cpu
