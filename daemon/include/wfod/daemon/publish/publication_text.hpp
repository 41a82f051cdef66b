// The PROTOCOL §2 payload written straight to text: the same bytes as
// publication_json(in).dump() (keys, order, number format, null for non-finite values),
// without building a JSON tree first. It is what the daemon sends after every run, so it
// sits between a bar and its publication: a tree of ~300 nodes with their allocations cost
// ~0.1 ms per payload on the GPU host, the text writer a fraction of that.
#pragma once

#include <string>

#include "wfod/daemon/publish/publication.hpp"

namespace wfod::daemon {

std::string publication_text(const PublicationInput& in);

}  // namespace wfod::daemon
