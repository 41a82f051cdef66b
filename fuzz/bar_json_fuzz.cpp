// Fuzzes the JSON feed path (PROTOCOL §1): decode_json on the payload and decode_topic on
// the same bytes as a topic frame. Beyond "no crash, no leak, no UB" it asserts:
// - decoders never throw; a reject has a PROTOCOL §1 codec reason and a bounded,
//   printable-ASCII detail (it goes to the logs), and anything over 4096 bytes is `size`;
// - an accepted bar has finite prices and volume and round-trips bit-exactly through
//   encode_json -> decode_json, with ts written as int ns and as ISO-8601 text, and the
//   re-encoded payload itself fits the 4096-byte limit;
// - an accepted topic is "bars." + a valid symbol and re-encodes to the same bytes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "bar_equal.hpp"
#include "fuzz_check.hpp"
#include "wfod/feeds/bar_codec.hpp"

namespace {

using namespace wfod::feeds;

void check_reject_detail(const Reject& r) {
  WFOD_FUZZ_CHECK(r.detail.size() <= 512, "reject detail is bounded");
  for (const char c : r.detail) {
    WFOD_FUZZ_CHECK(c >= 0x20 && c < 0x7f, "reject detail is printable ASCII");
  }
}

void check_round_trip(const wfod::Bar& bar, JsonTs ts) {
  const std::string again = encode_json(bar, ts);
  WFOD_FUZZ_CHECK(again.size() <= kMaxJsonPayloadBytes, "re-encoded payload fits the limit");
  const Decoded<wfod::Bar> decoded = decode_json(again);
  WFOD_FUZZ_CHECK(std::holds_alternative<wfod::Bar>(decoded), "encode_json output decodes");
  WFOD_FUZZ_CHECK(wfod::fuzz::bit_equal(std::get<wfod::Bar>(decoded), bar),
                  "decode(encode(bar)) == bar, bit for bit");
}

void fuzz_payload(std::string_view payload) {
  const Decoded<wfod::Bar> decoded = decode_json(payload);
  if (const auto* r = std::get_if<Reject>(&decoded)) {
    check_reject_detail(*r);
    WFOD_FUZZ_CHECK(r->reason == RejectReason::size || r->reason == RejectReason::parse ||
                        r->reason == RejectReason::field || r->reason == RejectReason::value,
                    "the JSON decoder only gives codec reasons");
    WFOD_FUZZ_CHECK(payload.size() <= kMaxJsonPayloadBytes || r->reason == RejectReason::size,
                    "an oversized payload is a size reject");
    return;
  }
  WFOD_FUZZ_CHECK(payload.size() <= kMaxJsonPayloadBytes, "an oversized payload is rejected");
  const wfod::Bar& bar = std::get<wfod::Bar>(decoded);
  for (const double v : {bar.open, bar.high, bar.low, bar.close, bar.volume}) {
    WFOD_FUZZ_CHECK(std::isfinite(v), "decoded prices and volume are finite");
  }
  check_round_trip(bar, JsonTs::ns);
  check_round_trip(bar, JsonTs::iso);
}

void fuzz_topic(std::string_view topic) {
  const Decoded<std::string_view> decoded = decode_topic(topic);
  if (const auto* r = std::get_if<Reject>(&decoded)) {
    check_reject_detail(*r);
    WFOD_FUZZ_CHECK(r->reason == RejectReason::frames, "a bad topic is a frames reject");
    return;
  }
  const std::string_view symbol = std::get<std::string_view>(decoded);
  WFOD_FUZZ_CHECK(is_valid_symbol(symbol), "an accepted topic names a valid symbol");
  WFOD_FUZZ_CHECK(encode_topic(symbol) == topic, "encode_topic(decode_topic(t)) == t");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fuzz_payload(bytes);
  fuzz_topic(bytes);
  return 0;
}
