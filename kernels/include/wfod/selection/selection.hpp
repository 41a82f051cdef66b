// Robust selection of one window (docs/spec-10-selection.md): scores every combo from block
// summaries, then plateau centre, DSR, PBO and the hysteresis decision against the current
// combo. What wfo sweep/walk print and the daemon publishes after each sweep.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/selection/dsr.hpp"
#include "wfod/selection/hysteresis.hpp"
#include "wfod/selection/pbo.hpp"
#include "wfod/selection/plateau.hpp"
#include "wfod/selection/robust_scores.hpp"
#include "wfod/selection/selection_spec.hpp"
#include "wfod/selection/window_source.hpp"

namespace wfod::selection {

// Every combo of the grid on the request's window.
struct GridScores {
  std::vector<double> objective;  // NaN for invalid combos
  std::vector<double> sharpe;     // per period (SPEC §6 sharpe / sqrt(A)); NaN for invalid
  std::vector<ComboState> state;
  uint64_t valid = 0, ranked = 0;
  // The block summaries they came from (combo-major, layout.total_blocks() per combo).
  BlockLayout layout;
  std::vector<Summary> blocks;
};

// One block_summaries() call with `layout`'s cuts (none: one block); combos whose equity
// reaches zero are re-evaluated through evaluate (spec-notes 5).
GridScores score_grid(WindowSource&, const BlockLayout& layout);
GridScores score_grid(Backend&, const SweepRequest&, const BlockLayout& layout);
// score_grid's second half: the scores from g.blocks (block_summaries with g.layout's cuts).
void score_blocks(WindowSource&, GridScores& g);
// The same scores through evaluate in chunks of ids (no block summaries kept).
GridScores score_grid_by_evaluate(WindowSource&);
GridScores score_grid_by_evaluate(Backend&, const SweepRequest&);

// Strategy returns s_t of one combo over the request's window.
std::vector<double> window_returns(Backend&, const SweepRequest&, const Combo&);

// Wall time of one select() call, in seconds: the whole call, the robust_scores
// part (block Summaries, window scores, CSCV, plateau: the grid-sized work) and, where the
// backend measures them, its parts. The rest is DSR's winner returns and the published
// combo's metrics.
struct SelectionTiming {
  double total_seconds = 0;
  double robust_seconds = 0;
  std::optional<RobustTiming> parts;
};

struct SelectionReport {
  std::optional<Ranked> raw;             // the sweep's arg-max (SPEC §7)
  std::optional<PlateauWinner> plateau;  // plateau mode: the best neighbourhood's centre
  std::optional<Ranked> winner;          // the new winner: plateau centre if on, else raw
  // The current combo on this window, when given; its objective is the plateau score in
  // plateau mode (what the winner is compared by).
  std::optional<Incumbent> current;
  Decision decision;                // hysteresis (and the DSR gate)
  std::optional<Ranked> published;  // decision.id with its metrics on this window
  std::optional<DsrResult> dsr;     // of the winner
  bool dsr_passes = true;           // min_dsr absent, or dsr >= min_dsr
  std::optional<PboResult> pbo;
  BlockLayout pbo_layout;   // the blocks PBO used
  std::string pbo_skipped;  // why there is no PBO (empty when there is)
  SelectionTiming timing;
};

// Whether select() runs PBO on a window of `window_bars` bars where `valid` combos are valid;
// if not, why (into *why: select()'s pbo_skipped). Without PBO select() scores every combo of
// the window in one pass (a preparation that keeps scores, PrepareSpec::keep_scores, lets the
// sweep before it share it).
bool pbo_applies(const SelectionSpec&, uint64_t valid, size_t window_bars,
                 std::string* why = nullptr);

// `current`: the combo published before (by id in this grid), if any. `result`: the sweep
// (or stream advance) of the same window. On a stream's window, StreamWindow(stream, spec)
// answers from the stream's bounded state: the same report to the bit as BackendWindow on
// the history from the anchor, given the same `result`.
SelectionReport select(WindowSource&, const SweepResult& result, std::optional<uint64_t> current,
                       const SelectionSpec&);
SelectionReport select(Backend&, const SweepRequest&, const SweepResult& result,
                       std::optional<uint64_t> current, const SelectionSpec&);

}  // namespace wfod::selection
