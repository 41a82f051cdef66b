// Loading a CSV history for a command: read_csv, a stderr note of skipped rows, and the
// "no bars" check, so every command reports input problems the same way.

#include "history.hpp"

#include <cstdio>

#include "args.hpp"

namespace wfod::cli {

feeds::CsvReadResult load_history(const std::string& path, bool skip_bad_rows) {
  feeds::CsvReadOptions options;
  options.skip_bad_rows = skip_bad_rows;
  feeds::CsvReadResult r = feeds::read_csv(path, options);
  if (!r.skipped_by_reason.empty()) {
    size_t total = 0;
    std::string reasons;
    for (const auto& [reason, n] : r.skipped_by_reason) {
      total += n;
      reasons += (reasons.empty() ? "" : ", ") + reason + ": " + std::to_string(n);
    }
    std::fprintf(stderr, "wfo: %s: skipped %zu of %zu rows (%s)\n", path.c_str(), total,
                 r.rows_read, reasons.c_str());
  }
  if (r.series.size() == 0) throw InputError(path + ": no bars");
  return r;
}

}  // namespace wfod::cli
