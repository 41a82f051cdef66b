// BarEvaluator: one bar of SPEC §5a's conditions over a compiled postorder program. Each
// + - * / and each magnitude M rounded once in the order cpu_ref rounds them
// (-ffp-contract=off keeps them unfused), a ≻ b as a − b > δ·max(M(a), M(b)) or a > b where
// exact, false when an operand is not finite.
#include "bar_eval.hpp"

#include <cmath>

#include "wfod/indicators.hpp"

namespace wfod::rules {
namespace {

// a ≻ b. max(M(a), M(b)) written as the cpu backend's columns write it (a NaN magnitude
// behaves alike).
bool above(double av, double am, double bv, double bm, bool exact) {
  if (!std::isfinite(av) || !std::isfinite(bv)) return false;
  if (exact) return av > bv;
  return av - bv > kDeadBand * (am < bm ? bm : am);
}

}  // namespace

BarEvaluator::BarEvaluator(const Program& program) {
  size_t nodes = 1;
  for (const Condition& c : program.conditions) nodes += c.nodes.size();
  numbers_.reserve(nodes);
  scratch_.reserve(nodes);
  truths_.reserve(nodes);
}

BarEvaluator::Num BarEvaluator::leaf(const Node& n, const std::vector<double>& values,
                                     const BarLeaves& at) const {
  double v = 0;
  switch (n.op) {
    case Op::number:
      v = n.value;
      break;
    case Op::param:
      v = values[n.index];
      break;
    case Op::field:
      v = at.field[n.index];
      break;
    default:  // Op::indicator
      v = at.indicator[n.index];
  }
  return {v, std::abs(v)};
}

// One numeric node onto `stack`: a leaf read at the bar of `at`, or + - * / of the top two.
void BarEvaluator::step_number(const Node& n, const std::vector<double>& values,
                               const BarLeaves& at, std::vector<Num>& stack) const {
  if (n.op != Op::add && n.op != Op::sub && n.op != Op::mul && n.op != Op::div) {
    stack.push_back(leaf(n, values, at));
    return;
  }
  const Num b = stack.back();
  stack.pop_back();
  Num& a = stack.back();
  switch (n.op) {
    case Op::add:
      a = {a.v + b.v, a.m + b.m};
      break;
    case Op::sub:
      a = {a.v - b.v, a.m + b.m};
      break;
    case Op::mul:
      a = {a.v * b.v, a.m * b.m};
      break;
    default: {
      const double q = a.v / b.v;
      a = {q, (a.m + std::abs(q) * b.m) / std::abs(b.v)};
    }
  }
}

BarEvaluator::Num BarEvaluator::number_at(const std::vector<Node>& nodes, size_t begin, size_t end,
                                          const std::vector<double>& values, const BarLeaves& at) {
  scratch_.clear();
  for (size_t i = begin; i < end; ++i) step_number(nodes[i], values, at, scratch_);
  return scratch_.back();
}

bool BarEvaluator::holds(const Condition& c, const std::vector<double>& values,
                         const BarLeaves& now, const BarLeaves* before) {
  if (!c.present()) return false;
  const std::vector<Node>& nodes = c.nodes;
  numbers_.clear();
  truths_.clear();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    switch (n.op) {
      case Op::greater:
      case Op::less:
      case Op::crosses_above:
      case Op::crosses_below: {
        const Num b = numbers_.back();
        numbers_.pop_back();
        const Num a = numbers_.back();
        numbers_.pop_back();
        bool t;
        if (n.op == Op::greater) {
          t = above(a.v, a.m, b.v, b.m, n.exact);
        } else if (n.op == Op::less) {
          t = above(b.v, b.m, a.v, a.m, n.exact);
        } else if (before == nullptr) {
          t = false;  // never at the anchor
        } else {
          // The operands again at t-1: [lhs_begin, rhs_begin) and [rhs_begin, i).
          const Num a0 = number_at(nodes, n.lhs_begin, n.rhs_begin, values, *before);
          const Num b0 = number_at(nodes, n.rhs_begin, i, values, *before);
          // crosses_above(a, b): a ≺ b at t-1 and a ≻ b at t; crosses_below the mirror.
          t = n.op == Op::crosses_above
                  ? above(b0.v, b0.m, a0.v, a0.m, n.exact) && above(a.v, a.m, b.v, b.m, n.exact)
                  : above(a0.v, a0.m, b0.v, b0.m, n.exact) && above(b.v, b.m, a.v, a.m, n.exact);
        }
        truths_.push_back(t);
        break;
      }
      case Op::both:
      case Op::either: {
        const uint8_t y = truths_.back();
        truths_.pop_back();
        truths_.back() = n.op == Op::both ? (truths_.back() & y) : (truths_.back() | y);
        break;
      }
      case Op::negate:
        truths_.back() ^= 1;
        break;
      default:
        step_number(n, values, now, numbers_);
    }
  }
  return truths_.back() != 0;
}

uint8_t BarEvaluator::code(const Program& program, const std::vector<double>& values,
                           const BarLeaves& now, const BarLeaves* before) {
  uint8_t code = 0;
  for (size_t s = 0; s < kSlots; ++s)
    if (holds(program.conditions[s], values, now, before)) code |= static_cast<uint8_t>(1u << s);
  return code;
}

}  // namespace wfod::rules
