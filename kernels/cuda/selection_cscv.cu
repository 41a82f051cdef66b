// PBO by CSCV on the device (selection_cscv.cuh): participants compacted on the device in id
// order, packed into lean columns and split into the unchecked and checked walk parts, then
// pass A (walks), exact winners, targets and pass B (counts) queued; the outcome aggregated on
// the host by pbo.cpp's finish_pbo, so the result is cscv_pbo's bit for bit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>
#include <limits>
#include <string>

#include "selection_cscv.cuh"
#include "selection_kernels.cuh"
#include "wfod/env_knobs.hpp"
#include "wfod/selection/blocks.hpp"

namespace wfod::cuda {
namespace {

namespace lean = selection::lean;
using Clock = std::chrono::steady_clock;

// Runs a CUB flagged selection or partition `op(temp, bytes)` (its temp storage in
// ws.scratch, its count in ws.counts) and returns the flagged count on the host.
template <class Op>
uint32_t run_flagged(SelectionWorkspace& ws, Op op) {
  size_t bytes = 0;
  WFOD_CUDA_CHECK(op(nullptr, bytes));
  ws.scratch.ensure(bytes);
  WFOD_CUDA_CHECK(op(ws.scratch.data(), bytes));
  return ws.counts.download(1)[0];
}

}  // namespace

lean::Ranking cscv_ranking(const SweepRequest& req, size_t half_bars) {
  lean::Ranking rk;
  rk.bars = static_cast<double>(half_bars);
  rk.annual = std::sqrt(req.strategy.bars_per_year);  // finalize's sqrt(bars_per_year)
  rk.objective = static_cast<int>(req.rank.objective);
  rk.min_trades = req.rank.min_trades;
  rk.max_drawdown = req.rank.max_drawdown;
  rk.has_min_exposure = req.rank.min_exposure.has_value();
  rk.min_exposure = req.rank.min_exposure.value_or(0.0);
  return rk;
}

CscvRun launch_device_cscv(SelectionWorkspace& ws, const SweepRequest& req,
                           const selection::RobustOptions& opt, uint64_t total,
                           SelectionTiming& timing) {
  const auto t_setup = Clock::now();
  const selection::BlockLayout& l = opt.layout;
  CscvRun run;
  run.blocks = l.blocks;
  const std::vector<uint32_t> masks = lean::split_masks(run.blocks);
  run.splits = static_cast<uint32_t>(masks.size());

  // Participants in id order (their index k breaks ties the way the host's lower id does).
  ws.take.ensure(total);
  ws.iota.ensure(total);
  ws.ids.ensure(total);
  ws.counts.ensure(1);
  launch_cscv_take(ws.state.data(), ws.flags.data(), total, ws.take.data(), ws.iota.data());
  // ids = the flagged ids, in id order.
  run.np = run_flagged(ws, [&](void* temp, size_t& bytes) {
    return cub::DeviceSelect::Flagged(temp, bytes, ws.iota.data(), ws.take.data(), ws.ids.data(),
                                      ws.counts.data(), static_cast<int64_t>(total));
  });
  if (run.np < 2) {  // no selection among fewer than two combos
    timing.setup_ms = ms_since(t_setup);
    return run;
  }
  const uint32_t np = run.np, splits = run.splits;
  const size_t S = run.blocks;

  const lean::Ranking rk = cscv_ranking(req, S / 2 * l.block_bars);
  const int doubles = lean_doubles(rk);
  ws.masks.upload(masks);
  ws.binom.upload(lean::binomial_table());
  const size_t cells = static_cast<size_t>(np) * S;
  ws.lean_d.ensure(cells * static_cast<size_t>(std::max(doubles, 1)));
  ws.lean_closed.ensure(cells);
  ws.lean_held.ensure(cells);
  ws.lean_flags.ensure(cells);
  const LeanColumns cols{
      ws.lean_d.data(),   ws.lean_closed.data(), ws.lean_held.data(), ws.lean_flags.data(), np,
      static_cast<int>(S)};
  // Pack marks the participants whose constraints hold on every half-set: the unchecked walk
  // takes them, the checked walk the rest (the parts' order does not matter: winners are
  // decided on (objective, k) and counts are sums).
  ws.unchecked.ensure(np);
  ws.order.ensure(np);
  launch_cscv_pack(rk, ws.blocks.data(), static_cast<int>(l.total_blocks()),
                   static_cast<int>(l.first_cscv_block()), ws.ids.data(), cols,
                   ws.unchecked.data());
  // order = the unchecked participants' k in order, then the others in reverse order.
  const uint32_t n_unchecked = run_flagged(ws, [&](void* temp, size_t& bytes) {
    return cub::DevicePartition::Flagged(temp, bytes, ws.iota.data(), ws.unchecked.data(),
                                         ws.order.data(), ws.counts.data(),
                                         static_cast<int64_t>(np));
  });
  const uint32_t walk_warps = cscv_walk_warps(n_unchecked) + cscv_walk_warps(np - n_unchecked);
  const WalkPart free_part{ws.order.data(), n_unchecked, 0, walk_warps};
  const WalkPart checked_part{ws.order.data() + n_unchecked, np - n_unchecked,
                              cscv_walk_warps(n_unchecked), walk_warps};

  const size_t partials = static_cast<size_t>(walk_warps) * splits;
  ws.part_best.ensure(partials);
  ws.winner.ensure(splits);
  ws.is_obj.ensure(splits);
  ws.oos_obj.ensure(splits);
  ws.under.ensure(splits);
  ws.ties.ensure(splits);
  // Pass B streams pass A's screens (splits rows of floats) when they fit the device with room
  // to spare; otherwise it walks the split tree again. Same counts either way.
  // WFOD_CUDA_CSCV_STORE=0 forces the second walk (tests run both).
  const size_t store_floats = static_cast<size_t>(splits) * cscv_store_stride(np);
  const size_t store_bytes = store_floats * sizeof(float);
  const char* store_env = wfod::env_value(wfod::Env::cuda_cscv_store);
  const bool store_allowed = !(store_env && std::string(store_env) == "0");
  const bool use_store =
      store_allowed && store_bytes + ws.store.size() * sizeof(float) <
                           (free_device_bytes() + ws.store.size() * sizeof(float)) / 10 * 8;
  if (use_store) {
    ws.store.ensure(store_floats);
  } else {
    ws.part_under.ensure(partials);
    ws.part_ties.ensure(partials);
  }
  // The screens' band: WFOD_CUDA_CSCV_SCREEN_REL=r (tests) widens it to r |y|, so that the
  // exact decisions run often. Same results for any band at least as wide as the default.
  lean::ScreenBand band;
  if (const char* rel = wfod::env_value(wfod::Env::cuda_cscv_screen_rel))
    band.rel = std::max(band.rel, std::atof(rel));

  timing.setup_ms = ms_since(t_setup);
  ws.walk_start.record();
  for (const bool checked : {false, true})
    launch_cscv_pass_a(rk, cols, checked ? checked_part : free_part, checked, ws.binom.data(),
                       splits, ws.part_best.data(), use_store ? ws.store.data() : nullptr);
  ws.walk_end.record();
  launch_cscv_resolve(rk, cols, ws.part_best.data(), free_part, checked_part, ws.masks.data(),
                      splits, band, ws.winner.data());
  launch_cscv_targets(rk, cols, ws.masks.data(), splits, ws.winner.data(), ws.is_obj.data(),
                      ws.oos_obj.data());
  ws.count_start.record();
  if (use_store) {
    launch_cscv_count_stored(rk, cols, ws.store.data(), ws.masks.data(), splits, band,
                             ws.winner.data(), ws.oos_obj.data(), ws.under.data(), ws.ties.data());
  } else {
    for (const WalkPart& part : {free_part, checked_part})
      launch_cscv_pass_b(rk, cols, part, ws.binom.data(), splits, ws.winner.data(),
                         ws.oos_obj.data(), ws.part_under.data(), ws.part_ties.data());
    launch_cscv_reduce_b(ws.part_under.data(), ws.part_ties.data(), walk_warps, splits,
                         ws.under.data(), ws.ties.data());
  }
  ws.count_end.record();
  run.queued = true;
  return run;
}

selection::PboResult finish_device_cscv(SelectionWorkspace& ws, const CscvRun& run,
                                        const selection::RobustOptions& opt, uint64_t excluded,
                                        SelectionTiming& timing) {
  selection::PboResult r;
  r.blocks = run.blocks;
  r.splits = run.splits;
  r.combos = run.np;
  r.excluded_nonpositive = excluded;
  r.pbo = std::numeric_limits<double>::quiet_NaN();
  if (!run.queued) return r;
  const uint32_t splits = run.splits;
  const std::vector<int32_t> winner = ws.winner.download(splits);  // waits for the kernels
  timing.walk_ms = ws.walk_end.since(ws.walk_start);
  timing.resolve_ms = ws.count_start.since(ws.walk_end);
  timing.count_ms = ws.count_end.since(ws.count_start);
  const std::vector<double> is_obj = ws.is_obj.download(splits);
  const std::vector<double> oos_obj = ws.oos_obj.download(splits);
  const std::vector<unsigned long long> under = ws.under.download(splits);
  const std::vector<unsigned long long> ties = ws.ties.download(splits);
  std::vector<lean::SplitOutcome> outcome(splits);
  for (uint32_t s = 0; s < splits; ++s) {
    if (winner[s] < 0) continue;
    outcome[s] = {winner[s], is_obj[s], oos_obj[s], under[s], ties[s]};
  }
  lean::aggregate(outcome, run.np, opt.hist_bins, r);
  return r;
}

}  // namespace wfod::cuda
