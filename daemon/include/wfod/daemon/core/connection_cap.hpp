// Who gives way when a connection to the HTTP status endpoint comes at [daemon]
// max_http_connections: below the cap it is admitted; at the cap the oldest connection still
// sending its request is closed for it (idle, or slower than a probe, which sends its request
// at once, so /healthz is answered whatever idle connections hold); when every open one is
// being answered, the new one is refused with 503 "too many connections". Either way at the
// cap it counts as refused (wfod_http_connections_refused_total). The daemon's sockets
// follow the decision (app/daemon_endpoints.cpp); tests/unit/daemon/core/connection_cap_test.cpp.
#pragma once

#include <cstddef>
#include <vector>

namespace wfod::daemon {

struct CapDecision {
  enum class Action { admit, close_oldest_idle, refuse };
  Action action = Action::admit;
  size_t close = 0;  // close_oldest_idle: the index of the connection to close
  bool at_cap() const { return action != Action::admit; }
};

// `answering[i]`: open connection i (oldest first) has sent its request and is being answered.
CapDecision admit_at_cap(const std::vector<bool>& answering, size_t max);

}  // namespace wfod::daemon
