// Every distinct indicator series a sweep needs, computed once and shared by all combos
// (SPEC §4): moving averages by (type, period), Donchian bounds by (source, period), RSI by
// period, and volatility rows with the STD <= delta * SMA "counts as 0" rule already applied
// (the vol filter's rows and bollinger's STD(n)).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/grid.hpp"

namespace wfod::detail {

// One series: its values live in the matrix (NaN where undefined).
struct IndicatorRow {
  size_t first_defined = 0;  // first bar with a value (bars if never)
  size_t offset = 0;         // start of this row in matrix()
};

class IndicatorCache {
 public:
  // Builds the rows of every axis value of the grid, in parallel over `threads`.
  IndicatorCache(const HistoryView& history, const Grid& grid, int threads);
  // Only the rows one combo needs (positions() of a single combo).
  IndicatorCache(const HistoryView& history, const Combo& combo);
  // Only the rows these combos need (evaluate() of a list of ids).
  IndicatorCache(const HistoryView& history, std::span<const Combo> combos, int threads);

  const IndicatorRow& ma(MaType type, int period) const { return mas_.at({type, period}); }
  const IndicatorRow& upper(Source source, int n) const { return uppers_.at({source, n}); }
  const IndicatorRow& lower(Source source, int n) const { return lowers_.at({source, n}); }
  const IndicatorRow& vol(int period) const { return vols_.at(period); }
  const IndicatorRow& rsi(int period) const { return rsis_.at(period); }
  // Every row back to back (row length = bars), so lanes read them by offset (a gather).
  const double* matrix() const { return matrix_.data(); }
  // The lane_input() interface (lane_setup.hpp): a row's offset in matrix() and bar-0 pointer.
  int64_t offset(const IndicatorRow& row) const { return static_cast<int64_t>(row.offset); }
  const double* data(const IndicatorRow& row) const { return matrix_.data() + row.offset; }

 private:
  void add_rows(const Combo& combo);
  void build(const HistoryView& history, int threads);

  std::map<std::pair<MaType, int>, IndicatorRow> mas_;
  std::map<std::pair<Source, int>, IndicatorRow> uppers_, lowers_;
  std::map<int, IndicatorRow> vols_, rsis_;
  std::vector<double> matrix_;
};

}  // namespace wfod::detail
