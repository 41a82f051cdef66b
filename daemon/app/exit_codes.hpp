// wfod's exit statuses, as docs/operations.md "Exit codes" lists them for operators and
// systemd (a non-zero exit is a failure; Restart=on-failure restarts it unless it was
// stopped with systemctl stop).
#pragma once

namespace wfod::daemon {

inline constexpr int kExitOk = 0;
// Start-up failed on something outside the configuration file's text: an endpoint in use,
// a bar log locked by another wfod, a corrupt publications.seq, a bad backfill file, an
// unusable backend. Also an unexpected exception.
inline constexpr int kExitStartFailed = 1;
// The configuration is invalid (--config / --check-config), or names a state_dir that
// cannot be created. (3 is the corrupt-bar-log refusal, PROTOCOL §4 on_corrupt_log.)
inline constexpr int kExitBadConfig = 2;
inline constexpr int kExitCorruptLog =
    3;  // a bar log failed its checks (on_corrupt_log = "refuse")
// Stopped with accepted bars that could not be written: the disk still refused them after
// [daemon] stop_retry_s of retries. The log names how many, per symbol.
inline constexpr int kExitBarsLost = 4;

}  // namespace wfod::daemon
