// Saves each stream's LiveState on a background thread, newest first-come: the event loop
// hands the state over after a publication is sent and goes back to the feeds, instead of
// spending a file write and rename (and, on some file systems, a block discard) between one
// bar's publication and the next bar. Only the newest state per stream is written; one that
// is superseded before its turn is skipped. A crash before the write leaves the previous
// publication's state, which is still a true statement (live_oos refers to an older
// publication), never one that was not sent.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "wfod/daemon/publish/snapshot.hpp"
#include "wfod/daemon/store/live_state.hpp"

namespace wfod::daemon {

class LiveStateWriter {
 public:
  // Failed saves are reported through `on_error` (from the writer thread).
  using ErrorHandler = std::function<void(const PublicationKey&, const IoError&)>;
  LiveStateWriter(LiveStateStore& store, ErrorHandler on_error);
  ~LiveStateWriter();
  LiveStateWriter(const LiveStateWriter&) = delete;
  LiveStateWriter& operator=(const LiveStateWriter&) = delete;

  // Queues the stream's newest state (replacing one still queued).
  void post(const PublicationKey& key, LiveState state);
  // Returns once every state posted before the call is written (or failed).
  void flush();
  // States written and states skipped because a newer one came first (for tests, health).
  uint64_t written() const;
  uint64_t superseded() const;
  // The latest save failed (set before on_error is called; cleared by the next success).
  bool failing() const;

 private:
  void run();

  LiveStateStore& store_;
  ErrorHandler on_error_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::map<PublicationKey, LiveState> pending_;
  bool busy_ = false, stopping_ = false, failing_ = false;
  uint64_t written_ = 0, superseded_ = 0;
  std::thread thread_;  // last: starts after the members it reads
};

}  // namespace wfod::daemon
