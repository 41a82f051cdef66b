// SPEC §5a's conditions at one bar, as the incremental host paths evaluate them (position
// trackers): the compiled postorder program run with a value stack over the bar's leaves,
// every number carrying its magnitude M for the dead band, crosses reading the previous bar's
// leaves. The scalar counterpart of the cpu backend's block evaluator (cpu/rules_eval.cpp):
// the same roundings, dead band, exact comparisons and "a non-finite operand is false", so
// both give cpu_ref's truths (cpu_ref/ref_rules.cpp, the oracle, keeps its own code). The
// evaluation itself is wfod/detail/rule_eval.hpp's, which the cuda backend runs too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wfod/detail/rule_eval.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::rules {

// What a program's leaves read at one bar: the five bar fields (by Field) and each declared
// indicator's value (by Program::indicators index; NaN where undefined, unused ones unread).
struct BarLeaves {
  std::array<double, 5> field{};
  std::vector<double> indicator;
};

class BarEvaluator {
 public:
  // Scratch sized for `program`'s conditions (their stack depths).
  explicit BarEvaluator(const Program& program);

  // Whether `c` holds at a bar whose leaves are `now`; `before` holds bar t-1's, or is null
  // at the anchor (a cross is false there). `values`: the combo's params, in program order.
  // An absent condition is false.
  bool holds(const Condition& c, const std::vector<double>& values, const BarLeaves& now,
             const BarLeaves* before);

  // The four conditions' code at a bar (src/rules/transitions.hpp: long_entry 1, long_exit 2,
  // short_entry 4, short_exit 8), every indicator they name being defined there.
  uint8_t code(const Program& program, const std::vector<double>& values, const BarLeaves& now,
               const BarLeaves* before);

 private:
  // The stacks of wfod/detail/rule_eval.hpp's rule_holds, sized to the program's depths.
  std::vector<detail::RuleNum> numbers_;
  std::vector<uint8_t> truths_;
};

}  // namespace wfod::rules
