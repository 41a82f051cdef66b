// One (symbol, strategy)'s optimisation state kept across runs: the backend's Stream
// (Backend::open_stream), opened on the history from the anchor and advanced by the bars
// that arrived since, so a run costs the new bars instead of the whole window (issue 5),
// and the CUDA backend keeps the window on the device. Used by the worker thread only.
#pragma once

#include <memory>
#include <string>

#include "wfod/backend.hpp"

namespace wfod::daemon {

class StreamSlot {
 public:
  // The window of `request` (history from the anchor; the window ends at its last bar),
  // through the stream: opened on first use or when `backend` changed, else advanced by
  // the history's new bars. When the backend cannot hold the stream (its memory plan),
  // falls back to the re-sweeping default stream and says why in fallback_reason().
  SweepResult run(Backend& backend, const SweepRequest& request);

  // Set after an open: the stream's figures, and whether this run opened it.
  const StreamStats& stats() const { return stats_; }
  bool opened_now() const { return opened_now_; }
  const std::string& fallback_reason() const { return fallback_reason_; }

 private:
  const Backend* owner_ = nullptr;
  std::unique_ptr<Stream> stream_;
  size_t bars_ = 0;  // history bars the stream holds
  StreamStats stats_;
  bool opened_now_ = false;
  std::string fallback_reason_;
};

}  // namespace wfod::daemon
