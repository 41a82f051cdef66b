// The log target decision (log_target.hpp): JOURNAL_STREAM against fstat of stderr.
#include "wfod/daemon/core/log_target.hpp"

#include <sys/stat.h>

#include <charconv>

namespace wfod::daemon {
namespace {

// A decimal number taking the whole of `text`.
bool parse_all(std::string_view text, uint64_t& out) {
  if (text.empty()) return false;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

}  // namespace

bool journal_stream_is(std::string_view journal_stream, uint64_t device, uint64_t inode) {
  const size_t colon = journal_stream.find(':');
  if (colon == std::string_view::npos) return false;
  uint64_t dev = 0, ino = 0;
  return parse_all(journal_stream.substr(0, colon), dev) &&
         parse_all(journal_stream.substr(colon + 1), ino) && dev == device && ino == inode;
}

LogTarget log_target(const char* journal_stream, int fd) {
  if (journal_stream == nullptr || *journal_stream == '\0') return LogTarget::stderr_text;
  struct stat st {};
  if (fstat(fd, &st) != 0) return LogTarget::stderr_text;
  return journal_stream_is(journal_stream, static_cast<uint64_t>(st.st_dev),
                           static_cast<uint64_t>(st.st_ino))
             ? LogTarget::journal
             : LogTarget::stderr_text;
}

}  // namespace wfod::daemon
