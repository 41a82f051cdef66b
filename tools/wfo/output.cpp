// Checked writes to stdout (see output.hpp).
#include "output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace wfod::cli {

WriteError::WriteError(const std::string& what, int error_number)
    : std::runtime_error("error writing " + what + ": " + std::strerror(error_number)) {}

void print(std::string_view text) {
  if (text.empty()) return;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::ferror(stdout)) {
    throw WriteError("standard output", errno ? errno : EIO);
  }
}

void close_stdout() {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_errno = errno;
  const bool clean = !std::ferror(stdout);
  // fclose reports what only the close can tell (e.g. a deferred NFS error).
  errno = 0;
  const bool closed = std::fclose(stdout) == 0;
  const int close_errno = errno;
  if (!flushed || !clean) throw WriteError("standard output", flush_errno ? flush_errno : EIO);
  if (!closed) throw WriteError("standard output", close_errno ? close_errno : EIO);
}

}  // namespace wfod::cli
