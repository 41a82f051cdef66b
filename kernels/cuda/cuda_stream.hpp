// The CUDA backend's incremental stream (Backend::open_stream): chunk summaries on the device.
#pragma once

#include <memory>

#include "wfod/backend.hpp"

namespace wfod::cuda {

// Throws std::invalid_argument when the per-combo caches do not fit the device's free memory
// (the message gives the sizes), CudaError on a CUDA failure.
std::unique_ptr<Stream> make_cuda_stream(const StreamSpec& spec, const HistoryView& history);

}  // namespace wfod::cuda
