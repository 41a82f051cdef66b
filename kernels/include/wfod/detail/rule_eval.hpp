// SPEC §5a's per-bar decision of a rules combo, written once for host and device (WFOD_HD):
// a condition's compiled postorder program run with a value stack (every number carrying its
// magnitude M for the dead band, crosses reading bar t-1), §5a's transitions as one function,
// and the whole r_t step (undefined rule, vol filter, the conditions the transition from
// r_{t-1} reads). The core's scalar evaluator (src/rules/bar_eval.cpp: position trackers) and
// the cuda backend's rules evaluator (kernels/cuda/rules_eval.cuh) both run this source;
// cpu_ref keeps its own (cpu_ref/ref_rules.cpp, the oracle), and the cpu backend's block
// evaluator its columns (cpu/rules_eval.cpp). Each + - * / and each M is rounded once in
// cpu_ref's order: host code builds with -ffp-contract=off, device code with -fmad=false.
#pragma once

#include <math.h>

#include <cstddef>
#include <cstdint>

#include "wfod/detail/hd.hpp"
#include "wfod/indicators.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::detail {

// A number of a condition and its magnitude M (SPEC §5a).
struct RuleNum {
  double v, m;
};

// The largest finite double: |x| <= it is false for NaN and the infinities.
inline constexpr double kRuleFiniteMax = 1.7976931348623157e308;

// a ≻ b: a − b > δ·max(M(a), M(b)), or a > b where the comparison is exact; false when an
// operand is not finite (max written as the cpu backend's columns write it).
WFOD_HD inline bool rule_above(double av, double am, double bv, double bm, bool exact) {
  if (!(fabs(av) <= kRuleFiniteMax) || !(fabs(bv) <= kRuleFiniteMax)) return false;
  if (exact) return av > bv;
  return av - bv > kDeadBand * (am < bm ? bm : am);
}

// SPEC §4's x ≻ y between two plain values (the vol filter's ratio against its threshold), as
// wfod::db_greater.
WFOD_HD inline bool rule_db_greater(double x, double y) {
  const double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
  return x - y > kDeadBand * (ax > ay ? ax : ay);
}

// a op b for op in + - * /, with M(a±b) = M(a)+M(b), M(a·b) = M(a)·M(b),
// M(a/b) = (M(a) + |a/b|·M(b)) / |b|, each rounded once.
WFOD_HD inline RuleNum rule_arith(rules::Op op, RuleNum a, RuleNum b) {
  switch (op) {
    case rules::Op::add:
      return {a.v + b.v, a.m + b.m};
    case rules::Op::sub:
      return {a.v - b.v, a.m + b.m};
    case rules::Op::mul:
      return {a.v * b.v, a.m * b.m};
    default: {
      const double q = a.v / b.v;
      return {q, (a.m + fabs(q) * b.m) / fabs(b.v)};
    }
  }
}

WFOD_HD inline bool rule_is_arith(rules::Op op) {
  return op == rules::Op::add || op == rules::Op::sub || op == rules::Op::mul ||
         op == rules::Op::div;
}

// One numeric node onto nums[top]: a leaf (a literal, the combo's parameter from `values`, or
// leaf(node) for a field or an indicator at the bar being read), or + - * / of the top two.
template <typename Leaf>
WFOD_HD inline void rule_step_number(const rules::Node& n, const double* values, Leaf& leaf,
                                     RuleNum* nums, uint32_t& top) {
  if (rule_is_arith(n.op)) {
    --top;
    nums[top - 1] = rule_arith(n.op, nums[top - 1], nums[top]);
    return;
  }
  const double v = n.op == rules::Op::number  ? n.value
                   : n.op == rules::Op::param ? values[n.index]
                                              : leaf(n);
  nums[top++] = {v, fabs(v)};
}

// Whether the condition nodes[0, count) (count >= 1) holds at bar t, its leaves read by
// now(node) at t and before(node) at t-1 (has_before false at the anchor: a cross is false
// there). nums and truths hold the condition's stack depths (rule_stack_depths): a cross
// evaluates its operands again at t-1 above the stack's top, within the same depth.
template <typename Now, typename Before>
WFOD_HD inline bool rule_holds(const rules::Node* nodes, uint32_t count, const double* values,
                               Now& now, Before& before, bool has_before, RuleNum* nums,
                               uint8_t* truths) {
  using rules::Op;
  uint32_t ns = 0, ts = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const rules::Node& n = nodes[i];
    switch (n.op) {
      case Op::greater:
      case Op::less:
      case Op::crosses_above:
      case Op::crosses_below: {
        const RuleNum b = nums[--ns];
        const RuleNum a = nums[--ns];
        bool t;
        if (n.op == Op::greater) {
          t = rule_above(a.v, a.m, b.v, b.m, n.exact);
        } else if (n.op == Op::less) {
          t = rule_above(b.v, b.m, a.v, a.m, n.exact);
        } else if (!has_before) {
          t = false;  // never at the anchor
        } else {
          // The operands again at t-1: [lhs_begin, rhs_begin) and [rhs_begin, i).
          uint32_t top = ns;
          for (uint32_t k = n.lhs_begin; k < n.rhs_begin; ++k)
            rule_step_number(nodes[k], values, before, nums, top);
          for (uint32_t k = n.rhs_begin; k < i; ++k)
            rule_step_number(nodes[k], values, before, nums, top);
          const RuleNum a0 = nums[ns], b0 = nums[ns + 1];
          // crosses_above(a, b): a ≺ b at t-1 and a ≻ b at t; crosses_below the mirror.
          t = n.op == Op::crosses_above ? rule_above(b0.v, b0.m, a0.v, a0.m, n.exact) &&
                                              rule_above(a.v, a.m, b.v, b.m, n.exact)
                                        : rule_above(a0.v, a0.m, b0.v, b0.m, n.exact) &&
                                              rule_above(b.v, b.m, a.v, a.m, n.exact);
        }
        truths[ts++] = t ? 1 : 0;
        break;
      }
      case Op::both:
        --ts;
        truths[ts - 1] = truths[ts - 1] & truths[ts];
        break;
      case Op::either:
        --ts;
        truths[ts - 1] = truths[ts - 1] | truths[ts];
        break;
      case Op::negate:
        truths[ts - 1] ^= 1;
        break;
      default:
        rule_step_number(n, values, now, nums, ns);
    }
  }
  return truths[0] != 0;
}

// The numeric and truth stack depths a condition needs (at least 1 each), for sizing the
// stacks of rule_holds. Host only.
inline void rule_stack_depths(const rules::Condition& c, size_t& numbers, size_t& truths) {
  using rules::Op;
  size_t ns = 0, ts = 0;
  for (const rules::Node& n : c.nodes) {
    switch (n.op) {
      case Op::number:
      case Op::param:
      case Op::field:
      case Op::indicator:
        ++ns;
        numbers = ns > numbers ? ns : numbers;
        break;
      case Op::add:
      case Op::sub:
      case Op::mul:
      case Op::div:
        --ns;
        break;
      case Op::greater:
      case Op::less:
      case Op::crosses_above:
      case Op::crosses_below:
        ns -= 2;
        ++ts;
        truths = ts > truths ? ts : truths;
        break;
      case Op::both:
      case Op::either:
        --ts;
        break;
      case Op::negate:
        break;
    }
  }
  if (numbers < 1) numbers = 1;
  if (truths < 1) truths = 1;
}

// A bar's code: long_entry 1 | long_exit 2 | short_entry 4 | short_exit 8 (the conditions that
// hold), or kRuleUndefinedCode (an indicator named in the conditions, or the filter, undefined:
// flat), or kRuleClosedCode (the vol filter closed: hold).
inline constexpr uint8_t kRuleUndefinedCode = 16, kRuleClosedCode = 17;

// SPEC §5a's transitions: r_t from r_{t-1} and the bar's code. From flat, +1 on long_entry,
// else -1 on short_entry; from long, -1 on short_entry, else 0 on long_exit; from short, +1 on
// long_entry, else 0 on short_exit; otherwise held. Undefined: 0; filter closed: held.
// From flat it reads long_entry and short_entry only, from long short_entry and long_exit,
// from short long_entry and short_exit (rule_next evaluates just those).
WFOD_HD constexpr int8_t rule_next_target(int r1, unsigned code) {
  if (code == kRuleUndefinedCode) return 0;
  if (code == kRuleClosedCode) return static_cast<int8_t>(r1);
  const bool le = code & 1u, lx = code & 2u, se = code & 4u, sx = code & 8u;
  if (r1 == 0) return le ? 1 : se ? -1 : 0;
  if (r1 > 0) return se ? -1 : lx ? 0 : 1;
  return le ? 1 : sx ? 0 : -1;
}

// What a rules program's decision reads, laid out for one thread of either side: the four
// conditions' nodes (condition s is nodes[begin[s], begin[s] + count[s]), count 0: absent),
// the indicators the conditions name (`used`, program indicator indices), and the bars: the
// indicator rows (row r at rows[r * stride], bar-indexed, NaN where undefined) and the five
// fields (volume null where the program reads none).
struct RuleProgramView {
  const rules::Node* nodes = nullptr;
  uint32_t begin[rules::kSlots] = {}, count[rules::kSlots] = {};
  const uint32_t* used = nullptr;
  uint32_t n_used = 0;
  const double* rows = nullptr;
  long long stride = 0;
  const double* field[5] = {};  // by rules::Field: open, high, low, close, volume
};

// One combo of the program: its parameter values (program order), the row of each program
// indicator (row_of[i]; only the used ones are read), and its vol filter's rows (-1: none)
// and threshold.
struct RuleComboView {
  const double* values = nullptr;
  const int32_t* row_of = nullptr;
  int32_t vol_short = -1, vol_long = -1;
  double threshold = 0;
};

// r_t of a combo from r_{t-1} (SPEC §5a): 0 where an indicator the conditions name is
// undefined, or the filter is (its STD rows NaN); r_{t-1} where the filter is closed; else the
// transition from r_{t-1}, evaluating only the conditions it reads (in its order: a condition
// that decides ends it). nums and truths: stacks of the program's depths.
WFOD_HD inline double rule_next(const RuleProgramView& p, const RuleComboView& c, long long t,
                                double r_prev, RuleNum* nums, uint8_t* truths) {
  const int r1 = static_cast<int>(r_prev);
  for (uint32_t u = 0; u < p.n_used; ++u) {
    const double v = p.rows[c.row_of[p.used[u]] * p.stride + t];
    if (v != v) return rule_next_target(r1, kRuleUndefinedCode);
  }
  if (c.vol_short >= 0) {
    const double s = p.rows[c.vol_short * p.stride + t], l = p.rows[c.vol_long * p.stride + t];
    if (s != s || l != l) return rule_next_target(r1, kRuleUndefinedCode);
    // The rows carry SPEC §4's zero rule: a long STD of 0 closes the filter, a short one makes
    // the ratio 0 (cpu/rules_eval.cpp's test, as the built-in families' gate).
    if (!(l != 0.0 && rule_db_greater(s / l, c.threshold)))
      return rule_next_target(r1, kRuleClosedCode);
  }
  auto at = [&](long long bar) {
    return [&p, &c, bar](const rules::Node& n) {
      return n.op == rules::Op::field ? p.field[n.index][bar]
                                      : p.rows[c.row_of[n.index] * p.stride + bar];
    };
  };
  auto now = at(t);
  auto before = at(t > 0 ? t - 1 : 0);
  auto holds = [&](int slot) {
    const uint32_t count = p.count[slot];
    return count != 0 &&
           rule_holds(p.nodes + p.begin[slot], count, c.values, now, before, t > 0, nums, truths);
  };
  // Slots: long_entry 0, long_exit 1, short_entry 2, short_exit 3 (code bit 1 << slot).
  const int first = r1 > 0 ? 2 : 0;  // flat: le, se; long: se, lx; short: le, sx
  const int second = r1 == 0 ? 2 : r1 > 0 ? 1 : 3;
  unsigned code = 0;
  if (holds(first))
    code = 1u << first;
  else if (holds(second))
    code = 1u << second;
  return rule_next_target(r1, code);
}

}  // namespace wfod::detail
