// The stream the checkpoint fuzzer restores (fuzz/stream_checkpoint_fuzz.cpp) and its seed
// corpus is written for (tests/unit/kernels/core/fuzz_seed_test.cpp): one spec for both, so the
// seeds always match what the fuzzer restores them with.
#pragma once

#include "wfod/backend.hpp"

namespace wfod::fuzz {

inline StreamSpec stream_checkpoint_spec() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {3};
  g.slow = {8};
  g.ma = {MaType::ema, MaType::hma};
  g.entry = {Entry::cross};
  g.vol_short = {4};
  g.vol_long = {9};
  g.vol_threshold = {1.0};
  g.stop_loss = {0, 0.01};  // lanes with and without stop states (SPEC §5b)
  StreamSpec spec;
  spec.strategy.grid = g;
  spec.strategy.fill = Fill::next_open;
  spec.strategy.costs.commission_bps = 1;
  spec.window = 24;
  spec.warmup = default_warmup(g);
  spec.chunk = 16;
  spec.threads = 1;
  return spec;
}

}  // namespace wfod::fuzz
