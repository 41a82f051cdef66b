// The HTTP endpoint's connection cap (connection_cap.hpp).
#include "wfod/daemon/core/connection_cap.hpp"

namespace wfod::daemon {

CapDecision admit_at_cap(const std::vector<bool>& answering, size_t max) {
  CapDecision d;
  if (answering.size() < max) return d;
  for (size_t i = 0; i < answering.size(); ++i) {
    if (!answering[i]) {
      d.action = CapDecision::Action::close_oldest_idle;
      d.close = i;
      return d;
    }
  }
  d.action = CapDecision::Action::refuse;
  return d;
}

}  // namespace wfod::daemon
