// One writer for the result objects that both wfod's publications (PROTOCOL §2) and wfo's
// --json documents carry: a combo's params by name and the SPEC §6 metrics. Two copies of
// these drifted apart once; the subscribers and the research scripts must read one shape.
#pragma once

#include <nlohmann/json.hpp>

#include "wfod/backend.hpp"

namespace wfod {

// A real number as JSON: JSON has no infinity or NaN, so those are written as null.
nlohmann::ordered_json finite_or_null(double v);

// Every SPEC §6 metric by name (kMetricNames order); integer metrics as JSON integers,
// non-finite values as null.
nlohmann::ordered_json metrics_json(const Metrics& m);

// The combo's parameters by SPEC name (the family's or the rule's, then the vol filter's and
// the stops' when the grid has them); enums by their SPEC names. The combo knows its grid's
// family and axes, so the grid is not needed.
nlohmann::ordered_json params_json(const Combo& combo);

}  // namespace wfod
