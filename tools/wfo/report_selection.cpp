// Robust selection (docs/spec-10-selection.md) in the `--report DIR` files: the settings
// block of report.json's inputs and the attachment of the run's "selection" JSON.

#include "report_selection.hpp"

#include <cmath>

#include "json_output.hpp"

namespace wfod::cli {

Json selection_settings_json(const selection::SelectionSpec& s) {
  Json j = Json::object();
  j["hysteresis_abs"] = real(s.hysteresis_abs);
  j["hysteresis_rel"] = real(s.hysteresis_rel);
  j["plateau"] = s.plateau;
  j["plateau_radius"] = s.plateau_radius;
  Json axes = Json::object();
  for (const auto& [name, radius] : s.plateau_radius_axes) axes[name] = radius;
  j["plateau_radius_axes"] = std::move(axes);
  j["plateau_stat"] = selection::to_string(s.plateau_stat);
  j["min_dsr"] = s.min_dsr ? real(*s.min_dsr) : Json(nullptr);
  j["pbo_blocks"] = s.pbo_blocks;
  j["pbo_max_combos"] = s.pbo_max_combos;
  return j;
}

void attach_selection(Json& doc, const Json* selection, const selection::SelectionSpec& spec) {
  if (!selection) return;
  doc["selection"] = *selection;
  // The settings are not in the equivalent command line (wfo has no flags for them), so
  // the page lists them with the inputs.
  if (doc.contains("inputs") && doc["inputs"].is_object()) {
    doc["inputs"]["selection"] = selection_settings_json(spec);
  }
}

}  // namespace wfod::cli
