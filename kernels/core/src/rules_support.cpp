// The refusal of rules strategies (SPEC §5a) for a backend that does not evaluate them (the
// engine's three all do now; cuda refuses only their streams, in its own words), next to
// stops_support: one message, so `wfo` and the routing backend behind "auto" tell the user the
// same thing, whichever backend refused.
#include <string>

#include "wfod/backend.hpp"

namespace wfod {

Support rules_support(std::string_view backend, const StrategySpec& strategy) {
  if (strategy.grid.family != Family::rules) return Support::yes();
  return Support::no("the " + std::string(backend) +
                     " backend does not run rules strategies yet (SPEC §5a); use --backend cpu "
                     "(or auto, which runs them on cpu)");
}

}  // namespace wfod
