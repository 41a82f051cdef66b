// CRC-32 (IEEE), slicing-by-8: eight 1 KiB tables, eight bytes per step. A restart checks
// every record of every bar log and every checkpoint (tens of MB per stream and symbol), so
// this runs at several GB/s instead of the ~0.4 GB/s of the one-byte-per-step loop.
#include "wfod/daemon/store/crc32.hpp"

#include <array>

namespace wfod::daemon {
namespace {

using Tables = std::array<std::array<uint32_t, 256>, 8>;

// tables[0] is the classic byte table; tables[k][b] is the CRC of byte b followed by k zero
// bytes, so eight bytes fold in with eight independent lookups.
constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (size_t k = 1; k < 8; ++k)
    for (uint32_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
  return t;
}

constexpr Tables kTables = make_tables();

// Little-endian whatever the host (compilers turn this into one load on x86).
uint32_t le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

uint32_t crc32_extend(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  const Tables& t = kTables;
  // Pre- and post-inversion are what make crc32(b, crc32(a)) continue a running value.
  crc = ~crc;
  for (; size >= 8; size -= 8, p += 8) {
    const uint32_t lo = le32(p) ^ crc, hi = le32(p + 4);
    crc = t[7][lo & 0xFFu] ^ t[6][(lo >> 8) & 0xFFu] ^ t[5][(lo >> 16) & 0xFFu] ^ t[4][lo >> 24] ^
          t[3][hi & 0xFFu] ^ t[2][(hi >> 8) & 0xFFu] ^ t[1][(hi >> 16) & 0xFFu] ^ t[0][hi >> 24];
  }
  for (; size > 0; --size, ++p) crc = t[0][(crc ^ *p) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

uint32_t crc32(const void* data, size_t size) { return crc32_extend(0, data, size); }

}  // namespace wfod::daemon
