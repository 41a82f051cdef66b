// The --report folder of a run that stops early (SIGINT, SIGTERM, an input error after the
// folder was made): the folders this run created are removed again while no report file is
// in them, so no empty report folder is left behind (issue 42 §3). A folder that existed is
// left as it was (nothing was written to it).
#pragma once

#include <string>
#include <vector>

namespace wfod::cli {

// The folders prepare_report_dir created, deepest first; installs the SIGINT and SIGTERM
// handlers that remove them (handlers not installed where the signal is ignored, e.g. nohup).
void remember_created_report_dirs(const std::vector<std::string>& created);
// A report file is being written: the folder is the report's from now on.
void report_dir_filled();
// For an error exit: removes the created folders if still unfilled.
void remove_unfilled_report_dirs();

}  // namespace wfod::cli
