// A rules combo (SPEC §5a, with §5b's stops) walked on the device: its target r_t from the
// evaluator written once for host and device (wfod/detail/rule_eval.hpp's rule_next: the
// undefined rule, the vol filter, the conditions the transition reads), the stops and the
// walk from wfod/detail/stop_walk.hpp (the stop evaluator's), each bar accounted by RangeWalk
// as the block Summaries are. Its entering state is walked from the combo's start (the bar
// before which every bar is undefined: r = p = 0 there), so every range's Summary is exact
// whatever its first bar. Built with -fmad=false (rules_sweep.cu): no multiply-add the host
// does not make, in the conditions' arithmetic or the stop levels.
#pragma once

#include <cstdint>

#include "rules_tables.cuh"
#include "tally.cuh"
#include "wfod/detail/rule_eval.hpp"
#include "wfod/detail/stop_step.hpp"
#include "wfod/detail/stop_walk.hpp"
#include "wfod/summary.hpp"

namespace wfod::cuda {

struct RuleCombo {
  detail::RuleComboView view;
  detail::StopLevels<double, bool> levels;
  bool stops;  // some stop acts (a combo whose stops are all 0 walks without the stop state)
  long long start;
};

__device__ inline RuleCombo load_rule_combo(const RuleTables& rt, unsigned long long i) {
  const RuleComboData& d = rt.combos[i];
  RuleCombo c;
  c.view.values = rt.values + i * rt.n_params;
  c.view.row_of = rt.row_of + i * rt.n_ind;
  c.view.vol_short = d.vol_short;
  c.view.vol_long = d.vol_long;
  c.view.threshold = d.threshold;
  c.levels = detail::stop_levels_of(d.stop_loss, d.take_profit, d.trailing_stop);
  c.stops = d.stop_loss != 0 || d.take_profit != 0 || d.trailing_stop != 0;
  c.start = d.start;
  return c;
}

// next(t, r_{t-1}) of stop_walk.hpp for one combo, with the thread's evaluation stacks.
struct RuleNext {
  const detail::RuleProgramView& program;
  const detail::RuleComboView& combo;
  detail::RuleNum nums[kRuleStack];
  uint8_t truths[kRuleStack];
  __device__ double operator()(long long t, double r_prev) {
    return detail::rule_next(program, combo, t, r_prev, nums, truths);
  }
};

// SPEC §4's dead band between a close and a stop level (as the host's db_greater).
struct RuleGreater {
  __device__ bool operator()(double x, double y) const { return detail::rule_db_greater(x, y); }
};

// The state entering bar f: the anchor's at the combo's start, then every bar stepped.
__device__ inline detail::ComboState rule_state_entering(RuleNext& next, const RuleCombo& c,
                                                         const RuleTables& rt, long long f) {
  detail::ComboState s;
  for (long long t = c.start < f ? c.start : f; t < f; ++t)
    detail::walk_step(next, c.stops, c.levels, rt.close, rt.entry_open, t, s, RuleGreater{});
  return s;
}

// Walks bars [first, last) from s (entering first) into a Summary; s is left entering last.
__device__ inline Summary rule_walk_summary(RuleNext& next, const RuleCombo& c,
                                            const RuleTables& rt, long long first, long long last,
                                            detail::ComboState& s) {
  const double head_pos = s.p2;
  RangeWalk<true> walk;  // predicated: a warp's lanes change position at different bars
  auto visit = [&](long long t, double a, double b) {
    walk.bar(a, b, rt.gap[t], rt.body[t], rt.cost);
  };
  detail::walk_bars(next, c.stops, c.levels, rt.close, rt.entry_open, first, last, s, RuleGreater{},
                    visit);
  return walk.summary(first, last, head_pos, s.p2);
}

}  // namespace wfod::cuda
