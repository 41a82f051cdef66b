// Kernels for grids with stop axes (SPEC §5b): one thread per combo over a whole bar range
// (sweeps and evaluate), or per (combo, block) (block_summaries), each walking its bars in
// order from the exact state entering its range (stop_eval.cuh). Host launchers.
#pragma once

#include <cstdint>
#include <vector>

#include "stop_eval.cuh"
#include "sweep_kernels.cuh"
#include "wfod/summary.hpp"

namespace wfod::cuda {

// Summaries of bars [first, last) of n ids (ids[i], or id0 + i where ids is null) into out[i],
// and valid[i] = 1 for a valid combo (its Summary), 0 for an invalid one (the identity). Every
// id must be of one of `kinds` (each launch writes its own kind's ids).
void launch_stop_summaries(const std::vector<KernelKind>& kinds, const GridTables& g,
                           const StopTables& st, const BarData& bars, long long first,
                           long long last, unsigned long long n, const unsigned long long* ids,
                           unsigned long long id0, Summary* out, uint8_t* valid);

// Block Summaries of combos [id0, id0 + count), block b = [edges[b], edges[b + 1]), into
// out[(id - id0) * blocks + b] (identity Summaries for invalid combos), as
// launch_block_summaries lays them out.
void launch_stop_block_summaries(const std::vector<KernelKind>& kinds, const GridTables& g,
                                 const StopTables& st, const BarData& bars, const long long* edges,
                                 int blocks, unsigned long long id0, unsigned long long count,
                                 Summary* out);

}  // namespace wfod::cuda
