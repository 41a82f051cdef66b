// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of every bar-log
// header and record and of publications.seq. Same value as zlib's crc32().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace wfod::daemon {

uint32_t crc32(const void* data, size_t size);
inline uint32_t crc32(std::string_view text) { return crc32(text.data(), text.size()); }
// Continues a running CRC: crc32_extend(crc32(a), b) == crc32(a + b).
uint32_t crc32_extend(uint32_t crc, const void* data, size_t size);

}  // namespace wfod::daemon
