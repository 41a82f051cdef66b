// The refusal of a rules strategy's stream (SPEC §5a) by a backend whose streams do not run
// rules yet (the cpu backend: it runs them in sweeps, evaluations, block summaries and
// positions), beside wfod/backend.hpp's rules_support for backends that run none (cuda).
#pragma once

#include <string_view>

#include "wfod/backend.hpp"

namespace wfod {

Support rules_stream_support(std::string_view backend, const StrategySpec& strategy);

}  // namespace wfod
