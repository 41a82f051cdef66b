// BarEvaluator: one bar of SPEC §5a's conditions over a compiled postorder program, through
// the evaluator written once for host and device (wfod/detail/rule_eval.hpp: each + - * / and
// each magnitude M rounded once in the order cpu_ref rounds them, -ffp-contract=off keeping
// them unfused; a ≻ b as a − b > δ·max(M(a), M(b)) or a > b where exact; false when an operand
// is not finite). The cuda backend's rules evaluator runs the same source.
#include "bar_eval.hpp"

#include "wfod/detail/rule_eval.hpp"

namespace wfod::rules {

BarEvaluator::BarEvaluator(const Program& program) {
  size_t numbers = 1, truths = 1;
  for (const Condition& c : program.conditions) detail::rule_stack_depths(c, numbers, truths);
  numbers_.resize(numbers);
  truths_.resize(truths);
}

bool BarEvaluator::holds(const Condition& c, const std::vector<double>& values,
                         const BarLeaves& now, const BarLeaves* before) {
  if (!c.present()) return false;
  auto leaf_of = [](const BarLeaves& at) {
    return [&at](const Node& n) {
      return n.op == Op::field ? at.field[n.index] : at.indicator[n.index];
    };
  };
  auto at_now = leaf_of(now);
  auto at_before = leaf_of(before ? *before : now);  // unread without a bar before
  return detail::rule_holds(c.nodes.data(), static_cast<uint32_t>(c.nodes.size()), values.data(),
                            at_now, at_before, before != nullptr, numbers_.data(), truths_.data());
}

uint8_t BarEvaluator::code(const Program& program, const std::vector<double>& values,
                           const BarLeaves& now, const BarLeaves* before) {
  uint8_t code = 0;
  for (size_t s = 0; s < kSlots; ++s)
    if (holds(program.conditions[s], values, now, before)) code |= static_cast<uint8_t>(1u << s);
  return code;
}

}  // namespace wfod::rules
