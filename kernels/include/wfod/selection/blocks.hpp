// Block cuts of an evaluation window (robust selection, docs/spec-10-selection.md): the
// check every backend's block_summaries() applies, and the CSCV layout of S equal blocks.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "wfod/backend.hpp"

namespace wfod::selection {

// Throws std::invalid_argument unless `cuts` strictly increase inside (first, end) of the
// request's window (check_window is the caller's).
void check_cuts(const SweepRequest&, std::span<const size_t> cuts);
void check_cuts(const WindowSpec&, std::span<const size_t> cuts);

// S equal blocks of floor(W / S) bars ending at the window's end. The oldest W mod S bars,
// when there are any, form a leading remainder block that CSCV ignores: its blocks stay
// equal (as in the paper) and hold the most recent bars, yet the joined blocks still give
// the whole window (GridScores come from the same summaries).
struct BlockLayout {
  std::vector<size_t> cuts;   // for block_summaries: remainder block first when present
  size_t blocks = 0;          // S
  size_t block_bars = 0;      // floor(W / S)
  size_t remainder_bars = 0;  // W mod S, in the leading block
  size_t first_cscv_block() const { return remainder_bars ? 1 : 0; }
  size_t total_blocks() const { return cuts.size() + 1; }
};
// Requires 1 <= S <= W.
BlockLayout cscv_layout(const WindowSpec&, size_t blocks);

}  // namespace wfod::selection
