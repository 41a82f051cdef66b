// The cpu backend's stream of a rules strategy (SPEC §5a), bounded: the grid's indicator rows
// as incremental states shared by the combos, the window's bars and rows in a ring, and every
// combo's exact state entering the window; each advance re-sweeps the window from those
// states, so it is bit-identical to a fresh sweep of the window on the history from the anchor.
// Its queries (positions, returns, tracker, evaluate, block summaries) answer from that state,
// and its checkpoint (WFODRULE v2) is that state under the spec's fingerprint. Memory and
// checkpoint are set by the window, the rows' look-back and the grid, not by uptime
// (docs/engine.md "Rules on the cpu backend").
#pragma once

#include <memory>
#include <span>

#include "wfod/backend.hpp"

namespace wfod::cpu {

// `backend` is the cpu backend (the stream needs nothing of it after the open).
std::unique_ptr<Stream> make_rules_stream(Backend& backend, const StreamSpec& spec,
                                          const HistoryView& history);
// The stream a rules stream's checkpoint() wrote, for the same spec: std::invalid_argument on
// a truncated, corrupted or foreign blob, another spec or format version (version 1, every bar
// from the anchor, included: the caller replays from its bars).
std::unique_ptr<Stream> restore_rules_stream(Backend& backend, const StreamSpec& spec,
                                             std::span<const uint8_t> blob);
// What such a stream holds at most, whatever the bars (its ring, its rows' states, its
// per-combo states; the sweep's lanes come and go).
StreamMemory rules_stream_memory(const StreamSpec& spec);

}  // namespace wfod::cpu
