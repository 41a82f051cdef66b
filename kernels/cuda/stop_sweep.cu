// Host side of the stop evaluator (stop_sweep.cuh): batches of combos through its kernels and
// the host's finalize and ranking.
#include <algorithm>
#include <cstdint>

#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "selection_pipeline.cuh"
#include "stop_sweep.cuh"
#include "tuning.cuh"
#include "wfod/ranking.hpp"
#include "wfod/summary.hpp"

namespace wfod::cuda {
namespace {}  // namespace

SweepResult stop_sweep(StopWorkspace& ws, const SweepRequest& req, const StopPrepared& p,
                       Backend& host) {
  const Grid& grid = req.strategy.grid;
  const unsigned long long n_ids = grid.size();
  const long long first = static_cast<long long>(req.window.first());
  const long long last = static_cast<long long>(req.window.end);
  const double bpy = req.strategy.bars_per_year;
  SweepResult result;
  TopK top(req.rank.top);
  auto offer = [&](uint64_t id, const Metrics& m) {
    if (!passes_constraints(m, req.rank)) return;
    ++result.ranked;
    top.offer({grid.decode(id), m, objective_value(m, req.rank.objective)});
  };
  std::vector<uint64_t> fallback;
  const unsigned long long batch = std::min(n_ids, cuda_tuning().stop_batch_combos);
  ws.summaries.ensure(batch);
  ws.valid.ensure(batch);
  for (unsigned long long id0 = 0; id0 < n_ids; id0 += batch) {
    const unsigned long long count = std::min(batch, n_ids - id0);
    launch_stop_summaries(*p.kinds, *p.tables, *p.stops, *p.bars, first, last, count, nullptr, id0,
                          ws.summaries.data(), ws.valid.data());
    const std::vector<Summary> sums = ws.summaries.download(count);
    const std::vector<uint8_t> valid = ws.valid.download(count);
    for (unsigned long long i = 0; i < count; ++i) {
      if (!valid[i]) {
        ++result.skipped;
        continue;
      }
      ++result.evaluated;
      if (sums[i].nonpositive)
        fallback.push_back(id0 + i);
      else
        offer(id0 + i, finalize(sums[i], bpy));
    }
  }
  if (!fallback.empty()) {
    const std::vector<Metrics> fb = host.evaluate(req, fallback);
    for (size_t i = 0; i < fallback.size(); ++i) offer(fallback[i], fb[i]);
  }
  result.top = top.sorted();
  result.precision = req.precision;
  if (req.precision == Precision::fast) {
    // The stop evaluator decides in float64 in both precisions: nothing differs from exact.
    FastParity fp;
    fp.combos = result.evaluated;
    result.fast_parity = fp;
  }
  return result;
}

std::vector<Summary> stop_window_summaries(StopWorkspace& ws, const SweepRequest& req,
                                           const StopPrepared& p, std::span<const uint64_t> ids) {
  std::vector<Summary> out;
  out.reserve(ids.size());
  const long long first = static_cast<long long>(req.window.first());
  const long long last = static_cast<long long>(req.window.end);
  const size_t batch = std::min<size_t>(ids.size(), cuda_tuning().stop_batch_combos);
  ws.summaries.ensure(batch);
  ws.valid.ensure(batch);
  for (size_t b0 = 0; b0 < ids.size(); b0 += batch) {
    const size_t count = std::min(batch, ids.size() - b0);
    ws.ids.upload(reinterpret_cast<const unsigned long long*>(ids.data() + b0), count);
    launch_stop_summaries(*p.kinds, *p.tables, *p.stops, *p.bars, first, last, count, ws.ids.data(),
                          0, ws.summaries.data(), ws.valid.data());
    const std::vector<Summary> sums = ws.summaries.download(count);
    out.insert(out.end(), sums.begin(), sums.end());
  }
  return out;
}

std::vector<Summary> stop_block_summaries(StopWorkspace& ws, const SweepRequest& req,
                                          std::span<const size_t> cuts, const StopPrepared& p) {
  const uint64_t total = req.strategy.grid.size();
  const size_t blocks = cuts.size() + 1;
  std::vector<Summary> out(total * blocks);
  if (total == 0) return out;
  ws.edges.upload(block_edges(req, cuts));
  const size_t per_combo = blocks * sizeof(Summary);
  const uint64_t chunk =
      staged_summary_chunk(total, per_combo, ws.summaries.size() * sizeof(Summary));
  ws.summaries.ensure(chunk * blocks);
  for (uint64_t id0 = 0; id0 < total; id0 += chunk) {
    const uint64_t count = std::min(chunk, total - id0);
    launch_stop_block_summaries(*p.kinds, *p.tables, *p.stops, *p.bars, ws.edges.data(),
                                static_cast<int>(blocks), id0, count, ws.summaries.data());
    WFOD_CUDA_CHECK(cudaMemcpy(out.data() + id0 * blocks, ws.summaries.data(), count * per_combo,
                               cudaMemcpyDeviceToHost));
  }
  return out;
}

}  // namespace wfod::cuda
