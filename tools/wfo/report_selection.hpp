// Robust selection (docs/spec-10-selection.md) in the `--report DIR` files: the settings
// block stored as report.json's inputs.selection, and how a run's "selection" JSON joins
// the report document. The page (report/report.js) draws both.
#pragma once

#include "json_output.hpp"
#include "wfod/selection/selection_spec.hpp"

namespace wfod::cli {

// The [strategy.selection] settings the run used: hysteresis_abs, hysteresis_rel, plateau,
// plateau_radius, plateau_radius_axes {axis: r}, plateau_stat, min_dsr (null: no gate),
// pbo_blocks, pbo_max_combos.
Json selection_settings_json(const selection::SelectionSpec&);

// Stores `selection` (walk: one object per fold; sweep: one object) as doc["selection"] and
// the settings as doc["inputs"]["selection"]. Without a selection the document is left
// as it is, so the page shows none of its sections.
void attach_selection(Json& doc, const Json* selection, const selection::SelectionSpec&);

}  // namespace wfod::cli
