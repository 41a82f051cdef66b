// Positions p_t (SPEC §2) of one combo from the anchor, extended as bars arrive: O(1) per bar
// per indicator series instead of a recomputation over the whole history. What the daemon
// needs for live_oos (SPEC §8) on every publication.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "wfod/backend.hpp"

namespace wfod {

class PositionTracker {
 public:
  PositionTracker(const StrategySpec& spec, const Combo& combo);
  ~PositionTracker();
  PositionTracker(PositionTracker&&) noexcept;
  PositionTracker& operator=(PositionTracker&&) noexcept;

  // p_t for every bar of `h`, which must extend the history of the previous call (bars from
  // the same anchor); identical to Backend::positions(h, spec, combo).
  const std::vector<int8_t>& extend(const HistoryView& h);
  const Combo& combo() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wfod
