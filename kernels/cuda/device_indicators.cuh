// Indicator rows computed on the device (SPEC §4), float64, every distinct series once per
// sweep, stored transposed (value(row, t) = matrix[t * rows + row]) so the threads of a warp,
// which hold neighbouring combos, read neighbouring rows of one bar: coalesced loads.
#pragma once

#include <map>
#include <tuple>
#include <vector>

#include "device_buffer.cuh"
#include "wfod/grid.hpp"

namespace wfod::cuda {

// vol: STD with the SPEC §4 zero rule (the filter's and bollinger's); rsi: Wilder's RSI.
enum class RowKind { sma = 0, ema, wma, hma, vol, upper, lower, rsi };

struct RowKey {
  RowKind kind;
  int period;
  Source source;  // only for upper/lower
  bool operator<(const RowKey& o) const {
    return std::tie(kind, period, source) < std::tie(o.kind, o.period, o.source);
  }
};

RowKind row_kind_of(MaType);

// The history on the device (read-only during a sweep).
struct DeviceHistory {
  DeviceBuffer<double> open, high, low, close;
  size_t bars = 0;
};

struct DeviceIndicators {
  DeviceBuffer<double> matrix;     // bars x rows, transposed
  DeviceBuffer<float> matrix32;    // the same, rounded to float, by groups of bars (float_cell)
  std::map<RowKey, int> row_of;    // key -> row index
  std::vector<int> first_defined;  // per row: first bar with a value (bars if never)
  int rows = 0;
};

// Computes every row in `keys` for the first `bars` bars of the device history.
void build_indicators(const DeviceHistory& h, size_t bars, const std::vector<RowKey>& keys,
                      DeviceIndicators& out);

}  // namespace wfod::cuda
