// Loading a CSV history for a command: read_csv, stderr notes (skipped rows, columns not
// used, holes in the data), the bars per year that annualise it, and the "no bars" check, so every
// command reports input problems the same way; and the backend started while the CSV parses.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "strategy_from_flags.hpp"
#include "wfod/backend.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::cli {

// Throws feeds::CsvError (file:line messages) or UsageError when the file holds no bars.
// `columns`: the names of a headerless file's columns (--columns), empty for a header line.
feeds::CsvReadResult load_history(const std::string& path, bool skip_bad_rows,
                                  const std::vector<std::string>& columns = {});

// choose_backend(name) on a thread of its own, so that with cuda the driver and the device
// context (most of a short run's fixed time) start while the caller parses the CSV; where no
// thread can start, on the caller's thread at get(). Its errors surface at get().
std::future<BackendChoice> start_backend_choice(const std::string& name);
// The started backend, once the caller needs it; what --backend auto|cuda found (the GPU and
// the code that runs on it, or why not) said on stderr.
std::unique_ptr<Backend> take_backend(std::future<BackendChoice>& starting);

// SPEC §6's default A, meant for daily bars.
inline constexpr double kDailyBarsPerYear = 252;

// The median gap between consecutive bars' timestamps; none below two bars.
std::optional<int64_t> median_bar_interval_ns(const Series& series);

// After loading: SPEC §6's A for the file (data_facts.hpp), set in setup.spec and
// setup.data with its source, and the file's gaps, with a warning on stderr for holes.
void settle_data_facts(StrategySetup& setup, const Series& series);
// The gaps of the bars a run uses (data_facts.hpp) into setup.data, with a warning on
// stderr for holes: count, largest, dates.
void note_gaps(StrategySetup& setup, const Series& series);

}  // namespace wfod::cli
