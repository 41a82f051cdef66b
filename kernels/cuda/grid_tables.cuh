// A grid's axis tables on the device (GridTables and the buffers behind it), built from the
// row index of every indicator series the grid reads, and its stop axes apart (StopTables).
// Shared by sweeps and streams.
#pragma once

#include <vector>

#include "device_buffer.cuh"
#include "device_grid.cuh"
#include "device_indicators.cuh"
#include "stop_tables.cuh"
#include "wfod/grid.hpp"

namespace wfod::cuda {

struct DeviceGridTables {
  DeviceBuffer<int> a_value, b_value, a_row, b_row, cross, vs_value, vl_value, vs_row, vl_row,
      first_defined, fade;
  DeviceBuffer<double> short_value, threshold, k_value, lo_value, hi_value, stop_values;
  GridTables view;   // the grid without its stop axes
  StopTables stops;  // its stop axes (entry_open is set by the sweep's preparation)
};

// Every indicator series the grid's combos read (duplicates possible).
std::vector<RowKey> rows_needed(const Grid& g);
// Uploads the grid's tables; ind.row_of, ind.first_defined and ind.rows give the rows.
void build_tables(const Grid& g, const DeviceIndicators& ind, DeviceGridTables& t);

}  // namespace wfod::cuda
