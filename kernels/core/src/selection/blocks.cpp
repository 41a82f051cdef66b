// Block cut checks and the CSCV block layout (docs/spec-10-selection.md §10.4).
#include "wfod/selection/blocks.hpp"

#include <stdexcept>
#include <string>

namespace wfod::selection {

void check_cuts(const SweepRequest& req, std::span<const size_t> cuts) {
  check_cuts(req.window, cuts);
}

void check_cuts(const WindowSpec& w, std::span<const size_t> cuts) {
  size_t prev = w.first();
  for (size_t i = 0; i < cuts.size(); ++i) {
    if (cuts[i] <= prev || cuts[i] >= w.end) {
      throw std::invalid_argument("block cut " + std::to_string(i) + " at bar " +
                                  std::to_string(cuts[i]) +
                                  " is not strictly increasing inside the window (" +
                                  std::to_string(w.first()) + ", " + std::to_string(w.end) + ")");
    }
    prev = cuts[i];
  }
}

BlockLayout cscv_layout(const WindowSpec& w, size_t blocks) {
  if (blocks < 1 || blocks > w.bars) {
    throw std::invalid_argument("cannot cut a window of " + std::to_string(w.bars) + " bars into " +
                                std::to_string(blocks) + " blocks");
  }
  BlockLayout l;
  l.blocks = blocks;
  l.block_bars = w.bars / blocks;
  l.remainder_bars = w.bars % blocks;
  const size_t start = w.first() + l.remainder_bars;
  if (l.remainder_bars) l.cuts.push_back(start);
  for (size_t b = 1; b < blocks; ++b) l.cuts.push_back(start + b * l.block_bars);
  return l;
}

}  // namespace wfod::selection
