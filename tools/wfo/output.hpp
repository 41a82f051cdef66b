// wfo's results on stdout and in files, written so that a failed write is an error: every
// write is checked, main() checks the final flush and close of stdout, and a failure ends
// the run with "wfo: error writing <what>: <reason>" and exit code 1, never a silently
// truncated document with exit code 0.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace wfod::cli {

// A write that failed: `what` names the destination ("standard output", a path).
class WriteError : public std::runtime_error {
 public:
  WriteError(const std::string& what, int error_number);
};

// Writes `text` to stdout; throws WriteError when the stream refuses it.
void print(std::string_view text);

// Flushes and closes stdout; throws WriteError if it or any earlier write failed.
void close_stdout();

}  // namespace wfod::cli
