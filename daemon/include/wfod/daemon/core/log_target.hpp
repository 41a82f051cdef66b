// Where the daemon's log lines go: to the systemd journal, natively, when its stderr is the
// stream systemd connected to the journal (so each line keeps its priority and carries no
// second timestamp), else to stderr as text with a timestamp. The choice is a pure function
// of JOURNAL_STREAM and stderr's identity, so it is unit-tested without systemd.
#pragma once

#include <cstdint>
#include <string_view>

namespace wfod::daemon {

enum class LogTarget {
  stderr_text,  // a terminal, a file, a pipe: "TIMESTAMP level message"
  journal,      // systemd's journal: sd_journal_send with PRIORITY=, the message alone
};

// JOURNAL_STREAM is "DEVICE:INODE" (decimal) of the stream systemd connected to the journal
// (systemd.exec(5)). True when it names the file with this device and inode number.
bool journal_stream_is(std::string_view journal_stream, uint64_t device, uint64_t inode);

// journal when `journal_stream` (JOURNAL_STREAM's value, null when unset) names the file
// open on `fd` (stderr): a child whose stderr was redirected inherits the variable but not
// the stream, and must keep writing text where it was sent.
LogTarget log_target(const char* journal_stream, int fd);

}  // namespace wfod::daemon
