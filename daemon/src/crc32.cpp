// CRC-32 (IEEE), table-driven, one byte per step: the logs are small and read once at
// start, so the 1 KiB table is the right size/speed trade-off.
#include "wfod/daemon/crc32.hpp"

#include <array>

namespace wfod::daemon {
namespace {

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

uint32_t crc32_extend(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  // Pre- and post-inversion are what make crc32(b, crc32(a)) continue a running value.
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = kTable[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

uint32_t crc32(const void* data, size_t size) { return crc32_extend(0, data, size); }

}  // namespace wfod::daemon
