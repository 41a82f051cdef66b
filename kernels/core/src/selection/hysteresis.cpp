// Hysteresis decision (docs/spec-10-selection.md §10.1): a pure function of the winner, the
// current combo's standing on the same window, and the margins.
#include "wfod/selection/hysteresis.hpp"

#include <algorithm>
#include <cmath>

#include "wfod/ranking.hpp"

namespace wfod::selection {

std::string_view to_string(Reason r) {
  switch (r) {
    case Reason::first:
      return "first";
    case Reason::same:
      return "same";
    case Reason::beats_margin:
      return "beats_margin";
    case Reason::held:
      return "held";
    case Reason::current_not_in_grid:
      return "current_not_in_grid";
    case Reason::current_invalid:
      return "current_invalid";
    case Reason::current_fails_constraint:
      return "current_fails_constraint";
    case Reason::no_winner_held:
      return "no_winner_held";
    case Reason::no_winner:
      return "no_winner";
    case Reason::dsr_below_min:
      return "dsr_below_min";
  }
  return "?";
}

double hysteresis_margin(double current_objective, const SelectionSpec& spec) {
  const double rel =
      std::isfinite(current_objective) ? spec.hysteresis_rel * std::fabs(current_objective) : 0.0;
  return std::max(spec.hysteresis_abs, rel);
}

Decision decide(const std::optional<Candidate>& winner, const std::optional<Incumbent>& current,
                const SelectionSpec& spec, bool dsr_ok) {
  Decision d;
  if (!current) {
    if (!winner) return {std::nullopt, false, Reason::no_winner, 0};
    if (!dsr_ok) return {std::nullopt, false, Reason::dsr_below_min, 0};
    return {winner->id, true, Reason::first, 0};
  }
  const Incumbent& cur = *current;
  // A NaN objective is never ranked above anything (ranking.cpp), so such a current combo
  // no longer qualifies, like one failing a constraint.
  Reason unqualified = Reason::first;
  if (!cur.in_grid) {
    unqualified = Reason::current_not_in_grid;
  } else if (!cur.valid) {
    unqualified = Reason::current_invalid;
  } else if (!cur.passes || std::isnan(cur.objective)) {
    unqualified = Reason::current_fails_constraint;
  }
  const bool qualifies = unqualified == Reason::first;
  if (!winner) {
    if (qualifies) return {cur.id, false, Reason::no_winner_held, 0};
    return {std::nullopt, true, Reason::no_winner, 0};
  }
  if (winner->id == cur.id) return {cur.id, false, Reason::same, 0};
  if (!qualifies) {
    if (!dsr_ok) return {std::nullopt, true, Reason::dsr_below_min, 0};
    return {winner->id, true, unqualified, 0};
  }
  d.margin = hysteresis_margin(cur.objective, spec);
  // No margin: the SPEC §7 order (ties by lower id), so that hysteresis off publishes exactly
  // the arg-max. Else a difference, so that +inf against +inf is NaN: held, not replaced.
  const bool beats = d.margin == 0
                         ? ranks_before(winner->objective, winner->id, cur.objective, cur.id)
                         : winner->objective - cur.objective > d.margin;
  if (beats) {
    if (!dsr_ok) {
      d.id = cur.id;
      d.reason = Reason::dsr_below_min;
      return d;
    }
    d.id = winner->id;
    d.changed = true;
    d.reason = Reason::beats_margin;
    return d;
  }
  d.id = cur.id;
  d.reason = Reason::held;
  return d;
}

}  // namespace wfod::selection
