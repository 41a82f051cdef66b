// A prepared history (docs/architecture.md "The backend seam"): the object a backend makes
// with Backend::prepare and that owns what the backend keeps between calls on the same bars
// (the cuda backend: the uploaded bars, indicator rows, prefix sums, grid tables, and the
// scores and winner's returns a sweep keeps for the selection right after it). The caller
// holds it for as long as the calls that share it run (a walk: all its folds) and hands it
// to each in SweepRequest::prepared; dropping it releases what the backend holds for it.
#pragma once

#include <cstddef>

namespace wfod {

// What a preparation is asked for.
struct PrepareSpec {
  // Bars from the anchor to prepare in one go, so that every request on it whose window ends
  // by then reuses it: walk_forward asks for its last fold's end. 0 = the whole history given
  // to Backend::prepare. Never changes a result: everything prepared for bar t depends only
  // on bars <= t (SPEC §4's indicators are causal).
  size_t bars = 0;
  // The caller scores every combo of each window right after its sweep: robust selection
  // without PBO (RobustOptions.pbo off) on that same request. A backend that scores a grid in
  // its canonical summation order (cuda) then ranks the sweep from those scores, in one pass
  // over the grid instead of two, and keeps them here for that robust_scores call (and the
  // raw winner's returns for select()). Never changes a result.
  bool keep_scores = false;
  // The caller runs robust selection with PBO over this many CSCV blocks
  // (selection::cscv_layout) on each sweep's request right after it; 0: none follows. A
  // backend whose sweep can (cpu) computes every combo's block Summaries in the sweep's own
  // pass and keeps them here for that block_summaries call, which then evaluates nothing
  // again. Never changes a result.
  size_t pbo_blocks = 0;
};

// PrepareSpec::bars resolved against a history of `history_bars` bars from the anchor.
inline size_t prepared_bars(size_t asked, size_t history_bars) {
  return asked == 0 || asked > history_bars ? history_bars : asked;
}

// The base holds only what was asked; a backend that prepares (cuda) derives from it and
// keeps its state in the derived object. The cpu backends prepare nothing: their sweeps
// build their rows per call, so they hand out the base.
class PreparedHistory {
 public:
  explicit PreparedHistory(const PrepareSpec& spec) : spec_(spec) {}
  virtual ~PreparedHistory() = default;
  PreparedHistory(const PreparedHistory&) = delete;
  PreparedHistory& operator=(const PreparedHistory&) = delete;

  // Bars from the anchor it covers (PrepareSpec::bars, resolved: prepared_bars).
  size_t bars() const { return spec_.bars; }
  bool keeps_scores() const { return spec_.keep_scores; }
  size_t pbo_blocks() const { return spec_.pbo_blocks; }

 private:
  PrepareSpec spec_;
};

}  // namespace wfod
