// What the daemon asks a backend before it runs a strategy's streams (backend_fit.hpp).
#include "wfod/daemon/core/backend_fit.hpp"

#include <utility>

#include "wfod/position_tracker.hpp"

namespace wfod::daemon {

std::string stream_refusal(const Backend& backend, const StrategySpec& spec, bool selection) {
  // A refused stream falls back to re-sweeps (EngineSlot::open): sweeps are what must run.
  if (!backend.supports(Work::stream, spec).ok()) {
    if (Support s = backend.supports(Work::sweep, spec); !s.ok()) return s.refusal;
  }
  if (selection) {
    if (Support s = backend.supports(Work::selection, spec); !s.ok()) return s.refusal;
  }
  if (Support s = PositionTracker::follows(backend, spec); !s.ok()) return s.refusal;
  return "";
}

std::function<Backend*()> lazy_backend(std::string name) {
  struct Made {
    std::string name;
    bool tried = false;
    std::unique_ptr<Backend> backend;
  };
  auto made = std::make_shared<Made>();
  made->name = std::move(name);
  return [made]() -> Backend* {
    if (!made->tried) {
      made->tried = true;
      try {
        made->backend = choose_backend(made->name).backend;
      } catch (const std::exception&) {
        // unknown or unavailable: the config loader or the start says so
      }
    }
    return made->backend.get();
  };
}

std::function<std::string(const StrategySpec&, bool)> lazy_stream_refusal(std::string name) {
  return [backend = lazy_backend(std::move(name))](const StrategySpec& spec, bool selection) {
    Backend* b = backend();
    return b ? stream_refusal(*b, spec, selection) : std::string();
  };
}

}  // namespace wfod::daemon
