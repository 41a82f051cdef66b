// Loading a CSV history for a command: read_csv, a stderr note of skipped rows, and the
// "no bars" check, so every command reports input problems the same way.
#pragma once

#include <string>

#include "wfod/feeds/csv_reader.hpp"

namespace wfod::cli {

// Throws feeds::CsvError (file:line messages) or UsageError when the file holds no bars.
feeds::CsvReadResult load_history(const std::string& path, bool skip_bad_rows);

}  // namespace wfod::cli
