// TEST ONLY: a Backend decorator that makes optimisations fail on demand, so the daemon's
// fallback to the CPU backend (docs/reliability.md "Faults") is tested without a GPU.
// Enabled only by the environment variable WFOD_TEST_BACKEND_FAULT, read once at start:
//   WFOD_TEST_BACKEND_FAULT=sweep:N   the Nth and every later sweep()/Stream::advance()
//                                     throws std::runtime_error, as a CUDA error would.
// Never set it in production: the daemon logs a warning at start when it is set.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "wfod/backend.hpp"
#include "wfod/env_knobs.hpp"

namespace wfod::daemon {

inline constexpr const char* kBackendFaultEnv = env_name(Env::test_backend_fault);

// The N of "sweep:N"; nullopt when the text is not that form (the caller says so).
std::optional<uint64_t> parse_backend_fault(const std::string& text);

// `inner` with faults from the Nth optimisation on; its name() is "<inner>+fault".
std::unique_ptr<Backend> make_fault_backend(std::unique_ptr<Backend> inner, uint64_t fail_from);

}  // namespace wfod::daemon
