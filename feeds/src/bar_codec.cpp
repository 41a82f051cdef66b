// Feed wire formats (PROTOCOL §1): topic frame, JSON payload through nlohmann's SAX parser
// (no DOM: only top-level keys matter), and the 64-byte little-endian binary record built
// byte by byte so that it reads the same on any host.
#include "wfod/feeds/bar_codec.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "wfod/feeds/csv_reader.hpp"

namespace wfod::feeds {
namespace {

using json = nlohmann::json;

// Hostile bytes must not reach the logs raw: printable ASCII passes, everything else is
// \xHH, and long text is cut.
std::string printable(std::string_view text, size_t max_bytes = 48) {
  std::string out;
  const size_t n = std::min(text.size(), max_bytes);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

Reject reject(RejectReason reason, std::string detail) { return {reason, std::move(detail)}; }

// ---------------------------------------------------------------------------------------
// JSON

// The fields PROTOCOL §1 names, in the order their errors are reported.
enum Key { kTs, kOpen, kHigh, kLow, kClose, kVolume, kSeq, kKeyCount };
constexpr std::array<std::string_view, kKeyCount> kKeyNames = {"ts",    "open",   "high", "low",
                                                               "close", "volume", "seq"};

// What one top-level value was, as far as a bar field cares.
struct JsonScalar {
  enum class Kind { absent, int64, uint64, real, string, other };
  Kind kind = Kind::absent;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  bool integral_literal = false;  // a real that was written without '.', 'e' or 'E'
  std::string text;               // the string, or the number's literal for messages
  std::string_view type_name;     // for "... not a boolean" messages
};

// Collects the top-level fields of one object. Nested values are only counted through
// depth, so unknown fields of any shape cost nothing; nlohmann's parser keeps its own
// nesting on the heap, so depth is no stack risk either (and 4096 bytes bound it).
class BarSax : public nlohmann::json_sax<json> {
 public:
  std::array<JsonScalar, kKeyCount> fields;
  std::optional<Key> duplicate;  // the first known key seen twice
  bool top_is_object = false;
  std::optional<Reject> error;  // a syntax error: set by parse_error

  bool null() override { return scalar(JsonScalar::Kind::other, "null"); }
  bool boolean(bool) override { return scalar(JsonScalar::Kind::other, "a boolean"); }
  bool number_integer(number_integer_t v) override {
    if (JsonScalar* s = slot()) {
      s->kind = JsonScalar::Kind::int64;
      s->i = v;
      s->text = std::to_string(v);
    }
    return leaf();
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (JsonScalar* s = slot()) {
      s->kind = JsonScalar::Kind::uint64;
      s->u = v;
      s->text = std::to_string(v);
    }
    return leaf();
  }
  bool number_float(number_float_t v, const string_t& literal) override {
    if (JsonScalar* s = slot()) {
      s->kind = JsonScalar::Kind::real;
      s->d = v;
      s->integral_literal = literal.find_first_of(".eE") == std::string::npos;
      s->text = literal;
    }
    return leaf();
  }
  bool string(string_t& v) override {
    if (JsonScalar* s = slot()) {
      s->kind = JsonScalar::Kind::string;
      s->text = v;
      s->type_name = "a string";
    }
    return leaf();
  }
  bool binary(binary_t&) override { return scalar(JsonScalar::Kind::other, "binary"); }
  bool start_object(std::size_t) override {
    if (depth_ == 0) top_is_object = true;
    return open("an object");
  }
  bool start_array(std::size_t) override { return open("an array"); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    current_.reset();
    if (depth_ != 1) return true;
    for (int i = 0; i < kKeyCount; ++i) {
      if (k == kKeyNames[static_cast<size_t>(i)]) {
        const auto key = static_cast<Key>(i);
        if (fields[key].kind != JsonScalar::Kind::absent && !duplicate) duplicate = key;
        current_ = key;
      }
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
    std::string_view what = ex.what();
    if (const size_t cut = what.find("] "); cut != std::string_view::npos) {
      what.remove_prefix(cut + 2);
    }
    error = reject(RejectReason::parse, "invalid JSON at byte " + std::to_string(position) + ": " +
                                            printable(what, 160));
    return false;
  }

 private:
  // The field the value now being parsed belongs to, if it is a known top-level key.
  JsonScalar* slot() {
    if (depth_ != 1 || !current_) return nullptr;
    return &fields[*current_];
  }
  bool leaf() {
    current_.reset();
    return true;
  }
  bool scalar(JsonScalar::Kind kind, std::string_view type_name) {
    if (JsonScalar* s = slot()) {
      s->kind = kind;
      s->type_name = type_name;
    }
    return leaf();
  }
  bool open(std::string_view type_name) {
    scalar(JsonScalar::Kind::other, type_name);
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  size_t depth_ = 0;
  std::optional<Key> current_;
};

std::string_view type_of(const JsonScalar& s) {
  switch (s.kind) {
    case JsonScalar::Kind::string:
    case JsonScalar::Kind::other:
      return s.type_name;
    default:
      return "a number";
  }
}

std::string field_detail(Key key, std::string_view problem) {
  return "field '" + std::string(kKeyNames[key]) + "': " + std::string(problem);
}

// ts: an int64 of ns, or ISO-8601 text (parse_timestamp, the CSV reader's subset).
std::optional<Reject> read_ts(const JsonScalar& s, int64_t& ts_ns) {
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  switch (s.kind) {
    case JsonScalar::Kind::int64:
      ts_ns = s.i;
      return std::nullopt;
    case JsonScalar::Kind::uint64:
      if (s.u <= kMax) {
        ts_ns = static_cast<int64_t>(s.u);
        return std::nullopt;
      }
      return reject(RejectReason::field,
                    field_detail(kTs, "integer " + s.text + " outside the int64 range"));
    case JsonScalar::Kind::real:
      return reject(RejectReason::field,
                    field_detail(kTs, s.integral_literal ? "integer " + printable(s.text) +
                                                               " outside the int64 range"
                                                         : "not an integer (" + printable(s.text) +
                                                               "): ts is int ns or ISO-8601 text"));
    case JsonScalar::Kind::string:
      if (parse_timestamp(s.text, ts_ns)) return std::nullopt;
      return reject(RejectReason::field,
                    field_detail(kTs, "not an ISO-8601 timestamp in the int64 ns range (\"" +
                                          printable(s.text) + "\")"));
    default:
      return reject(
          RejectReason::field,
          field_detail(kTs, std::string(s.type_name) + ", expected int ns or ISO-8601 text"));
  }
}

// A price or the volume: any JSON number. Integers convert to the nearest double.
std::optional<Reject> read_number(Key key, const JsonScalar& s, double& value) {
  switch (s.kind) {
    case JsonScalar::Kind::int64:
      value = static_cast<double>(s.i);
      break;
    case JsonScalar::Kind::uint64:
      value = static_cast<double>(s.u);
      break;
    case JsonScalar::Kind::real:
      value = s.d;
      break;
    default:
      return reject(RejectReason::field,
                    field_detail(key, std::string(type_of(s)) + ", expected a JSON number"));
  }
  // nlohmann refuses overflowing literals, so this is defence in depth.
  if (!std::isfinite(value)) {
    return reject(RejectReason::value, field_detail(key, "not finite (" + printable(s.text) + ")"));
  }
  return std::nullopt;
}

std::optional<Reject> read_seq(const JsonScalar& s, uint64_t& seq) {
  switch (s.kind) {
    case JsonScalar::Kind::uint64:
      seq = s.u;
      return std::nullopt;
    case JsonScalar::Kind::int64:  // nlohmann reports only negative integers as int64
      return reject(RejectReason::field, field_detail(kSeq, "negative (" + s.text + ")"));
    case JsonScalar::Kind::real:
      return reject(RejectReason::field,
                    field_detail(kSeq, (s.integral_literal ? "outside the uint64 range ("
                                                           : "not an integer (") +
                                           printable(s.text) + ")"));
    default:
      return reject(RejectReason::field,
                    field_detail(kSeq, std::string(s.type_name) + ", expected a uint64"));
  }
}

Decoded<Bar> decode_json_unguarded(std::string_view payload) {
  if (payload.size() > kMaxJsonPayloadBytes) {
    return reject(RejectReason::size, "json payload of " + std::to_string(payload.size()) +
                                          " bytes, at most " +
                                          std::to_string(kMaxJsonPayloadBytes) + " allowed");
  }
  // nlohmann's lexer takes a NUL byte for the end of input, which would let "{...}\0junk"
  // through; valid JSON text never holds a raw NUL, so refuse it up front.
  if (const size_t nul = payload.find('\0'); nul != std::string_view::npos) {
    return reject(RejectReason::parse, "invalid JSON: NUL byte at " + std::to_string(nul));
  }
  BarSax sax;
  const bool ok = json::sax_parse(payload.begin(), payload.end(), &sax, json::input_format_t::json,
                                  /*strict=*/true);
  if (!ok || sax.error) {
    return sax.error ? *sax.error : reject(RejectReason::parse, "invalid JSON");
  }
  if (!sax.top_is_object) return reject(RejectReason::parse, "payload is not a JSON object");
  if (sax.duplicate) {
    return reject(RejectReason::field, field_detail(*sax.duplicate, "appears more than once"));
  }
  for (int i = 0; i < kSeq; ++i) {
    if (sax.fields[static_cast<size_t>(i)].kind == JsonScalar::Kind::absent) {
      return reject(RejectReason::field, field_detail(static_cast<Key>(i), "missing"));
    }
  }
  Bar bar;
  if (auto r = read_ts(sax.fields[kTs], bar.ts_ns)) return *r;
  double* const numbers[] = {&bar.open, &bar.high, &bar.low, &bar.close, &bar.volume};
  for (int i = kOpen; i <= kVolume; ++i) {
    const auto key = static_cast<Key>(i);
    if (auto r = read_number(key, sax.fields[key], *numbers[i - kOpen])) return *r;
  }
  if (sax.fields[kSeq].kind != JsonScalar::Kind::absent) {
    if (auto r = read_seq(sax.fields[kSeq], bar.seq)) return *r;
  }
  return bar;
}

// Shortest decimal that reads back as the same double, always with a '.' or exponent so
// that -0.0 keeps its sign (JSON "-0" reads back as the integer 0).
void append_number(std::string& out, double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string_view text(buf, static_cast<size_t>(end - buf));
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

// ---------------------------------------------------------------------------------------
// Binary: explicit little-endian byte assembly (no host-order casts, no unaligned reads).

uint64_t load_le(const unsigned char* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

void store_le(unsigned char* p, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// Field offsets of the record (docs/protocol.md shows them on a hex dump).
constexpr size_t kOffMagic = 0, kOffFlags = 4, kOffTs = 8, kOffOpen = 16, kOffSeq = 56;

}  // namespace

std::string_view to_string(RejectReason reason) {
  switch (reason) {
    case RejectReason::frames:
      return "frames";
    case RejectReason::size:
      return "size";
    case RejectReason::parse:
      return "parse";
    case RejectReason::field:
      return "field";
    case RejectReason::value:
      return "value";
    case RejectReason::duplicate:
      return "duplicate";
    case RejectReason::out_of_order:
      return "out_of_order";
    case RejectReason::unknown_symbol:
      return "unknown_symbol";
    case RejectReason::future:
      return "future";
  }
  return "unknown";
}

bool is_valid_symbol(std::string_view symbol) {
  if (symbol.empty() || symbol.size() > 32) return false;
  for (const char c : symbol) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == ':' || c == '/' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Decoded<std::string_view> decode_topic(std::string_view topic) {
  if (!topic.starts_with(kTopicPrefix)) {
    return reject(RejectReason::frames, "topic \"" + printable(topic) + "\" is not bars.<SYMBOL>");
  }
  const std::string_view symbol = topic.substr(kTopicPrefix.size());
  if (!is_valid_symbol(symbol)) {
    return reject(RejectReason::frames, "topic \"" + printable(topic) +
                                            "\": symbol is not 1-32 bytes of [A-Za-z0-9._:/-]");
  }
  return symbol;
}

std::string encode_topic(std::string_view symbol) {
  return std::string(kTopicPrefix) + std::string(symbol);
}

Decoded<Bar> decode_json(std::string_view payload) {
  // The parser does not throw on bad input (the handler answers parse_error); the guard
  // keeps the promise even for allocation failure.
  try {
    return decode_json_unguarded(payload);
  } catch (const std::exception& e) {
    return reject(RejectReason::parse, "json decoder failed: " + printable(e.what(), 160));
  }
}

Decoded<Bar> decode_binary(std::string_view payload) {
  if (payload.size() != kBinaryPayloadBytes) {
    return reject(RejectReason::size, "binary payload of " + std::to_string(payload.size()) +
                                          " bytes, expected " +
                                          std::to_string(kBinaryPayloadBytes));
  }
  unsigned char b[kBinaryPayloadBytes];
  std::memcpy(b, payload.data(), sizeof b);
  if (payload.substr(kOffMagic, 4) != kBinaryMagic) {
    return reject(RejectReason::parse, "binary magic \"" + printable(payload.substr(kOffMagic, 4)) +
                                           "\", expected WFB1");
  }
  const uint64_t flags = load_le(b + kOffFlags, 4);
  if (flags != 0) {
    return reject(RejectReason::field,
                  "binary flags " + std::to_string(flags) + ", expected 0 (none defined in v1)");
  }
  Bar bar;
  bar.ts_ns = static_cast<int64_t>(load_le(b + kOffTs, 8));  // two's complement (C++20)
  double* const numbers[] = {&bar.open, &bar.high, &bar.low, &bar.close, &bar.volume};
  for (size_t i = 0; i < 5; ++i) {
    *numbers[i] = std::bit_cast<double>(load_le(b + kOffOpen + 8 * i, 8));
  }
  bar.seq = load_le(b + kOffSeq, 8);
  return bar;
}

Decoded<Bar> decode_payload(std::string_view payload, PayloadFormat format) {
  return format == PayloadFormat::json ? decode_json(payload) : decode_binary(payload);
}

Decoded<BarMessage> decode_message(std::span<const std::string_view> frames, PayloadFormat format) {
  if (frames.size() != 2) {
    return reject(RejectReason::frames, "message of " + std::to_string(frames.size()) +
                                            " frames, expected 2 [topic, payload]");
  }
  auto topic = decode_topic(frames[0]);
  if (auto* r = std::get_if<Reject>(&topic)) return std::move(*r);
  auto bar = decode_payload(frames[1], format);
  if (auto* r = std::get_if<Reject>(&bar)) return std::move(*r);
  return BarMessage{std::string(std::get<std::string_view>(topic)), std::get<Bar>(bar)};
}

std::string encode_json(const Bar& bar, JsonTs ts) {
  const double numbers[] = {bar.open, bar.high, bar.low, bar.close, bar.volume};
  for (size_t i = 0; i < 5; ++i) {
    if (!std::isfinite(numbers[i])) {
      throw std::invalid_argument("encode_json: " + std::string(kKeyNames[kOpen + i]) +
                                  " is not finite; JSON cannot carry it");
    }
  }
  std::string out = "{\"ts\":";
  if (ts == JsonTs::iso) {
    out += '"' + format_timestamp(bar.ts_ns) + '"';
  } else {
    out += std::to_string(bar.ts_ns);
  }
  for (size_t i = 0; i < 5; ++i) {
    out += ",\"";
    out += kKeyNames[kOpen + i];
    out += "\":";
    append_number(out, numbers[i]);
  }
  if (bar.seq != 0) out += ",\"seq\":" + std::to_string(bar.seq);
  out += '}';
  return out;
}

std::string encode_binary(const Bar& bar) {
  unsigned char b[kBinaryPayloadBytes] = {};
  std::memcpy(b + kOffMagic, kBinaryMagic.data(), 4);
  store_le(b + kOffFlags, 0, 4);
  store_le(b + kOffTs, static_cast<uint64_t>(bar.ts_ns), 8);
  const double numbers[] = {bar.open, bar.high, bar.low, bar.close, bar.volume};
  for (size_t i = 0; i < 5; ++i) {
    store_le(b + kOffOpen + 8 * i, std::bit_cast<uint64_t>(numbers[i]), 8);
  }
  store_le(b + kOffSeq, bar.seq, 8);
  return std::string(reinterpret_cast<const char*>(b), sizeof b);
}

}  // namespace wfod::feeds
