// Rules indicator rows (SPEC §5a) advanced one bar at a time. RulesRowStates: a set of
// distinct rows (kind, period, width, source), each with its incremental state from
// indicator_state.hpp (the code the cpu backend's batch rows run, cpu/rules_rows.cpp, so
// values are bit-identical), plus STD rows with the zero rule (the vol filter's), over one tail
// of input bars (the longest period + 1), with their checkpoint. RulesComboRows: one combo's
// rows over such a set (the position tracker's); the cpu backend's bounded rules stream keeps
// one set for every row of its grid (cpu/rules_stream.cpp). O(rows) per bar, memory bounded
// by the periods.
#pragma once

#include <cstddef>
#include <span>
#include <tuple>
#include <variant>
#include <vector>

#include "src/blob_io.hpp"
#include "src/indicator_state.hpp"
#include "wfod/bar.hpp"
#include "wfod/grid.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::detail {

// A row as the cpu backend keys its rules rows: kind (bb_mid as sma), period, width (bands
// only, else 0), high_low (channels only).
using RulesRowKey = std::tuple<int, int, double, bool>;
RulesRowKey rules_row_key(const rules::Indicator& ind, double period, double width);

class RulesRowStates {
 public:
  RulesRowStates() = default;
  // Rows `keys` (periods and widths in range), then an STD row with the zero rule per `vols`.
  RulesRowStates(std::span<const RulesRowKey> keys, std::span<const int> vols);

  // Advances every row by the next bar.
  void next(const Bar& bar);
  size_t size() const { return rows_.size(); }
  // Row r's value at the newest bar (NaN where undefined).
  double value(size_t r) const { return values_[r]; }

  size_t bars() const { return end_; }
  size_t lookback() const { return lookback_; }
  size_t footprint_bytes() const;
  // The most footprint_bytes() of a set of these rows can reach, whatever the bars (the
  // size query of the streams that keep one).
  static size_t most_bytes(std::span<const RulesRowKey> keys, std::span<const int> vols);
  // A set of rows `which` of this one (in that order), their states and the tail copied (its
  // look-back this set's): it advances as this one's rows would.
  RulesRowStates subset(std::span<const size_t> which) const;

  // Checkpoint: the bars seen, the last lookback() input bars, each row's state and value.
  // load() on a set built from the same keys; the bytes are validated (state_codec.hpp).
  void save(BlobWriter& w) const;
  void load(BlobReader& r);

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
                             ExtremeState, BandState, VolState>;
  enum class Input : uint8_t { close, high, low };
  struct Row {
    State state;
    Input input;
  };
  SeriesTail tail(Input in) const;
  void trim();

  std::vector<Row> rows_;
  std::vector<double> values_;  // each row's value at the newest bar
  // Input bars [base_, end_): close, high, low.
  std::vector<double> close_, high_, low_;
  size_t base_ = 0, end_ = 0, lookback_ = 1;
};

class RulesComboRows {
 public:
  // The rows of `c` (a rules combo, its params resolved); rules::RuleError where a period or
  // width is out of range, std::invalid_argument without a program.
  explicit RulesComboRows(const Combo& c);
  // The distinct rows of `c` in the order its set holds them (the vol filter's two last).
  static void keys_of(const Combo& c, std::vector<RulesRowKey>& keys, std::vector<int>& vols);
  // The rows of `c` over a set already advanced (built from keys_of(c), or a subset in that
  // order): a stream seeds a tracker with it.
  RulesComboRows(const Combo& c, RulesRowStates states);

  // Advances every row by the next bar.
  void next(const Bar& bar) { states_.next(bar); }

  // The value at the newest bar of program indicator `i` (NaN where undefined; 0 for an
  // unused one, never read).
  double indicator(size_t i) const {
    return indicator_row_[i] == kUnused ? 0.0 : states_.value(indicator_row_[i]);
  }
  // Whether every indicator the conditions name is defined at the newest bar.
  bool all_used_defined() const;
  // The vol filter's rows at the newest bar (the combo must have one).
  double vol_short() const { return states_.value(vol_row_); }
  double vol_long() const { return states_.value(vol_row_ + 1); }

  size_t bars() const { return states_.bars(); }
  size_t lookback() const { return states_.lookback(); }
  size_t footprint_bytes() const;

 private:
  static constexpr size_t kUnused = static_cast<size_t>(-1);
  void map(const Combo& c);

  RulesRowStates states_;
  std::vector<size_t> indicator_row_;  // program indicator -> row (kUnused)
  size_t used_rows_ = 0;               // rows [0, used_rows_) are the conditions' indicators
  size_t vol_row_ = 0;
};

}  // namespace wfod::detail
