// The indicator rows a rules strategy's combos read on the cpu and cuda backends (SPEC §5a):
// one row per distinct (kind, period, width, source) any used indicator takes over the combos,
// computed once by the engine's indicators (the values every built-in family's lanes read) and
// shared by all combos, plus the vol filter's STD rows with SPEC §4's zero rule. The analogue
// of the built-in families' IndicatorCache, keyed by what a rule can name; in the core so that
// both backends read the very same rows (the cuda backend uploads them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

#include "src/rules_combo_rows.hpp"
#include "wfod/bar.hpp"
#include "wfod/grid.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::detail {

// One series over every bar of the history (NaN where undefined).
struct RulesRow {
  std::vector<double> values;
  size_t first_defined = 0;  // first non-NaN bar (bars if none)
  bool gaps = false;         // a NaN after first_defined (then read bar by bar)
};

class RulesRows {
 public:
  // Rows of every value the grid's axes give the used indicators and the filter.
  RulesRows(const HistoryView& h, const Grid& grid, int threads);
  // Rows of these combos only (evaluate() lists, positions()).
  RulesRows(const HistoryView& h, std::span<const Combo> combos, int threads);
  // The grid's rows without values: a stream fills them from its incremental states
  // (rules_stream.cpp), row i of keys() then of vol_periods(), and refresh()es them.
  explicit RulesRows(const Grid& grid);

  // The row of a used indicator for a combo's values.
  const RulesRow& indicator(const rules::Indicator& ind, const std::vector<double>& values) const;
  // The vol filter's STD(n) row, zero rule applied (SPEC §4, §5).
  const RulesRow& vol(int period) const { return *rows_[vols_.at(period)]; }

  // Every row as one list (the indicator rows, then the vol rows; size() and row(i) below),
  // and where the rows above stand in it: the cuda backend uploads the list and hands its
  // combos the indices.
  size_t indicator_index(const rules::Indicator& ind, const std::vector<double>& values) const;
  size_t vol_index(int period) const { return vols_.at(period); }

  // The rows one combo reads, by index into that list: row_of[i] for each program indicator
  // (0 for an unused one, never read), the filter's STD rows (-1 without a filter), and
  // `start`, the first bar where every used indicator's row and the filter's rows are
  // defined: before it SPEC §5a's undefined rule holds the combo flat at every bar, so the
  // state entering it is the anchor's (the cuda backend's walks begin there).
  struct ComboRows {
    std::vector<int32_t> row_of;
    int32_t vol_short = -1, vol_long = -1;
    size_t start = 0;
  };
  ComboRows combo_rows(const Combo& c) const;

  // kind (bb_mid as sma), period, width (bands only, else 0), high_low.
  using Key = detail::RulesRowKey;
  const std::vector<Key>& keys() const { return key_list_; }
  const std::vector<int>& vol_periods() const { return vol_list_; }
  size_t size() const { return rows_.size(); }
  RulesRow& row(size_t i) { return *rows_[i]; }
  const RulesRow& row(size_t i) const { return *rows_[i]; }
  // Row i's first_defined and gaps from its values.
  void refresh(size_t i);

 private:
  void add_grid(const Grid& grid);
  void add_indicator(const rules::Indicator& ind, double period, double width);
  void index();  // the vol rows' indices, the rows allocated
  void build(const HistoryView& h, int threads);

  std::map<Key, size_t> keys_;
  std::map<int, size_t> vols_;
  std::vector<Key> key_list_;  // rows_[i] for i < key_list_.size(); vol rows after them
  std::vector<int> vol_list_;
  std::vector<std::unique_ptr<RulesRow>> rows_;
};

}  // namespace wfod::detail
