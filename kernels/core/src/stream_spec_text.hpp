// What a stream's state depends on, as text (the grid, fill, costs, window and chunk; doubles
// by their bits) and its FNV-1a fingerprint: the spec section of every stream checkpoint
// (kernels/cpu/cpu_stream_checkpoint.cpp, kernels/cuda/cuda_stream_checkpoint.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "wfod/backend.hpp"

namespace wfod::detail {

std::string stream_spec_text(const StreamSpec& spec, size_t chunk);
uint64_t spec_fingerprint(const std::string& text);

}  // namespace wfod::detail
