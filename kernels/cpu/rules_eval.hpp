// The cpu backend's evaluation of a compiled rules program (SPEC §5a) for one combo: its own
// target r_t at every bar, the vol filter applied, as the row the lane kernel's given kind
// reads (src/lane_kinds.hpp kGivenKind). The program is interpreted a block of bars at a time:
// each node runs once per block over columns of values and magnitudes (so the interpretation
// costs per block, not per bar), every + - * / rounded once as cpu_ref rounds it, the same
// dead band and exact comparisons, crosses read each operand's column one bar back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/rules/transitions.hpp"
#include "src/rules_rows.hpp"
#include "wfod/bar.hpp"
#include "wfod/grid.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::cpu {

using detail::RulesRow;
using detail::RulesRows;

class RulesEvaluator {
 public:
  // Scratch sized for `program`; one per thread. `rows` must hold every row the combos read.
  RulesEvaluator(const RulesRows& rows, const rules::Program& program, const HistoryView& h);

  // What decides r_t at each bar of [0, end) for `c`: the four conditions' bits (long_entry 1,
  // long_exit 2, short_entry 4, short_exit 8), or kUndefinedCode (an indicator named in the
  // conditions, or the filter, undefined: flat), or kClosedCode (the vol filter closed: hold).
  // Throws std::invalid_argument where the program reads volume and the history has none.
  static constexpr uint8_t kUndefinedCode = rules::kUndefinedCode, kClosedCode = rules::kClosedCode;
  void codes(const Combo& c, size_t end, uint8_t* code);
  // r_t (-1, 0, +1 as doubles) for bars [0, end) of up to 8 lanes from their codes, from the
  // anchor (SPEC §5a's transitions: src/rules/transitions.hpp).
  static void transitions(const uint8_t* const* codes, int lanes, size_t end, double* const* out);
  // codes() and transitions() of one combo: r_t for bars [0, end) into out[0 .. end).
  void targets(const Combo& c, size_t end, double* out);

 private:
  struct Col {
    const double* v;  // values, index 0 = the bar before the block
    const double* m;  // magnitudes M; nullptr: |v| (a leaf)
  };
  void bind(const Combo& c);
  // Evaluates one condition over bars [lo, lo + n) into `truth` (0/1).
  void condition(const rules::Condition& cond, size_t lo, size_t n, uint8_t* truth);
  Col leaf(const double* series, size_t lo, size_t n, size_t slot);
  Col constant(double value, size_t n, size_t slot);

  const RulesRows& rows_;
  const rules::Program& program_;
  HistoryView h_;
  // Per combo: each indicator's row (nullptr when unused), the used ones, the filter's rows.
  std::vector<const RulesRow*> series_;
  std::vector<const RulesRow*> used_;
  const RulesRow *vol_short_ = nullptr, *vol_long_ = nullptr;
  double threshold_ = 0;
  const std::vector<double>* values_ = nullptr;
  // Scratch: numeric columns (value, magnitude) and truth columns by stack slot, and the
  // four conditions' truths of the block.
  std::vector<std::vector<double>> v_, m_;
  std::vector<std::vector<uint8_t>> truth_;
  std::vector<Col> cols_;
  std::vector<uint8_t> slots_[rules::kSlots];
  std::vector<uint8_t> cross_, code_;  // a cross's earlier comparison; targets()' codes
};

}  // namespace wfod::cpu
