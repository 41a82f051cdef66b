// One rules combo's indicator rows (SPEC §5a) advanced one bar at a time: each distinct used
// indicator (kind, period, width, source) with its incremental state from indicator_state.hpp
// (the code the cpu backend's batch rows run, cpu/rules_rows.cpp, so values are bit-identical),
// the vol filter's two STD rows with the zero rule, and the tail of input bars the states read
// back (the longest period + 1). O(rows) per bar, memory bounded by the periods.
#pragma once

#include <cstddef>
#include <variant>
#include <vector>

#include "src/indicator_state.hpp"
#include "wfod/bar.hpp"
#include "wfod/grid.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::detail {

class RulesComboRows {
 public:
  // The rows of `c` (a rules combo, its params resolved); rules::RuleError where a period or
  // width is out of range, std::invalid_argument without a program.
  explicit RulesComboRows(const Combo& c);

  // Advances every row by the next bar.
  void next(const Bar& bar);

  // The value at the newest bar of program indicator `i` (NaN where undefined; 0 for an
  // unused one, never read).
  double indicator(size_t i) const { return row_values_[indicator_row_[i]]; }
  // Whether every indicator the conditions name is defined at the newest bar.
  bool all_used_defined() const;
  // The vol filter's rows at the newest bar (the combo must have one).
  double vol_short() const { return vol_short_value_; }
  double vol_long() const { return vol_long_value_; }

  size_t bars() const { return end_; }
  size_t lookback() const { return lookback_; }
  size_t footprint_bytes() const;

 private:
  // bb_upper / bb_lower: M ± k·S with S the STD under the zero rule, formed as
  // bollinger_bands forms them.
  struct BandState {
    SmaState mid;
    VolState sd;
    double k;
    bool upper;
  };
  using State = std::variant<SmaState, EmaState, WmaState, HmaState, StdState, RsiState,
                             ExtremeState, BandState>;
  enum class Input : uint8_t { close, high, low };
  struct Row {
    State state;
    Input input;
  };
  SeriesTail tail(Input in) const;
  void trim();

  std::vector<Row> rows_;
  std::vector<double> row_values_;     // each row's value at the newest bar (a spare 0 last)
  std::vector<size_t> indicator_row_;  // program indicator -> row (unused: the spare)
  std::vector<size_t> used_rows_;      // rows the conditions name
  bool has_vol_ = false;
  VolState vol_short_{1, 0}, vol_long_{1, 0};
  double vol_short_value_ = 0, vol_long_value_ = 0;
  // Input bars [base_, end_): close, high, low.
  std::vector<double> close_, high_, low_;
  size_t base_ = 0, end_ = 0, lookback_ = 1;
};

}  // namespace wfod::detail
