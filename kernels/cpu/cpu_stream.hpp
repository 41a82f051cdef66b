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
// Backend::stream_memory of the cpu backend: what make_cpu_stream(spec, ...) holds at most.
StreamMemory cpu_stream_memory(const StreamSpec& spec);

}  // namespace wfod::cpu
