// The fast CPU backend: threads over combos (8 combos side by side per lane group) or over
// time chunks when combos are few, every window built from Summary + combine.
#pragma once

#include <memory>

#include "wfod/backend.hpp"

namespace wfod {
std::unique_ptr<Backend> make_cpu_backend();
}  // namespace wfod
