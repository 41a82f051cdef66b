// The stretch evaluator's tables (PrefixData, sweep_kernels.cuh) built on the device from the
// device history: bar returns, compensated prefix sums, change-bar log growth, drawdown trees
// and sparse tables, with the bits of the host build (src/prefix_tables.hpp), which is the
// reference. Built on the host they took 155 ms of a 217 ms sweep of 150k bars (H200 box).
#pragma once

#include <cstddef>

#include "device_buffer.cuh"
#include "src/prefix_tables.hpp"
#include "sweep_kernels.cuh"

namespace wfod::cuda {

struct DevicePrefixTables {
  DeviceBuffer<double> gap, body;  // bar_returns
  DeviceBuffer<double> prefix;     // PrefixTables::prefix's layout
  DeviceBuffer<double> trees;      // PrefixTables::trees's layout
  DeviceBuffer<double> sparse;     // PrefixTables::sparse's layout
  DeviceBuffer<double> records;    // PrefixData::records: StretchRecords of [0, bars]
  DeviceBuffer<double> terms;      // scratch: the summands of the prefixes, per array
  detail::PrefixShape shape;
  size_t bars = 0;

  PrefixData view() const;
};

// Builds every table for bars [0, bars) of the device history (close and open columns) on
// the default stream; buffers only grow.
void build_prefix_tables(const double* close, const double* open, Fill fill, size_t bars,
                         double cost, DevicePrefixTables& out);

}  // namespace wfod::cuda
