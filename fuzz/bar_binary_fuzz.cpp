// Fuzzes the binary feed payload (PROTOCOL §1: 64 bytes, "WFB1", flags 0, little-endian).
// Beyond "no crash, no leak, no UB" it asserts:
// - decode_binary never throws; anything but 64 bytes is a `size` reject, and a reject
//   has a bounded, printable-ASCII detail;
// - an accepted record re-encodes to exactly the input bytes (every bit pattern of ts,
//   prices, volume and seq survives, NaN payloads and -0.0 included);
// - cross-codec: a bar with finite values round-trips bit-exactly through the JSON codec
//   (ts as int ns and as ISO-8601 text, i.e. format_timestamp -> parse_timestamp for
//   any int64 ts); a non-finite one makes encode_json throw std::invalid_argument.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "bar_equal.hpp"
#include "fuzz_check.hpp"
#include "wfod/feeds/bar_codec.hpp"

namespace {

using namespace wfod::feeds;

bool all_finite(const wfod::Bar& b) {
  return std::isfinite(b.open) && std::isfinite(b.high) && std::isfinite(b.low) &&
         std::isfinite(b.close) && std::isfinite(b.volume);
}

void check_json_round_trip(const wfod::Bar& bar, JsonTs ts) {
  const Decoded<wfod::Bar> decoded = decode_json(encode_json(bar, ts));
  WFOD_FUZZ_CHECK(std::holds_alternative<wfod::Bar>(decoded), "encode_json output decodes");
  WFOD_FUZZ_CHECK(wfod::fuzz::bit_equal(std::get<wfod::Bar>(decoded), bar),
                  "binary -> bar -> json -> bar is bit-exact");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view payload(reinterpret_cast<const char*>(data), size);
  const Decoded<wfod::Bar> decoded = decode_binary(payload);
  if (const auto* r = std::get_if<Reject>(&decoded)) {
    WFOD_FUZZ_CHECK(r->detail.size() <= 512, "reject detail is bounded");
    for (const char c : r->detail) {
      WFOD_FUZZ_CHECK(c >= 0x20 && c < 0x7f, "reject detail is printable ASCII");
    }
    WFOD_FUZZ_CHECK(size == kBinaryPayloadBytes || r->reason == RejectReason::size,
                    "a payload of the wrong size is a size reject");
    WFOD_FUZZ_CHECK(r->reason == RejectReason::size || r->reason == RejectReason::parse ||
                        r->reason == RejectReason::field,
                    "the binary decoder only gives size, parse and field rejects");
    return 0;
  }
  WFOD_FUZZ_CHECK(size == kBinaryPayloadBytes, "only 64-byte payloads decode");
  const wfod::Bar& bar = std::get<wfod::Bar>(decoded);
  WFOD_FUZZ_CHECK(encode_binary(bar) == payload, "encode_binary(decode_binary(p)) == p");

  if (all_finite(bar)) {
    check_json_round_trip(bar, JsonTs::ns);
    check_json_round_trip(bar, JsonTs::iso);
  } else {
    bool threw = false;
    try {
      (void)encode_json(bar);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    WFOD_FUZZ_CHECK(threw, "encode_json refuses non-finite values");
  }
  return 0;
}
