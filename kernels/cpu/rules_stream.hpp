// The cpu backend's stream of a rules strategy (SPEC §5a): it keeps every bar from the anchor
// (volumes included) and re-sweeps the window through rules_lanes.hpp on every advance, so it
// is exact by construction; its queries (positions, returns, evaluate, block summaries) answer
// from those bars, and its checkpoint is the bars themselves under the spec's fingerprint. Not
// bounded and not incremental: docs/engine.md "Rules on the cpu backend" says why.
#pragma once

#include <memory>
#include <span>

#include "wfod/backend.hpp"

namespace wfod::cpu {

// `backend` (the cpu backend) answers the reported combos' positions; it outlives the stream.
std::unique_ptr<Stream> make_rules_stream(Backend& backend, const StreamSpec& spec,
                                          const HistoryView& history);
// The stream a rules stream's checkpoint() wrote, for the same spec: std::invalid_argument on
// a truncated, corrupted or foreign blob, another spec or format version.
std::unique_ptr<Stream> restore_rules_stream(Backend& backend, const StreamSpec& spec,
                                             std::span<const uint8_t> blob);
// What such a stream holds at most for `bars` bars (its bars; the sweep's rows come and go).
StreamMemory rules_stream_memory(const StreamSpec& spec);

}  // namespace wfod::cpu
