// Writing the `--report DIR` files of `wfo walk` and `wfo sweep`: runs the extra engine
// evaluations the report needs (every combo's objective), assembles the data (report_data)
// and writes report.html, report.json and the CSV files into DIR.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report_data.hpp"

namespace wfod::cli {

// Creates DIR (and its parents) when missing and checks a file can be written in it, so a
// long run does not fail at the end; throws InputError naming DIR.
void prepare_report_dir(const std::string& dir);

// The run's inputs: arguments as given, setup, DIR, the time now and the data file's size.
RunInputs make_run_inputs(std::string command, std::span<const std::string_view> args,
                          const StrategySetup& setup, const std::string& dir);

// report.html: the template with the title and the document (script-safe) filled in.
std::string render_html(const Json& chart_document);

// Evaluate, assemble, write; returns the path of report.html. Throws InputError naming DIR
// when a file cannot be written.
// `selection` (optional): robust selection's JSON (docs/spec-10-selection.md §10.5), stored
// as report.json's "selection" (walk: one object per fold); the page draws it
// (report/report.js).
std::string write_walk_report(const std::string& dir, Backend&, const WalkReport&, const RunInputs&,
                              Precision, int threads, const Json* selection = nullptr);
std::string write_sweep_report(const std::string& dir, Backend&, const SweepReport&,
                               const SweepRequest&, const RunInputs&,
                               const Json* selection = nullptr);

}  // namespace wfod::cli
