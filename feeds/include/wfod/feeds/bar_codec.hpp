// Bar feed wire formats (PROTOCOL §1): the `bars.<SYMBOL>` topic frame, the `json` and
// `binary` payloads, and the reject reasons every feed input is counted by. Decoders take
// untrusted bytes and never throw; encoders serve the replay tool and the tests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "wfod/bar.hpp"

namespace wfod::feeds {

// Why a feed input was not accepted: exactly PROTOCOL §1's reason set, in its order.
enum class RejectReason {
  frames,          // not [topic, payload], or the topic frame is not bars.<SYMBOL>
  size,            // payload too long (json) or not 64 bytes (binary)
  parse,           // not valid JSON / not a JSON object / bad binary magic
  field,           // a field missing, duplicated, of the wrong type or out of its wire range
  value,           // a value breaking SPEC §1 (prices, volume, OHLC order)
  duplicate,       // ts equal to the symbol's last accepted ts
  out_of_order,    // ts older than the symbol's last accepted ts
  unknown_symbol,  // a well-formed topic whose symbol is not configured
  future,          // ts more than [daemon] max_future_s ahead of the daemon's clock (v1.1)
};
inline constexpr size_t kRejectReasonCount = 9;
inline constexpr std::array<RejectReason, kRejectReasonCount> kAllRejectReasons = {
    RejectReason::frames,       RejectReason::size,           RejectReason::parse,
    RejectReason::field,        RejectReason::value,          RejectReason::duplicate,
    RejectReason::out_of_order, RejectReason::unknown_symbol, RejectReason::future};

// The PROTOCOL name: "frames", "size", ... "unknown_symbol", "future".
std::string_view to_string(RejectReason reason);

struct Reject {
  RejectReason reason;
  std::string detail;  // for logs: printable ASCII, bounded, never the raw hostile bytes
};

// A decoder's answer: the decoded value or why not.
template <typename T>
using Decoded = std::variant<T, Reject>;

inline constexpr size_t kMaxJsonPayloadBytes = 4096;
inline constexpr size_t kBinaryPayloadBytes = 64;
inline constexpr std::string_view kBinaryMagic = "WFB1";
inline constexpr std::string_view kTopicPrefix = "bars.";

enum class PayloadFormat { json, binary };

// SPEC §1: 1-32 bytes of [A-Za-z0-9._:/-].
bool is_valid_symbol(std::string_view symbol);

// Topic frame -> symbol (a view into `topic`). Anything but "bars." + a valid symbol is a
// `frames` reject; whether the symbol is configured is the validator's question.
Decoded<std::string_view> decode_topic(std::string_view topic);
// "bars." + symbol; the symbol is not checked (tests publish bad topics with it).
std::string encode_topic(std::string_view symbol);

// JSON payload -> Bar. Rejects: size (> 4096 bytes), parse (not one valid UTF-8 JSON object,
// an embedded NUL, any number beyond float64 range such as 1e999: JSON has no infinity, so
// such a number cannot be held faithfully), field (a required key missing or repeated; ts
// not an int64 or a valid ISO-8601 string; a price or volume not a JSON number; seq present
// but not a uint64). Unknown keys are ignored, whatever they hold. seq absent or 0 both mean
// "no sequence number". Prices are not range-checked here: that is the validator's job.
Decoded<Bar> decode_json(std::string_view payload);
// Binary payload -> Bar. Rejects: size (not exactly 64 bytes), parse (magic not "WFB1"),
// field (flags not 0). Any bit pattern is a decoded double: SPEC §1 values are the
// validator's job.
Decoded<Bar> decode_binary(std::string_view payload);
Decoded<Bar> decode_payload(std::string_view payload, PayloadFormat format);

// One two-frame feed message, decoded.
struct BarMessage {
  std::string symbol;
  Bar bar;
};
// [topic, payload] -> symbol and bar. Rejects: frames (not exactly two frames, bad topic),
// then the payload decoder's rejects.
Decoded<BarMessage> decode_message(std::span<const std::string_view> frames, PayloadFormat format);

// How encode_json writes ts: integer nanoseconds, or ISO-8601 UTC text (format_timestamp).
enum class JsonTs { ns, iso };
// Bar -> compact JSON object. Prices and volume are written as shortest round-trip decimals,
// so decode_json(encode_json(b)) is bit-exact; seq is omitted when 0. Throws
// std::invalid_argument for a non-finite price or volume (JSON has no such numbers).
std::string encode_json(const Bar& bar, JsonTs ts = JsonTs::ns);
// Bar -> the 64-byte little-endian record (flags 0); any bit pattern, NaN included.
std::string encode_binary(const Bar& bar);

}  // namespace wfod::feeds
