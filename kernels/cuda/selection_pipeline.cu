// Robust selection on the device (docs/spec-10-selection.md §10): block summaries -> window
// scores -> CSCV -> plateau, with only the per-combo score arrays and the per-split outcomes
// coming back to the host. The summaries (combos x blocks x 144 B) never leave the device.
// Results equal Backend::robust_scores' host pipeline bit for bit (selection_kernels.cu says
// how); tests/parity/selection_device_parity_test.cpp holds them to it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "cuda/cuda_check.cuh"
#include "cuda/device_buffer.cuh"
#include "cuda/selection_device.hpp"
#include "cuda/selection_kernels.cuh"
#include "cuda/selection_pipeline.cuh"
#include "wfod/ranking.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/selection/selection.hpp"

namespace wfod::cuda {

class SelectionWorkspace {
 public:
  DeviceBuffer<Summary> blocks;
  DeviceBuffer<long long> edges;
  DeviceBuffer<double> objective, sharpe, scores;
  DeviceBuffer<uint8_t> state, flags;
  DeviceBuffer<uint32_t> ids, binom, masks, order;
  DeviceBuffer<uint8_t> unchecked;
  DeviceBuffer<double> lean_d;
  DeviceBuffer<int32_t> lean_closed, lean_held;
  DeviceBuffer<int8_t> lean_flags;
  DeviceBuffer<unsigned long long> under, ties;
  DeviceBuffer<uint32_t> part_best, part_under, part_ties;
  DeviceBuffer<int32_t> winner;
  DeviceBuffer<double> is_obj, oos_obj;
  DeviceBuffer<float> store;  // pass A's screened objectives, splits x participants (if they fit)
};

std::shared_ptr<SelectionWorkspace> make_selection_workspace() {
  return std::make_shared<SelectionWorkspace>();
}

namespace {

namespace lean = selection::lean;
namespace stencil = selection::stencil;
using Clock = std::chrono::steady_clock;

thread_local SelectionTiming g_timing;

// A CUDA event on the default stream: device time between two points of the pipeline
// without a synchronisation between them (the benchmark's phase split).
class DeviceEvent {
 public:
  DeviceEvent() { WFOD_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~DeviceEvent() { cudaEventDestroy(e_); }
  DeviceEvent(const DeviceEvent&) = delete;
  DeviceEvent& operator=(const DeviceEvent&) = delete;
  void record() { WFOD_CUDA_CHECK(cudaEventRecord(e_)); }
  // Milliseconds from this event to `later` (both recorded and complete).
  double ms_to(const DeviceEvent& later) const {
    float ms = 0;
    WFOD_CUDA_CHECK(cudaEventElapsedTime(&ms, e_, later.e_));
    return ms;
  }

 private:
  cudaEvent_t e_{};
};

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::vector<long long> block_edges(const SweepRequest& req, std::span<const size_t> cuts) {
  std::vector<long long> e;
  e.push_back(static_cast<long long>(req.window.first()));
  for (size_t c : cuts) e.push_back(static_cast<long long>(c));
  e.push_back(static_cast<long long>(req.window.end));
  return e;
}

size_t free_device_bytes() {
  size_t free = 0, total = 0;
  WFOD_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

lean::Ranking ranking_of(const SweepRequest& req, size_t half_bars) {
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

uint64_t n_choose_half(size_t s) {
  uint64_t r = 1;
  for (size_t i = 1; i <= s / 2; ++i) r = r * (s / 2 + i) / i;
  return r;
}

void run_blocks(SelectionWorkspace& ws, const PreparedSweep& p, int blocks, unsigned long long id0,
                unsigned long long count, Summary* out) {
  for (const KernelKind& kind : *p.kinds)
    launch_block_summaries(kind, *p.tables, *p.bars, ws.edges.data(), blocks, id0, count, out);
}

// PBO from the device-resident block summaries: participants listed on the host from the
// score flags, then pack -> pass A -> winners -> targets -> pass B -> counts.
selection::PboResult device_cscv(SelectionWorkspace& ws, const SweepRequest& req,
                                 const selection::RobustOptions& opt,
                                 const std::vector<uint8_t>& flags,
                                 const std::vector<selection::ComboState>& state,
                                 SelectionTiming& timing) {
  const auto t_setup = Clock::now();
  const selection::BlockLayout& l = opt.layout;
  const size_t S = l.blocks;
  selection::PboResult r;
  r.blocks = S;
  std::vector<uint32_t> ids;
  for (uint64_t id = 0; id < flags.size(); ++id) {
    if (state[id] == selection::ComboState::invalid) continue;
    if (flags[id] & kCscvTakes) {
      ids.push_back(static_cast<uint32_t>(id));
    } else {
      ++r.excluded_nonpositive;
    }
  }
  r.combos = ids.size();
  const std::vector<uint32_t> masks = lean::split_masks(S);
  r.splits = masks.size();
  r.pbo = std::numeric_limits<double>::quiet_NaN();
  if (ids.size() < 2) return r;  // no selection among fewer than two combos

  const lean::Ranking rk = ranking_of(req, S / 2 * l.block_bars);
  const int doubles = lean_doubles(rk);
  const uint32_t np = static_cast<uint32_t>(ids.size());
  const uint32_t splits = static_cast<uint32_t>(masks.size());
  ws.ids.upload(ids);
  ws.masks.upload(masks);
  ws.binom.upload(lean::binomial_table());
  const size_t cells = static_cast<size_t>(np) * S;
  ws.lean_d.ensure(cells * static_cast<size_t>(std::max(doubles, 1)));
  ws.lean_closed.ensure(cells);
  ws.lean_held.ensure(cells);
  ws.lean_flags.ensure(cells);
  LeanColumns cols{
      ws.lean_d.data(),   ws.lean_closed.data(), ws.lean_held.data(), ws.lean_flags.data(), np,
      static_cast<int>(S)};
  // Pack first: it marks the participants whose constraints hold on every half-set, which the
  // unchecked walk takes; the rest go to the checked walk. Each part in ascending k.
  const int stride = static_cast<int>(l.total_blocks());
  const int first = static_cast<int>(l.first_cscv_block());
  ws.unchecked.ensure(np);
  launch_cscv_pack(rk, ws.blocks.data(), stride, first, ws.ids.data(), cols, ws.unchecked.data());
  const std::vector<uint8_t> unchecked = ws.unchecked.download(np);
  std::vector<uint32_t> order;
  order.reserve(np);
  for (uint32_t k = 0; k < np; ++k)
    if (unchecked[k]) order.push_back(k);
  const uint32_t n_unchecked = static_cast<uint32_t>(order.size());
  for (uint32_t k = 0; k < np; ++k)
    if (!unchecked[k]) order.push_back(k);
  ws.order.upload(order);
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
  // Pass B streams pass A's screened objectives (splits x participants floats) when they fit
  // the device with room to spare; otherwise it walks the split tree again. Same counts either
  // way. WFOD_CUDA_CSCV_STORE=0 forces the second walk (tests run both).
  const size_t store_floats = static_cast<size_t>(splits) * cscv_store_stride(np);
  const size_t store_bytes = store_floats * sizeof(float);
  const char* store_env = std::getenv("WFOD_CUDA_CSCV_STORE");
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
  if (const char* rel = std::getenv("WFOD_CUDA_CSCV_SCREEN_REL"))
    band.rel = std::max(band.rel, std::atof(rel));
  DeviceEvent walk_start, walk_end, count_start, count_end;
  timing.setup_ms = ms_since(t_setup);
  walk_start.record();
  for (const bool checked : {false, true})
    launch_cscv_pass_a(rk, cols, checked ? checked_part : free_part, checked, ws.binom.data(),
                       splits, ws.part_best.data(), use_store ? ws.store.data() : nullptr);
  walk_end.record();
  launch_cscv_resolve(rk, cols, ws.part_best.data(), free_part, checked_part, ws.masks.data(),
                      splits, band, ws.winner.data());
  launch_cscv_targets(rk, cols, ws.masks.data(), splits, ws.winner.data(), ws.is_obj.data(),
                      ws.oos_obj.data());
  count_start.record();
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
  count_end.record();
  const std::vector<int32_t> winner = ws.winner.download(splits);
  timing.walk_ms = walk_start.ms_to(walk_end);
  timing.resolve_ms = walk_end.ms_to(count_start);
  timing.count_ms = count_start.ms_to(count_end);
  const std::vector<double> is_obj = ws.is_obj.download(splits);
  const std::vector<double> oos_obj = ws.oos_obj.download(splits);
  const std::vector<unsigned long long> under = ws.under.download(splits);
  const std::vector<unsigned long long> ties = ws.ties.download(splits);

  std::vector<lean::SplitOutcome> outcome(splits);
  for (uint32_t s = 0; s < splits; ++s) {
    if (winner[s] < 0) continue;
    outcome[s] = {winner[s], is_obj[s], oos_obj[s], under[s], ties[s]};
  }
  lean::aggregate(outcome, np, opt.hist_bins, r);
  return r;
}

}  // namespace

SelectionTiming last_selection_timing() { return g_timing; }
void record_selection_timing(const SelectionTiming& t) { g_timing = t; }

size_t robust_scores_bytes(uint64_t combos, size_t blocks, const selection::RobustOptions& opt,
                           const SweepRequest& req) {
  // Without PBO only the plateau stencil runs here: objective, state and scores.
  if (!opt.pbo) return combos * (2 * sizeof(double) + 1);
  size_t bytes = combos * blocks * sizeof(Summary) + combos * (3 * sizeof(double) + 2);
  {
    const size_t S = opt.layout.blocks;
    const lean::Ranking rk = ranking_of(req, S / 2 * opt.layout.block_bars);
    const size_t doubles = static_cast<size_t>(std::max(lean_doubles(rk), 1));
    const uint64_t splits = n_choose_half(S);
    const uint64_t warps = cscv_walk_warps(static_cast<uint32_t>(combos)) + kWalkThreads / 32;
    bytes += combos * (4 + 4 + 1 + S * (8 * doubles + 9));  // ids, order, flags, lean columns
    bytes += warps * splits * (4 + 4 + 4);                  // partials of both passes (no store)
    bytes += splits * (4 + 4 + 8 + 8 + 8 + 8) + 4096;       // per split
  }
  return bytes;
}

std::vector<Summary> device_block_summaries(SelectionWorkspace& ws, const SweepRequest& req,
                                            std::span<const size_t> cuts, const PreparedSweep& p) {
  const uint64_t total = req.strategy.grid.size();
  const size_t blocks = cuts.size() + 1;
  std::vector<Summary> out(total * blocks);
  if (total == 0) return out;
  ws.edges.upload(block_edges(req, cuts));
  // Chunks of combos whose summaries fit comfortably (half the free memory, at most 2 GiB):
  // the whole result goes to the host anyway, so the device only stages it.
  const size_t per_combo = blocks * sizeof(Summary);
  const size_t budget = std::min<size_t>(
      free_device_bytes() / 2 + ws.blocks.size() * sizeof(Summary), size_t{2} << 30);
  const uint64_t chunk = std::max<uint64_t>(1, std::min<uint64_t>(total, budget / per_combo));
  ws.blocks.ensure(chunk * blocks);
  for (uint64_t id0 = 0; id0 < total; id0 += chunk) {
    const uint64_t count = std::min(chunk, total - id0);
    run_blocks(ws, p, static_cast<int>(blocks), id0, count, ws.blocks.data());
    WFOD_CUDA_CHECK(cudaMemcpy(out.data() + id0 * blocks, ws.blocks.data(), count * per_combo,
                               cudaMemcpyDeviceToHost));
  }
  return out;
}

selection::RobustScores device_robust_scores(SelectionWorkspace& ws, Backend& self,
                                             const SweepRequest& req,
                                             const selection::RobustOptions& opt,
                                             const PreparedSweep& p, double prepare_ms) {
  const auto t_start = Clock::now();
  SelectionTiming timing;
  timing.prepare_ms = prepare_ms;
  timing.path = "device";
  const Grid& grid = req.strategy.grid;
  const uint64_t total = grid.size();
  const std::span<const size_t> cuts = opt.layout.cuts;
  selection::check_cuts(req, cuts);
  const size_t blocks = cuts.size() + 1;
  if (opt.pbo) {
    const size_t S = opt.layout.blocks;
    if (S < 2 || S > 20 || S % 2 != 0)
      throw std::invalid_argument("PBO needs an even block count in 2..20, got " +
                                  std::to_string(S));
    if (opt.layout.first_cscv_block() + S != blocks)
      throw std::invalid_argument("PBO: summaries do not match the block layout");
  }
  // Memory plan: everything this call keeps on the device at once (the workspace's current
  // buffers count as free: they are reused or replaced).
  const size_t need = robust_scores_bytes(total, blocks, opt, req);
  const size_t reusable = ws.blocks.size() * sizeof(Summary) + ws.store.size() * sizeof(float);
  const size_t have = free_device_bytes() + reusable;
  if (total > std::numeric_limits<uint32_t>::max() || need > have / 10 * 9) {
    throw std::invalid_argument(
        "cuda robust_scores: " + std::to_string(total) + " combos x " + std::to_string(blocks) +
        " blocks need " + std::to_string(need >> 20) + " MiB on the device, " +
        std::to_string(have >> 20) + " MiB free; the host pipeline runs instead");
  }

  // The last call's objective store is the first thing to give back when memory is short.
  if (need > free_device_bytes() + ws.blocks.size() * sizeof(Summary)) ws.store = {};

  selection::RobustScores out;
  std::vector<uint8_t> flags;
  bool scores_on_device = false;  // ws.objective / ws.state hold the final scores
  if (opt.pbo) {
    // 1. Block summaries, combo-major, every combo.
    auto t = Clock::now();
    ws.edges.upload(block_edges(req, cuts));
    ws.blocks.ensure(total * blocks);
    run_blocks(ws, p, static_cast<int>(blocks), 0, total, ws.blocks.data());
    WFOD_CUDA_CHECK(cudaDeviceSynchronize());
    timing.blocks_ms = ms_since(t);

    // 2. Window scores (blocks joined left to right), then the host's exact replays.
    t = Clock::now();
    ws.objective.ensure(total);
    ws.sharpe.ensure(total);
    ws.state.ensure(total);
    ws.flags.ensure(total);
    const double sqrt_bpy = std::sqrt(req.strategy.bars_per_year);
    const int cscv_first = opt.pbo ? static_cast<int>(opt.layout.first_cscv_block()) : 0;
    const int cscv_blocks = opt.pbo ? static_cast<int>(opt.layout.blocks) : 0;
    launch_window_scores(*p.tables, ws.blocks.data(), static_cast<int>(blocks), cscv_first,
                         cscv_blocks, total, rank_params_of(req.rank, req.strategy.bars_per_year),
                         sqrt_bpy, ws.objective.data(), ws.sharpe.data(), ws.state.data(),
                         ws.flags.data());
    out.objective = ws.objective.download(total);
    out.sharpe = ws.sharpe.download(total);
    const std::vector<uint8_t> state_bytes = ws.state.download(total);
    flags = ws.flags.download(total);
    out.state.resize(total);
    std::vector<uint64_t> replay;
    for (uint64_t id = 0; id < total; ++id) {
      out.state[id] = static_cast<selection::ComboState>(state_bytes[id]);
      if (flags[id] & kReplay) replay.push_back(id);
    }
    if (!replay.empty()) {
      // Equity reached zero: the combine's drawdown does not hold (spec-notes 5).
      const std::vector<Metrics> exact = self.evaluate(req, replay);
      for (size_t i = 0; i < replay.size(); ++i) {
        const uint64_t id = replay[i];
        out.objective[id] = objective_value(exact[i], req.rank.objective);
        out.sharpe[id] = exact[i].sharpe / sqrt_bpy;
        out.state[id] = passes_constraints(exact[i], req.rank) ? selection::ComboState::ranked
                                                               : selection::ComboState::unranked;
      }
    }
    for (uint64_t id = 0; id < total; ++id) {
      out.valid += out.state[id] != selection::ComboState::invalid ? 1 : 0;
      out.ranked += out.state[id] == selection::ComboState::ranked ? 1 : 0;
    }
    timing.score_ms = ms_since(t);
    scores_on_device = replay.empty();
  } else {
    // Without PBO the host pipeline scores by evaluate() in chunks (score_grid_by_evaluate,
    // this backend's evaluate): the same call here keeps the scores identical to it.
    const auto t = Clock::now();
    selection::GridScores g = selection::score_grid_by_evaluate(self, req);
    out.objective = std::move(g.objective);
    out.sharpe = std::move(g.sharpe);
    out.state = std::move(g.state);
    out.valid = g.valid;
    out.ranked = g.ranked;
    timing.score_ms = ms_since(t);
  }

  // 3. PBO by CSCV over the device-resident summaries.
  if (opt.pbo) {
    const auto t = Clock::now();
    out.pbo = device_cscv(ws, req, opt, flags, out.state, timing);
    timing.cscv_ms = ms_since(t);
  }

  // 4. The plateau stencil over the final scores.
  if (opt.plateau) {
    const auto t = Clock::now();
    const selection::PlateauRequest& pr = *opt.plateau;
    const size_t axes = pr.axis_sizes.size();
    if (pr.radii.size() != axes) throw std::invalid_argument("plateau: one radius per axis");
    if (axes > static_cast<size_t>(stencil::kMaxAxes))
      throw std::invalid_argument("plateau: more axes than the device stencil takes");
    stencil::StencilGrid g;
    g.axes = static_cast<int>(axes);
    uint64_t product = 1;
    for (size_t a = 0; a < axes; ++a) {
      g.size[a] = pr.axis_sizes[a];
      g.stride[a] = product;
      g.radius[a] = static_cast<uint64_t>(std::max(pr.radii[a], 0));
      product *= pr.axis_sizes[a];
    }
    if (product != total) throw std::invalid_argument("plateau: one objective and state per combo");
    g.mean = pr.stat.mean;
    g.q = pr.stat.q;
    // The worst ranked objective stands in for valid neighbours that are not ranked.
    double worst = std::numeric_limits<double>::infinity();
    bool any = false;
    for (uint64_t id = 0; id < total; ++id)
      if (out.state[id] == selection::ComboState::ranked && !std::isnan(out.objective[id])) {
        worst = std::min(worst, out.objective[id]);
        any = true;
      }
    out.plateau_scores.assign(total, std::numeric_limits<double>::quiet_NaN());
    if (any) {
      g.worst = worst;
      if (!scores_on_device) {  // replays, or scored on the host: upload the final scores
        ws.objective.upload(out.objective);
        std::vector<uint8_t> st(total);
        for (uint64_t id = 0; id < total; ++id) st[id] = static_cast<uint8_t>(out.state[id]);
        ws.state.upload(st);
      }
      ws.scores.ensure(total);
      launch_plateau(g, ws.objective.data(), ws.state.data(), total, ws.scores.data());
      out.plateau_scores = ws.scores.download(total);
      // Best centre: higher score, then lower id (plateau_select's order of visits).
      std::optional<uint64_t> best;
      for (uint64_t id = 0; id < total; ++id) {
        if (out.state[id] != selection::ComboState::ranked || std::isnan(out.objective[id]))
          continue;
        if (!best || ranks_before(out.plateau_scores[id], id, out.plateau_scores[*best], *best))
          best = id;
      }
      if (best) {
        std::vector<uint8_t> st(total);
        for (uint64_t id = 0; id < total; ++id) st[id] = static_cast<uint8_t>(out.state[id]);
        const stencil::CentreScore c =
            stencil::centre_score(g, *best, out.objective.data(), st.data());
        out.plateau = selection::PlateauWinner{*best, out.plateau_scores[*best], c.neighbours,
                                               c.worst_counted};
      }
    }
    timing.plateau_ms = ms_since(t);
  }
  timing.total_ms = ms_since(t_start) + prepare_ms;
  g_timing = timing;
  return out;
}

}  // namespace wfod::cuda
