// SHA-256 (FIPS 180-4) of a byte string, for Config::sha256 (the config_version that
// PROTOCOL §2 publishes). Self-contained: one file hash per start needs no crypto library.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace wfod::config {

std::array<uint8_t, 32> sha256(std::string_view bytes);
// Lower-case hex, 64 characters.
std::string sha256_hex(std::string_view bytes);

}  // namespace wfod::config
