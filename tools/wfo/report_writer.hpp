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
// The universe page (index.html, report/universe.html) with `doc` as its data; the title
// names doc's "source".
std::string render_universe_html(const Json& doc);
// One file of a report into DIR; throws WriteError naming it.
void write_page_file(const std::string& dir, const std::string& name, std::string_view content);

// Evaluate, assemble, write; returns the path of report.html. Throws InputError naming DIR
// when a file cannot be written.
// `selection` (optional): robust selection's JSON (docs/spec-10-selection.md §10.5), stored
// as report.json's "selection" (walk: one object per fold); the page draws it
// (report/report.js).
std::string write_walk_report(const std::string& dir, Backend&, const WalkReport&, const RunInputs&,
                              Precision, int threads, const Json* selection = nullptr);
// The same report before it is written: {"document": report.json's document, "files":
// {"folds.csv", "equity.csv", "trades.csv", "objective.csv" (absent past the combo cap):
// their text}}. A universe run keeps it in its partial, so that `wfo merge --report`
// writes the same page as the one-host run (universe_report.hpp).
Json walk_report_files(Backend&, const WalkReport&, const RunInputs&, Precision, int threads,
                       const Json* selection = nullptr);
// Writes walk_report_files' files, report.json and report.html into DIR (which must exist);
// returns the path of report.html.
std::string write_report_files(const std::string& dir, const Json& report);

std::string write_sweep_report(const std::string& dir, Backend&, const SweepReport&,
                               const SweepRequest&, const RunInputs&,
                               const Json* selection = nullptr);

}  // namespace wfod::cli
