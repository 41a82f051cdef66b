// SPEC §5a's transitions of a rules strategy's own target r_t, as the fast host paths run them
// (the cpu backend's block evaluator, position trackers): a bar's code (its four conditions'
// bits, or "undefined", or "filter closed") and r_{t-1} give r_t. One function
// (wfod/detail/rule_eval.hpp's rule_next_target, which the cuda backend's evaluator calls too)
// tabulated here, so every path moves the position the same way; cpu_ref keeps its own
// transcription (ref_rules.cpp).
#pragma once

#include <cstdint>

#include "wfod/detail/rule_eval.hpp"

namespace wfod::rules {

// A bar's code: long_entry 1 | long_exit 2 | short_entry 4 | short_exit 8 (the conditions that
// hold), or kUndefinedCode (an indicator named in the conditions, or the filter, undefined:
// flat), or kClosedCode (the vol filter closed: hold).
inline constexpr uint8_t kUndefinedCode = detail::kRuleUndefinedCode,
                         kClosedCode = detail::kRuleClosedCode;

// kNextTarget.next[r_{t-1} + 1][code] = r_t (detail::rule_next_target): from flat, +1 on
// long_entry, else -1 on short_entry; from long, -1 on short_entry, else 0 on long_exit; from
// short, +1 on long_entry, else 0 on short_exit; otherwise held.
struct NextTargetTable {
  int8_t next[3][18];
  constexpr NextTargetTable() : next{} {
    for (int p = 0; p < 3; ++p)
      for (unsigned code = 0; code < 18; ++code)
        next[p][code] = detail::rule_next_target(p - 1, code);
  }
};
inline constexpr NextTargetTable kNextTarget;

inline int8_t next_target(int8_t r1, uint8_t code) { return kNextTarget.next[r1 + 1][code]; }

}  // namespace wfod::rules
