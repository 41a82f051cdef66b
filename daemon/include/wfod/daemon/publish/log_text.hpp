// Values written into the daemon's `event key=value ...` log lines in a compact form that
// stays one token (no spaces), so a line can still be split on spaces and filtered.
#pragma once

#include <string>

#include "wfod/daemon/publish/publication.hpp"

namespace wfod::daemon {

// A publication's params object (params_json) as `{fast=10,slow=50,ma=sma,...}`: keys in the
// payload's order, strings unquoted (enum names), numbers as the payload writes them.
std::string params_log_text(const Json& params);

}  // namespace wfod::daemon
