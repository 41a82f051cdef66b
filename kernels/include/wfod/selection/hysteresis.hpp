// Hysteresis between published parameters (docs/spec-10-selection.md §10.1): keep the
// current combo unless the new winner beats it on the same window by a margin, or the
// current one no longer qualifies.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "wfod/selection/selection_spec.hpp"

namespace wfod::selection {

// Why the published combo is what it is.
enum class Reason {
  first,                     // nothing was published before: the winner is published
  same,                      // the winner is the current combo
  beats_margin,              // the winner beats the current combo by more than the margin
  held,                      // the winner does not beat it by the margin: current kept
  current_not_in_grid,       // the current id is outside the grid: replaced
  current_invalid,           // the current combo is invalid in this grid: replaced
  current_fails_constraint,  // the current combo fails a constraint on this window: replaced
  no_winner_held,            // nothing ranked this window, the current combo still qualifies
  no_winner,                 // nothing ranked and nothing (qualifying) to hold: publish none
  dsr_below_min,             // the winner's DSR is below min_dsr: current kept (or none)
};
std::string_view to_string(Reason);

// The current combo, scored on this window.
struct Incumbent {
  uint64_t id = 0;
  bool in_grid = true;
  bool valid = true;
  bool passes = true;  // passes the SPEC §7 constraints on this window
  double objective = 0;
};

struct Candidate {
  uint64_t id = 0;
  double objective = 0;
};

struct Decision {
  std::optional<uint64_t> id;  // the combo to publish (none: nothing qualifies)
  bool changed = false;        // id differs from the current combo's
  Reason reason = Reason::first;
  double margin = 0;  // the margin the winner had to beat (0 when not compared)
};

// Margin the winner must beat: max(abs, rel * |current objective|) (0 for a NaN current).
double hysteresis_margin(double current_objective, const SelectionSpec&);

// `dsr_ok` is false when the winner fails the min_dsr gate. Pure: no scoring here.
Decision decide(const std::optional<Candidate>& winner, const std::optional<Incumbent>& current,
                const SelectionSpec&, bool dsr_ok = true);

}  // namespace wfod::selection
