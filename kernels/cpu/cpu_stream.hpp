// The CPU backend's incremental stream (Backend::open_stream): cached per-chunk summaries.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "wfod/backend.hpp"

namespace wfod::cpu {

std::unique_ptr<Stream> make_cpu_stream(const StreamSpec& spec, const HistoryView& history);
// Backend::restore_stream of the cpu backend (cpu_stream_checkpoint.cpp).
std::unique_ptr<Stream> restore_cpu_stream(const StreamSpec& spec, std::span<const uint8_t> blob);

// Bars per cached chunk for a window of W bars when the spec leaves it to us: about
// 2 sqrt(W), a power of two in [16, 4096]. A run costs ~C bars per combo (the replayed head
// chunk) plus O(1) combines; the cache costs ~W/C summaries per combo.
size_t default_stream_chunk(size_t window);

}  // namespace wfod::cpu
