// RulesEvaluator: SPEC §5a's conditions over blocks of bars (columns of values and their
// magnitudes M, one pass per node), then §5a's transitions bar by bar. Equal to cpu_ref's
// literal evaluator (cpu_ref/ref_rules.cpp) operation for operation: the same roundings,
// the same dead band, the same "non-finite operand is false", the same undefined rule.
#include "rules_eval.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "rules_columns.hpp"
#include "src/rules/transitions.hpp"
#include "wfod/detail/rule_eval.hpp"
#include "wfod/indicators.hpp"

namespace wfod::cpu {
namespace {

using rules::Field;
using rules::Node;
using rules::Op;

// Bars per block: long enough that interpreting a node costs little per bar, short enough
// that a block's columns stay in L1/L2.
constexpr size_t kBlock = 512;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline double mag(const double* m, const double* v, size_t k) { return m ? m[k] : std::abs(v[k]); }

}  // namespace

RulesEvaluator::RulesEvaluator(const RulesRows& rows, const rules::Program& program,
                               const HistoryView& h)
    : rows_(rows), program_(program), h_(h) {
  size_t numbers = 1, truths = 1;
  // The stacks' depths as the per-bar evaluator sizes them (one postorder walk, written once).
  for (const rules::Condition& c : program.conditions)
    detail::rule_stack_depths(c, numbers, truths);
  v_.assign(numbers, std::vector<double>(kBlock + 1));
  m_.assign(numbers, std::vector<double>(kBlock + 1));
  truth_.assign(truths, std::vector<uint8_t>(kBlock));
  cols_.resize(numbers);
  for (auto& s : slots_) s.assign(kBlock, 0);
  cross_.assign(kBlock, 0);
  series_.assign(program.indicators.size(), nullptr);
}

void RulesEvaluator::bind(const Combo& c) {
  if (program_.uses_volume && h_.volume.size() != h_.size())
    throw std::invalid_argument("cpu: the rules read volume, but " +
                                std::to_string(h_.volume.size()) + " volumes were given for " +
                                std::to_string(h_.size()) + " bars");
  values_ = &c.rule_values;
  used_.clear();
  for (size_t i = 0; i < program_.indicators.size(); ++i) {
    const rules::Indicator& ind = program_.indicators[i];
    series_[i] = ind.used ? &rows_.indicator(ind, c.rule_values) : nullptr;
    if (series_[i]) used_.push_back(series_[i]);
  }
  vol_short_ = c.has_vol ? &rows_.vol(c.vol_short) : nullptr;
  vol_long_ = c.has_vol ? &rows_.vol(c.vol_long) : nullptr;
  threshold_ = c.vol_threshold;
}

// A series' column over the block: index 0 is bar lo - 1 (NaN before the anchor).
RulesEvaluator::Col RulesEvaluator::leaf(const double* series, size_t lo, size_t n, size_t slot) {
  if (lo > 0) return {series + lo - 1, nullptr};
  double* v = v_[slot].data();
  v[0] = kNaN;
  std::copy(series, series + n, v + 1);
  return {v, nullptr};
}

RulesEvaluator::Col RulesEvaluator::constant(double value, size_t n, size_t slot) {
  double* v = v_[slot].data();
  std::fill(v, v + n + 1, value);
  return {v, nullptr};
}

void RulesEvaluator::condition(const rules::Condition& cond, size_t lo, size_t n, uint8_t* truth) {
  size_t ns = 0, ts = 0;
  const size_t cols = n + 1;  // the bar before the block, then the block
  for (const Node& node : cond.nodes) {
    switch (node.op) {
      case Op::number:
        cols_[ns] = constant(node.value, n, ns);
        ++ns;
        break;
      case Op::param:
        cols_[ns] = constant((*values_)[node.index], n, ns);
        ++ns;
        break;
      case Op::field: {
        const Field f = static_cast<Field>(node.index);
        const double* s = f == Field::open    ? h_.open.data()
                          : f == Field::high  ? h_.high.data()
                          : f == Field::low   ? h_.low.data()
                          : f == Field::close ? h_.close.data()
                                              : h_.volume.data();
        cols_[ns] = leaf(s, lo, n, ns);
        ++ns;
        break;
      }
      case Op::indicator:
        cols_[ns] = leaf(series_[node.index]->values.data(), lo, n, ns);
        ++ns;
        break;
      case Op::add:
      case Op::sub:
      case Op::mul:
      case Op::div: {
        const Col b = cols_[--ns], a = cols_[ns - 1];
        double* ov = v_[ns - 1].data();
        double* om = m_[ns - 1].data();
        // Each result and its magnitude rounded once, as cpu_ref's `arithmetic`.
        switch (node.op) {
          case Op::add:
            for (size_t k = 0; k < cols; ++k) {
              const double am = mag(a.m, a.v, k), bm = mag(b.m, b.v, k);
              ov[k] = a.v[k] + b.v[k];
              om[k] = am + bm;
            }
            break;
          case Op::sub:
            for (size_t k = 0; k < cols; ++k) {
              const double am = mag(a.m, a.v, k), bm = mag(b.m, b.v, k);
              ov[k] = a.v[k] - b.v[k];
              om[k] = am + bm;
            }
            break;
          case Op::mul:
            for (size_t k = 0; k < cols; ++k) {
              const double am = mag(a.m, a.v, k), bm = mag(b.m, b.v, k);
              ov[k] = a.v[k] * b.v[k];
              om[k] = am * bm;
            }
            break;
          default:
            for (size_t k = 0; k < cols; ++k) {
              const double am = mag(a.m, a.v, k), bm = mag(b.m, b.v, k), bv = b.v[k];
              const double q = a.v[k] / bv;
              ov[k] = q;
              om[k] = (am + std::abs(q) * bm) / std::abs(bv);
            }
        }
        cols_[ns - 1] = {ov, om};
        break;
      }
      case Op::greater:
      case Op::less: {
        const Col b = cols_[--ns], a = cols_[--ns];
        const Col& x = node.op == Op::greater ? a : b;
        const Col& y = node.op == Op::greater ? b : a;
        above_columns(x.v, x.m, y.v, y.m, 1, n, node.exact, truth_[ts++].data());
        break;
      }
      case Op::crosses_above:
      case Op::crosses_below: {
        const Col b = cols_[--ns], a = cols_[--ns];
        // crosses_above(a, b): a ≺ b at t-1 and a ≻ b at t; crosses_below the mirror.
        const Col& x = node.op == Op::crosses_above ? a : b;
        const Col& y = node.op == Op::crosses_above ? b : a;
        uint8_t* out = truth_[ts++].data();
        uint8_t* before = cross_.data();
        above_columns(y.v, y.m, x.v, x.m, 0, n, node.exact, before);  // x ≺ y at t - 1
        above_columns(x.v, x.m, y.v, y.m, 1, n, node.exact, out);     // x ≻ y at t
        for (size_t k = 0; k < n; ++k) out[k] &= before[k];
        if (lo == 0) out[0] = 0;  // never at the anchor
        break;
      }
      case Op::both:
      case Op::either: {
        const uint8_t* y = truth_[--ts].data();
        uint8_t* x = truth_[ts - 1].data();
        if (node.op == Op::both)
          for (size_t k = 0; k < n; ++k) x[k] &= y[k];
        else
          for (size_t k = 0; k < n; ++k) x[k] |= y[k];
        break;
      }
      case Op::negate: {
        uint8_t* x = truth_[ts - 1].data();
        for (size_t k = 0; k < n; ++k) x[k] ^= 1;
        break;
      }
    }
  }
  std::copy(truth_[0].data(), truth_[0].data() + n, truth);
}

void RulesEvaluator::codes(const Combo& c, size_t end, uint8_t* code) {
  bind(c);
  size_t defined_from = 0;
  bool gaps = false;
  for (const RulesRow* r : used_) {
    defined_from = std::max(defined_from, r->first_defined);
    gaps = gaps || r->gaps;
  }
  const double* vs = vol_short_ ? vol_short_->values.data() : nullptr;
  const double* vl = vol_long_ ? vol_long_->values.data() : nullptr;
  bool present[rules::kSlots];
  for (size_t s = 0; s < rules::kSlots; ++s) {
    present[s] = program_.conditions[s].present();
    if (!present[s]) std::fill(slots_[s].begin(), slots_[s].end(), 0);
  }
  const uint8_t *le = slots_[0].data(), *lx = slots_[1].data(), *se = slots_[2].data(),
                *sx = slots_[3].data();
  for (size_t lo = 0; lo < end; lo += kBlock) {
    const size_t n = std::min(kBlock, end - lo);
    uint8_t* out = code + lo;
    if (lo + n <= defined_from) {  // every bar of the block has an undefined indicator
      std::fill(out, out + n, kUndefinedCode);
      continue;
    }
    for (size_t s = 0; s < rules::kSlots; ++s)
      if (present[s]) condition(program_.conditions[s], lo, n, slots_[s].data());
    for (size_t k = 0; k < n; ++k)
      out[k] = static_cast<uint8_t>(le[k] | lx[k] << 1 | se[k] << 2 | sx[k] << 3);
    // The filter first (closed: hold), then the undefined rule over it (SPEC §5a: p_t = 0).
    if (vs) {
      for (size_t k = 0; k < n; ++k) {
        const double s = vs[lo + k], l = vl[lo + k];
        const bool open = l != 0.0 && db_greater(s / l, threshold_);
        out[k] = std::isnan(s) || std::isnan(l) ? kUndefinedCode : open ? out[k] : kClosedCode;
      }
    }
    if (lo < defined_from) std::fill(out, out + (defined_from - lo), kUndefinedCode);
    if (gaps) {
      for (size_t k = 0; k < n; ++k)
        for (const RulesRow* r : used_)
          if (std::isnan(r->values[lo + k])) out[k] = kUndefinedCode;
    }
  }
}

void RulesEvaluator::transitions(const uint8_t* const* codes, int lanes, size_t end,
                                 double* const* out) {
  // The lanes' chains side by side: each bar's step depends on the lane's previous one, so
  // interleaving independent lanes keeps the table lookups from waiting on each other.
  int8_t p[8] = {};
  if (lanes > 8) throw std::invalid_argument("RulesEvaluator::transitions: more than 8 lanes");
  for (size_t t = 0; t < end; ++t) {
    for (int j = 0; j < lanes; ++j) {
      p[j] = rules::next_target(p[j], codes[j][t]);
      out[j][t] = p[j];
    }
  }
}

void RulesEvaluator::targets(const Combo& c, size_t end, double* out) {
  code_.resize(end);
  codes(c, end, code_.data());
  const uint8_t* code = code_.data();
  transitions(&code, 1, end, &out);
}

}  // namespace wfod::cpu
