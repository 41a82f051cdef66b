// The daemon's robust-selection step (docs/spec-10-selection.md): a pure function the
// worker calls after each sweep to decide what to publish (hysteresis against the combo
// published before, plateau mode, DSR gate) and the publication's "selection" object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "wfod/backend.hpp"
#include "wfod/daemon/publish/publication.hpp"
#include "wfod/selection/selection.hpp"

namespace wfod::daemon {

struct SelectionOutcome {
  std::optional<Ranked> publish;            // the combo to publish; none: nothing qualifies
  bool changed = false;                     // publish differs from the current combo
  std::string reason;                       // selection::Reason by name ("first", "held", ...)
  std::optional<double> current_objective;  // the current combo's objective on this window
  std::optional<double> dsr;                // the new winner's deflated Sharpe ratio
  selection::SelectionReport report;        // everything, for logs
  Json json;                                // PublicationInput::selection
};

// `current`: the id published before for this (symbol, strategy), if any. Uses `backend`
// for one block_summaries pass, the winner's positions and a few evaluate() calls.
SelectionOutcome selection_step(Backend& backend, const SweepRequest& request,
                                const SweepResult& result, std::optional<uint64_t> current,
                                const selection::SelectionSpec& spec);
// The same on any window source (a bounded stream's own window: EngineSlot::window_source).
SelectionOutcome selection_step(selection::WindowSource& window, const SweepResult& result,
                                std::optional<uint64_t> current,
                                const selection::SelectionSpec& spec);

// The publication's "selection" object (PROTOCOL §2 extension, additive).
Json selection_publication_json(const selection::SelectionReport&, const selection::SelectionSpec&);

}  // namespace wfod::daemon
