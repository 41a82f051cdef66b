// Factory of the cpu_ref backend: the float64 oracle every other backend is tested against
// (SPEC §9). SPEC written straight: single-threaded, one sequential pass per combo.
#pragma once

#include <memory>

#include "wfod/backend.hpp"

namespace wfod {

std::unique_ptr<Backend> make_cpu_ref_backend();

}  // namespace wfod
