// Read-only access to bars of a symbol's bar log (bar_store.hpp has the format) by index:
// how a stream opened after the start (a reload that adds a strategy, a backend fallback)
// reads the history from the anchor that memory no longer holds. Safe while the loop
// appends to the same file: records already written never change.
#pragma once

#include <cstddef>
#include <string>

#include "wfod/bar.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

// Bars [first, end) of the log at `path`; an error naming the file and the record when the
// file is shorter or a record fails its CRC.
Result<Series> read_bar_log(const std::string& path, size_t first, size_t end);

}  // namespace wfod::daemon
