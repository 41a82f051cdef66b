// Host entry to the device build of the stretch evaluator's tables (prefix_tables.cuh), for
// tests: no CUDA types, so plain C++ reaches it through registry/prefix_tables_probe.cpp.
#pragma once

#include <cstddef>

#include "src/prefix_tables.hpp"

namespace wfod::cuda {

// Uploads bars [0, bars) of the history, builds the tables with the backend's kernels and
// copies them back, laid out as detail::build_prefix_tables lays them out.
detail::PrefixTables prefix_tables_on_device(const HistoryView& h, Fill fill, size_t bars,
                                             double cost);

}  // namespace wfod::cuda
