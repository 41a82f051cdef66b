// JSON documents of `wfo sweep --json` and `wfo walk --json` (shapes in the --help texts):
// every SPEC §6 metric by name, integers as JSON integers, non-finite floats as null.
#pragma once

#include <nlohmann/json.hpp>

#include "report.hpp"
#include "wfod/net/result_json.hpp"

namespace wfod::cli {

using Json = nlohmann::ordered_json;

// A float as JSON: null where it is not finite (a §6 metric may be infinite or undefined).
inline Json real(double v) { return finite_or_null(v); }

// metrics_json and params_json: wfod/net/result_json.hpp (shared with the daemon's publications).
Json sweep_json(const SweepReport&);
Json walk_json(const WalkReport&);
// {"median_interval_seconds", "listed_over_median_x", "hole_over_seconds", "holes",
//  "list": [{"after_bar", "from", "to", "seconds", "hole"}]}: every gap over 5x the median.
Json gaps_json(const DataFacts&);

}  // namespace wfod::cli
