// The backend "auto" hands out when a device backend can run (make_backend): each call goes
// to the device backend where its capability query (Backend::supports) accepts the work, and
// to the host backend where it refuses it. What does not depend on the family (the name,
// positions, restoring streams) stays with the device backend. Its own capability answer is
// yes where the device accepts, else the host's (work neither runs is refused by the host).
#pragma once

#include <memory>

#include "wfod/backend.hpp"

namespace wfod::detail {

std::unique_ptr<Backend> make_routing_backend(std::unique_ptr<Backend> device,
                                              std::unique_ptr<Backend> host);

}  // namespace wfod::detail
