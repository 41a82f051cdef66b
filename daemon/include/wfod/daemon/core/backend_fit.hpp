// Whether the daemon's backend can run a strategy's streams, asked through the backend seam
// (Backend::supports, PositionTracker::follows), never by the backend's name: the daemon's
// config checks refuse what it cannot run at the strategy, at start, --check-config and reload.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "wfod/backend.hpp"

namespace wfod::daemon {

// Empty when `backend` runs `spec`'s streams in the daemon: it sweeps them (its own stream,
// else a re-sweeping one, EngineSlot::open), its robust selection where `selection` is on,
// and the published combo's positions bar by bar (signals, live_oos); else why not, in the
// backend's own words.
std::string stream_refusal(const Backend& backend, const StrategySpec& spec, bool selection);

// The backend `[daemon] backend = name` makes (choose_backend), made on the first call and
// kept by the returned function (and its copies); null when it cannot be made at all (no GPU
// for "cuda"): the start reports that itself.
std::function<Backend*()> lazy_backend(std::string name);

// stream_refusal on the backend `[daemon] backend = name` makes (choose_backend), made once
// on the first call: --check-config and start-up have none yet. Answers "" when the backend
// cannot be made at all (no GPU for "cuda"): the start reports that itself.
std::function<std::string(const StrategySpec&, bool selection)> lazy_stream_refusal(
    std::string name);

}  // namespace wfod::daemon
