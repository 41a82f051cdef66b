// The robust-selection pipeline for one window (docs/spec-10-selection.md): one
// block_summaries pass scores the grid and feeds CSCV; the rest is arithmetic on those
// scores plus one positions() call for the winner's returns (DSR moments).
#include "wfod/selection/selection.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "src/growth_refine.hpp"
#include "wfod/combo_returns.hpp"
#include "wfod/selection/robust_scores.hpp"
#include "wfod/selection/selection_extension.hpp"
#include "wfod/selection/window_source.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod::selection {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Ranked ranked_of(WindowSource& src, uint64_t id, const std::optional<Ranked>& known) {
  if (known && known->combo.id == id) return *known;
  const uint64_t ids[1] = {id};
  Metrics m = src.evaluate(ids).front();
  const Combo combo = src.strategy().grid.decode(id);
  // A combo the run reports: its growth metrics from the exact total return, as the sweep's
  // top-K (src/growth_refine.hpp).
  const double annual = src.strategy().bars_per_year;
  if (!detail::plain_growth_suffices(m, annual))
    detail::set_total_return(m, detail::exact_total_return(src.window_returns(combo)), annual);
  return Ranked{combo, m, objective_value(m, src.rank().objective)};
}

// Records one valid combo's standing from its window metrics.
void set_score(GridScores& g, uint64_t id, const Metrics& m, const WindowSource& src) {
  ++g.valid;
  g.objective[id] = objective_value(m, src.rank().objective);
  g.sharpe[id] = m.sharpe / std::sqrt(src.strategy().bars_per_year);  // per period
  g.state[id] = ComboState::unranked;
  if (passes_constraints(m, src.rank())) {
    g.state[id] = ComboState::ranked;
    ++g.ranked;
  }
}

}  // namespace

GridScores score_grid(WindowSource& src, const BlockLayout& layout) {
  GridScores g;
  g.layout = layout;
  g.blocks = src.block_summaries(layout.cuts);
  score_blocks(src, g);
  return g;
}

void score_blocks(WindowSource& src, GridScores& g) {
  const BlockLayout& layout = g.layout;
  const Grid& grid = src.strategy().grid;
  const uint64_t total = grid.size();
  const size_t stride = layout.total_blocks();
  const double annual = src.strategy().bars_per_year;
  g.objective.assign(total, kNaN);
  g.sharpe.assign(total, kNaN);
  g.state.assign(total, ComboState::invalid);
  std::vector<uint64_t> replay;  // equity reached zero: the combine's drawdown does not hold
  for (uint64_t id = 0; id < total; ++id) {
    if (!grid.decode(id).valid()) continue;
    Summary s;
    for (size_t b = 0; b < stride; ++b) s = combine(s, g.blocks[id * stride + b]);
    if (s.nonpositive) {
      replay.push_back(id);
    } else {
      set_score(g, id, finalize(s, annual), src);
    }
  }
  if (!replay.empty()) {
    const std::vector<Metrics> exact = src.evaluate(replay);
    for (size_t i = 0; i < replay.size(); ++i) set_score(g, replay[i], exact[i], src);
  }
}

GridScores score_grid_by_evaluate(WindowSource& src) {
  GridScores g;
  const Grid& grid = src.strategy().grid;
  const uint64_t total = grid.size();
  g.objective.assign(total, kNaN);
  g.sharpe.assign(total, kNaN);
  g.state.assign(total, ComboState::invalid);
  // Chunks bound the Metrics held at once, whatever the grid's size.
  constexpr size_t kChunk = size_t{1} << 16;
  std::vector<uint64_t> ids;
  ids.reserve(kChunk);
  auto flush = [&] {
    if (ids.empty()) return;
    const std::vector<Metrics> m = src.evaluate(ids);
    for (size_t i = 0; i < ids.size(); ++i) set_score(g, ids[i], m[i], src);
    ids.clear();
  };
  for (uint64_t id = 0; id < total; ++id) {
    if (!grid.decode(id).valid()) continue;
    ids.push_back(id);
    if (ids.size() == kChunk) flush();
  }
  flush();
  return g;
}

GridScores score_grid(Backend& backend, const SweepRequest& req, const BlockLayout& layout) {
  BackendWindow src(backend, req);
  return score_grid(src, layout);
}

GridScores score_grid_by_evaluate(Backend& backend, const SweepRequest& req) {
  BackendWindow src(backend, req);
  return score_grid_by_evaluate(src);
}

std::vector<double> window_returns(Backend& backend, const SweepRequest& req, const Combo& c) {
  return combo_returns(backend, req.history, req.strategy, c, req.window.first(), req.window.end);
}

RobustScores host_robust_scores(WindowSource& src, const RobustOptions& options) {
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  RobustScores out;
  RobustTiming timing;
  auto t = Clock::now();
  GridScores g;
  if (options.pbo) {
    g.layout = options.layout;
    g.blocks = src.block_summaries(options.layout.cuts);
    timing.blocks_seconds = seconds_since(t);
    t = Clock::now();
    score_blocks(src, g);
    timing.scores_seconds = seconds_since(t);
  } else {
    g = score_grid_by_evaluate(src);
    timing.blocks_seconds = seconds_since(t);
  }
  if (options.pbo) {
    t = Clock::now();
    const BlockLayout& l = options.layout;
    std::vector<uint8_t> take(g.state.size());
    for (size_t i = 0; i < take.size(); ++i) take[i] = g.state[i] != ComboState::invalid;
    out.pbo = cscv_pbo(g.blocks, take, l.total_blocks(), l.first_cscv_block(), l.blocks, src.rank(),
                       src.strategy().bars_per_year, src.threads(), options.hist_bins);
    timing.cscv_seconds = seconds_since(t);
  }
  out.objective = std::move(g.objective);
  out.sharpe = std::move(g.sharpe);
  out.state = std::move(g.state);
  out.valid = g.valid;
  out.ranked = g.ranked;
  g.blocks = {};  // before the stencil: the summaries are the big part
  if (options.plateau) {
    t = Clock::now();
    const PlateauRequest& p = *options.plateau;
    out.plateau = plateau_select(p.axis_sizes, p.radii, out.objective, out.state, p.stat,
                                 &out.plateau_scores);
    timing.plateau_seconds = seconds_since(t);
  }
  out.timing = timing;
  return out;
}

std::vector<Metrics> BackendWindow::evaluate(std::span<const uint64_t> ids) {
  return backend_.evaluate(request_, ids);
}
std::vector<Summary> BackendWindow::block_summaries(std::span<const size_t> cuts) {
  return backend_.block_summaries(request_, cuts);
}
std::vector<double> BackendWindow::window_returns(const Combo& combo) {
  return selection::window_returns(backend_, request_, combo);
}
std::optional<std::vector<double>> BackendWindow::kept_returns(const Combo& combo) {
  SelectionExtension* extension = backend_.selection();
  return extension ? extension->kept_returns(request_, combo) : std::nullopt;
}
RobustScores BackendWindow::robust_scores(const RobustOptions& options) {
  return selection::robust_scores(backend_, request_, options);
}

RobustScores host_robust_scores(Backend& backend, const SweepRequest& req,
                                const RobustOptions& options) {
  BackendWindow src(backend, req);
  return host_robust_scores(src, options);
}

RobustScores robust_scores(Backend& backend, const SweepRequest& req,
                           const RobustOptions& options) {
  // A device backend does it all where the summaries are; when its plan does not fit the
  // device it says so (wfod::Unsupported) and the host pipeline runs. Any other
  // std::invalid_argument also goes to the host pipeline, as it always has: the host then
  // names the input error in its own words.
  SelectionExtension* extension = backend.selection();
  if (extension == nullptr) return host_robust_scores(backend, req, options);
  try {
    return extension->robust_scores(req, options);
  } catch (const std::invalid_argument&) {
    return host_robust_scores(backend, req, options);
  }
}

WindowSpec StreamWindow::window() const {
  return WindowSpec{stream_.stats().bars, spec_.window, spec_.warmup};
}
std::vector<Metrics> StreamWindow::evaluate(std::span<const uint64_t> ids) {
  return stream_.evaluate(ids);
}
std::vector<Summary> StreamWindow::block_summaries(std::span<const size_t> cuts) {
  return stream_.block_summaries(cuts);
}
std::vector<double> StreamWindow::window_returns(const Combo& combo) {
  const WindowSpec w = window();
  return stream_.returns(combo, w.first(), w.end);
}
RobustScores StreamWindow::robust_scores(const RobustOptions& options) {
  return host_robust_scores(*this, options);
}

bool pbo_applies(const SelectionSpec& spec, uint64_t valid, size_t window_bars, std::string* why) {
  const char* skipped = nullptr;
  if (spec.pbo_blocks == 0) {
    skipped = "pbo_blocks = 0";
  } else if (spec.pbo_blocks > window_bars) {
    skipped = "window shorter than pbo_blocks";
  } else if (valid > spec.pbo_max_combos) {
    skipped = "more valid combos than pbo_max_combos";
  }
  if (skipped && why) *why = skipped;
  return skipped == nullptr;
}

SelectionReport select(WindowSource& src, const SweepResult& result,
                       std::optional<uint64_t> current, const SelectionSpec& spec) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  SelectionReport rep;
  const Grid& grid = src.strategy().grid;
  const WindowSpec window = src.window();
  if (!result.top.empty()) rep.raw = result.top.front();

  // PBO needs S blocks of at least one bar and a grid small enough for C(S, S/2) splits.
  RobustOptions options;
  if (pbo_applies(spec, result.evaluated, window.bars, &rep.pbo_skipped)) {
    options.layout = cscv_layout(window, spec.pbo_blocks);
    options.pbo = true;
  }
  if (spec.plateau) {
    PlateauRequest p;
    for (const AxisInfo& a : grid.axes()) p.axis_sizes.push_back(a.size);
    p.radii = plateau_radii(grid, spec);
    p.stat = spec.plateau_stat;
    options.plateau = std::move(p);
  }
  // One grid pass: with PBO the block summaries score the grid and feed CSCV; without,
  // evaluate() in chunks keeps memory small on large grids (no Summary per combo).
  // Without plateau mode the winner is the raw arg-max, known before the grid is scored: where
  // the source allows it, its DSR returns are computed on another thread meanwhile (the cuda
  // backend answers them on the host while the device scores the grid).
  // Or the source holds them already (the cuda sweep's raw winner, kept in the request's
  // preparation: PrepareSpec::keep_scores).
  std::optional<std::vector<double>> kept_raw_returns;
  if (!spec.plateau && rep.raw) kept_raw_returns = src.kept_returns(rep.raw->combo);
  // The overlap runs on one of the engine's parked worker threads (run_workers: the scores on
  // this thread, the returns on the other; a refused thread runs them one after the other).
  std::optional<std::vector<double>> raw_returns;
  const auto robust_start = Clock::now();
  RobustScores scores;
  auto score_grid = [&] {
    scores = src.robust_scores(options);
    rep.timing.robust_seconds = std::chrono::duration<double>(Clock::now() - robust_start).count();
  };
  if (!kept_raw_returns && !spec.plateau && rep.raw && src.returns_overlap_scores()) {
    run_workers(2, [&](int worker) {
      if (worker == 0)
        score_grid();
      else
        raw_returns = src.window_returns(rep.raw->combo);
    });
  } else {
    score_grid();
  }
  rep.timing.parts = scores.timing;
  if (options.pbo) {
    rep.pbo_layout = options.layout;
    rep.pbo = std::move(scores.pbo);
  }

  // The new winner: the raw arg-max, or the best plateau centre. `criterion` is what
  // hysteresis compares: the objective, or in plateau mode the plateau score (comparing raw
  // objectives there would let a lone spike hold off every plateau for ever).
  const std::vector<double>* criterion = &scores.objective;
  if (spec.plateau) {
    rep.plateau = scores.plateau;
    criterion = &scores.plateau_scores;
    if (rep.plateau) rep.winner = ranked_of(src, rep.plateau->id, rep.raw);
  } else {
    rep.winner = rep.raw;
  }

  if (rep.winner) {
    std::vector<double> sharpes;
    sharpes.reserve(scores.valid);
    for (uint64_t id = 0; id < scores.state.size(); ++id)
      if (scores.state[id] != ComboState::invalid) sharpes.push_back(scores.sharpe[id]);
    DsrInputs in;
    in.trials = scores.valid;
    in.sharpe_var = sample_variance(sharpes);
    in.winner = return_moments(kept_raw_returns ? std::move(*kept_raw_returns)
                               : raw_returns    ? std::move(*raw_returns)
                                                : src.window_returns(rep.winner->combo));
    rep.dsr = deflated_sharpe(in);
    rep.dsr_passes = !spec.min_dsr || rep.dsr->dsr >= *spec.min_dsr;  // NaN fails
  }

  if (current) {
    Incumbent inc;
    inc.id = *current;
    inc.in_grid = *current < grid.size();
    inc.valid = inc.in_grid && scores.state[*current] != ComboState::invalid;
    inc.passes = inc.valid && scores.state[*current] == ComboState::ranked;
    inc.objective = inc.valid ? (*criterion)[*current] : kNaN;
    rep.current = inc;
  }
  std::optional<Candidate> cand;
  // Both sides scored from the same summaries, so a tie is a tie to the last bit.
  if (rep.winner) cand = Candidate{rep.winner->combo.id, (*criterion)[rep.winner->combo.id]};
  rep.decision = decide(cand, rep.current, spec, rep.dsr_passes);
  if (rep.decision.id) rep.published = ranked_of(src, *rep.decision.id, rep.winner);
  rep.timing.total_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return rep;
}

SelectionReport select(Backend& backend, const SweepRequest& req, const SweepResult& result,
                       std::optional<uint64_t> current, const SelectionSpec& spec) {
  BackendWindow src(backend, req);
  return select(src, result, current, spec);
}

}  // namespace wfod::selection
