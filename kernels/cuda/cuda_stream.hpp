// The CUDA backend's incremental stream (Backend::open_stream): chunk summaries on the device.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "wfod/backend.hpp"

namespace wfod::cuda {

// Throws std::invalid_argument when the per-combo caches do not fit the device's free memory
// (the message gives the sizes), CudaError on a CUDA failure.
std::unique_ptr<Stream> make_cuda_stream(const StreamSpec& spec, const HistoryView& history);
// Backend::restore_stream of the cuda backend: the stream a cuda stream's checkpoint() wrote
// (cuda_stream_checkpoint.cu); std::invalid_argument naming what is wrong with the blob.
std::unique_ptr<Stream> restore_cuda_stream(const StreamSpec& spec, std::span<const uint8_t> blob);

// Whether the stream's host-side rolling indicators (kernels/core/src/rolling_indicators.hpp, the
// cpu backend's) build the level families' rows: SMA(n) and STD(n) for bollinger, RSI(n)
// for rsi_reversion. Until they do, those families' cuda streams are refused (supports()).
bool streams_run_level_families();

// Backend::stream_memory of the cuda backend: the device bytes make_cuda_stream allocates for
// `spec` (its refusal compares them with the device's free memory) and its host staging.
StreamMemory cuda_stream_memory(const StreamSpec& spec);

}  // namespace wfod::cuda
