// Robust selection on the device (docs/spec-10-selection.md §10): block summaries -> window
// scores -> CSCV (selection_cscv.cu) -> plateau, with only the per-combo score arrays and the
// per-split outcomes coming back to the host (without PBO: evaluate()'s canonical Summaries ->
// window scores -> plateau). The summaries (combos x blocks x 144 B) never
// leave the device. While the CSCV kernels run, the scores come back on a side stream and the
// plateau stencil runs there too (when no combo needs a host replay). Results equal
// the host pipeline (selection::host_robust_scores) bit for bit (selection_kernels.cu says how);
// tests/parity/selection_device_parity_test.cpp holds them to it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "device_memory.cuh"
#include "selection_cscv.cuh"
#include "selection_device.hpp"
#include "selection_kernels.cuh"
#include "selection_pipeline.cuh"
#include "selection_workspace.cuh"
#include "wfod/ranking.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/support.hpp"

namespace wfod::cuda {

std::shared_ptr<SelectionWorkspace> make_selection_workspace() {
  return std::make_shared<SelectionWorkspace>();
}

std::vector<long long> block_edges(const SweepRequest& req, std::span<const size_t> cuts) {
  std::vector<long long> e;
  e.push_back(static_cast<long long>(req.window.first()));
  for (size_t c : cuts) e.push_back(static_cast<long long>(c));
  e.push_back(static_cast<long long>(req.window.end));
  return e;
}

namespace {

namespace lean = selection::lean;
namespace stencil = selection::stencil;
using Clock = std::chrono::steady_clock;

thread_local SelectionTiming g_timing;

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

// The plateau stencil over the final scores (out.objective / out.state; on the device too
// when scores_on_device, else uploaded first), its kernel and copy on `stream`, then the best
// centre on the host.
void plateau_step(SelectionWorkspace& ws, const selection::RobustOptions& opt, uint64_t total,
                  bool scores_on_device, cudaStream_t stream, selection::RobustScores& out,
                  SelectionTiming& timing) {
  const auto t = Clock::now();
  const selection::PlateauRequest& pr = *opt.plateau;
  const size_t axes = pr.axis_sizes.size();
  if (pr.radii.size() != axes) throw std::invalid_argument("plateau: one radius per axis");
  if (axes > static_cast<size_t>(stencil::kMaxAxes))
    throw Unsupported("plateau: more axes than the device stencil takes");
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
    launch_plateau(g, ws.objective.data(), ws.state.data(), total, ws.scores.data(), stream);
    out.plateau_scores = download_on(ws.scores, total, stream);
    // Best centre: higher score, then lower id (plateau_select's order of visits).
    std::optional<uint64_t> best;
    for (uint64_t id = 0; id < total; ++id) {
      if (out.state[id] != selection::ComboState::ranked || std::isnan(out.objective[id])) continue;
      if (!best || ranks_before(out.plateau_scores[id], id, out.plateau_scores[*best], *best))
        best = id;
    }
    if (best) {
      std::vector<uint8_t> st(total);
      for (uint64_t id = 0; id < total; ++id) st[id] = static_cast<uint8_t>(out.state[id]);
      const stencil::CentreScore c =
          stencil::centre_score(g, *best, out.objective.data(), st.data());
      out.plateau =
          selection::PlateauWinner{*best, out.plateau_scores[*best], c.neighbours, c.worst_counted};
    }
  }
  timing.plateau_ms = ms_since(t);
}

// Without PBO the window scores are evaluate()'s, as the host pipeline's (score_grid_by_evaluate
// on this backend): each combo's canonical time chunks (sweep_kernels.cuh) joined by the same
// tree, then scored as the PBO path scores its joined blocks, in batches of combos whose chunk
// Summaries take at most kCanonicalPartsBytes. Only the score arrays leave the device.
constexpr size_t kCanonicalPartsBytes = size_t{256} << 20;

uint64_t canonical_batch(uint64_t total, int chunks) {
  const uint64_t per_combo = static_cast<uint64_t>(chunks) * sizeof(Summary);
  return std::max<uint64_t>(1, std::min<uint64_t>(total, kCanonicalPartsBytes / per_combo));
}

void canonical_scores(SelectionWorkspace& ws, const SweepRequest& req, const PreparedSweep& p,
                      uint64_t total, const RankParams& rp, double sqrt_bpy) {
  const long long window = static_cast<long long>(req.window.bars);
  const long long first = static_cast<long long>(req.window.first());
  const int chunks = canonical_chunks(window);
  const uint64_t batch = canonical_batch(total, chunks);
  ws.blocks.ensure(batch * static_cast<uint64_t>(chunks));
  for (uint64_t id0 = 0; id0 < total; id0 += batch) {
    const uint64_t count = std::min(batch, total - id0);
    launch_chunk_summaries(*p.kinds, req.precision == Precision::exact,  // as evaluate()
                           *p.tables, *p.bars, first, window, count, nullptr, id0, chunks,
                           ws.blocks.data(), ws.blocks.data(), true);
    launch_window_scores(*p.tables, ws.blocks.data(), 1, 0, 0, count, rp, sqrt_bpy,
                         ws.objective.data() + id0, ws.sharpe.data() + id0, ws.state.data() + id0,
                         ws.flags.data() + id0, id0);
  }
}

// The four score arrays of `total` combos to the host, on the side stream (as download_on):
// copied into one page-locked staging buffer and waited for once, where pageable copies are
// staged by the driver and each is waited for on its own. Grids whose arrays pass
// kPinnedScoresBytes take the pageable copies instead of pinning that much host memory.
constexpr size_t kPinnedScoresBytes = size_t{64} << 20;

void download_scores(SelectionWorkspace& ws, uint64_t total, std::vector<double>& objective,
                     std::vector<double>& sharpe, std::vector<uint8_t>& state,
                     std::vector<uint8_t>& flags) {
  cudaStream_t stream = ws.side.get();
  const size_t doubles = total * sizeof(double);
  const size_t bytes = 2 * doubles + 2 * total;
  if (total == 0 || bytes > kPinnedScoresBytes) {
    objective = download_on(ws.objective, total, stream);
    sharpe = download_on(ws.sharpe, total, stream);
    state = download_on(ws.state, total, stream);
    flags = download_on(ws.flags, total, stream);
    return;
  }
  if (ws.host_scores.size() < bytes) ws.host_scores = PinnedBuffer<unsigned char>(bytes);
  unsigned char* host = ws.host_scores.data();
  WFOD_CUDA_CHECK(
      cudaMemcpyAsync(host, ws.objective.data(), doubles, cudaMemcpyDeviceToHost, stream));
  WFOD_CUDA_CHECK(
      cudaMemcpyAsync(host + doubles, ws.sharpe.data(), doubles, cudaMemcpyDeviceToHost, stream));
  WFOD_CUDA_CHECK(
      cudaMemcpyAsync(host + 2 * doubles, ws.state.data(), total, cudaMemcpyDeviceToHost, stream));
  WFOD_CUDA_CHECK(cudaMemcpyAsync(host + 2 * doubles + total, ws.flags.data(), total,
                                  cudaMemcpyDeviceToHost, stream));
  WFOD_CUDA_CHECK(cudaStreamSynchronize(stream));
  objective.resize(total);
  sharpe.resize(total);
  state.resize(total);
  flags.resize(total);
  std::memcpy(objective.data(), host, doubles);
  std::memcpy(sharpe.data(), host + doubles, doubles);
  std::memcpy(state.data(), host + 2 * doubles, total);
  std::memcpy(flags.data(), host + 2 * doubles + total, total);
}

// The score arrays to the host (download_scores), the host's exact replays applied (equity
// reached zero: the combine's drawdown does not hold, spec-notes 5; they run on the default
// stream, after any queued CSCV kernels), valid and ranked counted; with cscv_excluded, the
// valid combos a CSCV block whose equity reaches zero leaves out of CSCV. True when no combo
// needed a replay: the device arrays then equal the host's.
bool collect_scores(SelectionWorkspace& ws, Backend& self, const SweepRequest& req, uint64_t total,
                    selection::RobustScores& out, uint64_t* cscv_excluded) {
  std::vector<uint8_t> state_bytes, flags;
  download_scores(ws, total, out.objective, out.sharpe, state_bytes, flags);
  out.state.resize(total);
  std::vector<uint64_t> replay;
  for (uint64_t id = 0; id < total; ++id) {
    out.state[id] = static_cast<selection::ComboState>(state_bytes[id]);
    if (flags[id] & kReplay) replay.push_back(id);
    if (cscv_excluded && out.state[id] != selection::ComboState::invalid &&
        !(flags[id] & kCscvTakes))
      ++*cscv_excluded;
  }
  if (!replay.empty()) {
    const double sqrt_bpy = std::sqrt(req.strategy.bars_per_year);
    const std::vector<Metrics> exact = self.evaluate(req, replay);
    for (size_t i = 0; i < replay.size(); ++i) {
      const uint64_t id = replay[i];
      out.objective[id] = objective_value(exact[i], req.rank.objective);
      out.sharpe[id] = exact[i].sharpe / sqrt_bpy;
      out.state[id] = passes_constraints(exact[i], req.rank) ? selection::ComboState::ranked
                                                             : selection::ComboState::unranked;
    }
  }
  out.valid = out.ranked = 0;
  for (uint64_t id = 0; id < total; ++id) {
    out.valid += out.state[id] != selection::ComboState::invalid ? 1 : 0;
    out.ranked += out.state[id] == selection::ComboState::ranked ? 1 : 0;
  }
  return replay.empty();
}

}  // namespace

WindowScores device_window_scores(SelectionWorkspace& ws, Backend& self, const SweepRequest& req,
                                  const PreparedSweep& p) {
  const uint64_t total = req.strategy.grid.size();
  WindowScores w;
  ws.objective.ensure(total);
  ws.sharpe.ensure(total);
  ws.state.ensure(total);
  ws.flags.ensure(total);
  const RankParams rp = rank_params_of(req.rank, req.strategy.bars_per_year);
  auto t = Clock::now();
  canonical_scores(ws, req, p, total, rp, std::sqrt(req.strategy.bars_per_year));
  WFOD_CUDA_CHECK(cudaDeviceSynchronize());
  w.blocks_ms = ms_since(t);
  // One batch: the join left every combo's Summary in row 0 of the parts (ws.blocks[id]).
  w.summaries =
      canonical_batch(total, canonical_chunks(static_cast<long long>(req.window.bars))) >= total;
  t = Clock::now();
  w.on_device = collect_scores(ws, self, req, total, w.scores, nullptr);
  w.score_ms = ms_since(t);
  return w;
}

std::vector<Summary> window_summaries(SelectionWorkspace& ws, std::span<const uint64_t> ids) {
  std::vector<Summary> out(ids.size());
  if (ids.empty()) return out;
  // Each Summary into one page-locked buffer, then one wait: a few microseconds a copy.
  if (ws.host_summaries.size() < ids.size())
    ws.host_summaries = PinnedBuffer<Summary>(std::max<size_t>(ids.size(), 64));
  cudaStream_t stream = ws.side.get();
  for (size_t i = 0; i < ids.size(); ++i)
    WFOD_CUDA_CHECK(cudaMemcpyAsync(ws.host_summaries.data() + i, ws.blocks.data() + ids[i],
                                    sizeof(Summary), cudaMemcpyDeviceToHost, stream));
  WFOD_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::memcpy(static_cast<void*>(out.data()), ws.host_summaries.data(),
              ids.size() * sizeof(Summary));
  return out;
}

SelectionTiming last_selection_timing() { return g_timing; }
void record_selection_timing(const SelectionTiming& t) { g_timing = t; }

size_t robust_scores_bytes(uint64_t combos, size_t blocks, const selection::RobustOptions& opt,
                           const SweepRequest& req) {
  // Without PBO: the canonical chunk parts of one batch, the score arrays, the stencil's scores.
  if (!opt.pbo) {
    const int chunks = canonical_chunks(static_cast<long long>(req.window.bars));
    return canonical_batch(combos, chunks) * static_cast<uint64_t>(chunks) * sizeof(Summary) +
           combos * (3 * sizeof(double) + 2);
  }
  size_t bytes = combos * blocks * sizeof(Summary) + combos * (3 * sizeof(double) + 2);
  {
    const size_t S = opt.layout.blocks;
    const lean::Ranking rk = cscv_ranking(req, S / 2 * opt.layout.block_bars);
    const size_t doubles = static_cast<size_t>(std::max(lean_doubles(rk), 1));
    const uint64_t splits = n_choose_half(S);
    const uint64_t warps = cscv_walk_warps(static_cast<uint32_t>(combos)) + kWalkThreads / 32;
    // iota, take, ids, order, unchecked, lean columns
    bytes += combos * (4 + 1 + 4 + 4 + 1 + S * (8 * doubles + 9));
    bytes += warps * splits * (4 + 4 + 4);             // partials of both passes (no store)
    bytes += splits * (4 + 4 + 8 + 8 + 8 + 8) + 4096;  // per split
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
  const size_t per_combo = blocks * sizeof(Summary);
  const uint64_t chunk = staged_summary_chunk(total, per_combo, ws.blocks.size() * sizeof(Summary));
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
                                             const PreparedSweep& p, double prepare_ms,
                                             WindowScores* kept) {
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
    throw Unsupported("cuda robust_scores: " + std::to_string(total) + " combos x " +
                      std::to_string(blocks) + " blocks need " + std::to_string(need >> 20) +
                      " MiB on the device, " + std::to_string(have >> 20) +
                      " MiB free; the host pipeline runs instead");
  }

  // The last call's objective store is the first thing to give back when memory is short.
  if (need > free_device_bytes() + ws.blocks.size() * sizeof(Summary)) ws.store = {};

  selection::RobustScores out;
  CscvRun cscv;
  uint64_t cscv_excluded = 0;
  bool scores_on_device = false;  // ws.objective / ws.state are final
  auto t = Clock::now();
  if (opt.pbo) {
    ws.objective.ensure(total);
    ws.sharpe.ensure(total);
    ws.state.ensure(total);
    ws.flags.ensure(total);
    const double sqrt_bpy = std::sqrt(req.strategy.bars_per_year);
    const RankParams rp = rank_params_of(req.rank, req.strategy.bars_per_year);
    // 1. Block summaries, combo-major, every combo.
    ws.edges.upload(block_edges(req, cuts));
    ws.blocks.ensure(total * blocks);
    run_blocks(ws, p, static_cast<int>(blocks), 0, total, ws.blocks.data());
    WFOD_CUDA_CHECK(cudaDeviceSynchronize());
    timing.blocks_ms = ms_since(t);
    // 2. Window scores (blocks joined left to right).
    launch_window_scores(*p.tables, ws.blocks.data(), static_cast<int>(blocks),
                         static_cast<int>(opt.layout.first_cscv_block()),
                         static_cast<int>(opt.layout.blocks), total, rp, sqrt_bpy,
                         ws.objective.data(), ws.sharpe.data(), ws.state.data(), ws.flags.data());
    // 3. CSCV queued on the device (its setup waits for the scores kernel); the scores come
    // back on the side stream while its kernels run.
    const auto t_cscv = Clock::now();
    cscv = launch_device_cscv(ws, req, opt, total, timing);
    timing.cscv_ms = ms_since(t_cscv);
    t = Clock::now();
    scores_on_device = collect_scores(ws, self, req, total, out, &cscv_excluded);
    timing.score_ms = ms_since(t);
  } else {
    // 1-2. Without PBO: evaluate()'s canonical Summaries, scored (no CSCV), or what the
    // sweep of this request kept of them.
    WindowScores w = kept ? std::move(*kept) : device_window_scores(ws, self, req, p);
    out = std::move(w.scores);
    scores_on_device = w.on_device;
    timing.blocks_ms = kept ? 0.0 : w.blocks_ms;
    timing.score_ms = kept ? 0.0 : w.score_ms;
    if (kept) timing.path = "device: the sweep's canonical scores";
  }

  // 4. The plateau stencil over the final scores: while the CSCV kernels run when the scores
  // on the device are final, after CSCV otherwise.
  if (opt.plateau && scores_on_device)
    plateau_step(ws, opt, total, true, ws.side.get(), out, timing);
  if (opt.pbo) {
    t = Clock::now();
    out.pbo = finish_device_cscv(ws, cscv, opt, cscv_excluded, timing);
    timing.cscv_ms += ms_since(t);
  }
  if (opt.plateau && !scores_on_device) plateau_step(ws, opt, total, false, nullptr, out, timing);
  timing.total_ms = ms_since(t_start) + prepare_ms;
  g_timing = timing;
  return out;
}

}  // namespace wfod::cuda
