// Tests of the feed wire codec (PROTOCOL §1, feeds/src/bar_codec.cpp): topic frames, JSON and
// binary payloads — a golden binary record, every reject reason with a minimal example,
// seeded encode->decode round trips (bit-exact) and seeded hostile bytes that must never crash.
#include "wfod/feeds/bar_codec.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "wfod/feeds/csv_reader.hpp"

namespace wfod::feeds {
namespace {

using namespace std::string_literals;

constexpr int64_t kTs = 1'700'000'000'000'000'000;  // 2023-11-14T22:13:20Z

Bar sample_bar() { return Bar{kTs, 100.5, 101.25, 99.75, 100.0, 12.5, 42}; }

// A JSON payload whose fields are given as raw JSON text, so tests can break one at a time.
std::string json_with(std::string_view ts = "1700000000000000000", std::string_view open = "100.5",
                      std::string_view extra = "") {
  return "{\"ts\":" + std::string(ts) + ",\"open\":" + std::string(open) +
         ",\"high\":101.25,\"low\":99.75,\"close\":100,\"volume\":12.5" + std::string(extra) + "}";
}

template <typename T>
Reject reject_of(const Decoded<T>& d) {
  if (const auto* r = std::get_if<Reject>(&d)) return *r;
  ADD_FAILURE() << "decoded where a reject was expected";
  return {RejectReason::frames, "<none>"};
}

Bar decoded_bar(const Decoded<Bar>& d) {
  if (const auto* b = std::get_if<Bar>(&d)) return *b;
  const Reject& r = std::get<Reject>(d);
  ADD_FAILURE() << "rejected (" << to_string(r.reason) << "): " << r.detail;
  return {};
}

RejectReason json_reason(std::string_view payload) {
  return reject_of(decode_json(payload)).reason;
}

void expect_same_bits(const Bar& a, const Bar& b) {
  EXPECT_EQ(a.ts_ns, b.ts_ns);
  EXPECT_EQ(std::bit_cast<uint64_t>(a.open), std::bit_cast<uint64_t>(b.open));
  EXPECT_EQ(std::bit_cast<uint64_t>(a.high), std::bit_cast<uint64_t>(b.high));
  EXPECT_EQ(std::bit_cast<uint64_t>(a.low), std::bit_cast<uint64_t>(b.low));
  EXPECT_EQ(std::bit_cast<uint64_t>(a.close), std::bit_cast<uint64_t>(b.close));
  EXPECT_EQ(std::bit_cast<uint64_t>(a.volume), std::bit_cast<uint64_t>(b.volume));
  EXPECT_EQ(a.seq, b.seq);
}

// Reject details go to logs: printable ASCII only, bounded.
void expect_loggable(const Reject& r) {
  EXPECT_LE(r.detail.size(), 400u);
  for (const char c : r.detail) {
    ASSERT_TRUE(c >= 0x20 && c < 0x7f) << "unprintable byte in detail: " << int(c);
  }
}

// ---------------------------------------------------------------------------------------
// Reasons and topics

TEST(BarCodec, ReasonNamesAreProtocolNames) {
  const std::vector<std::string> expected = {"frames",       "size",           "parse",
                                             "field",        "value",          "duplicate",
                                             "out_of_order", "unknown_symbol", "future"};
  ASSERT_EQ(kAllRejectReasons.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(kAllRejectReasons[i]), i);
    EXPECT_EQ(to_string(kAllRejectReasons[i]), expected[i]);
  }
}

TEST(BarCodec, SymbolRule) {
  EXPECT_TRUE(is_valid_symbol("BTCUSD"));
  EXPECT_TRUE(is_valid_symbol("a"));
  EXPECT_TRUE(is_valid_symbol("BRK.B_x:NYSE/2024-06"));
  EXPECT_TRUE(is_valid_symbol(std::string(32, 'X')));
  EXPECT_FALSE(is_valid_symbol(""));
  EXPECT_FALSE(is_valid_symbol(std::string(33, 'X')));
  for (const std::string& bad :
       std::vector<std::string>{"BTC USD", "BTC*", "BTC\0"s, "\xc3\xa9", "a,b", "a\"b", "a\\b"}) {
    EXPECT_FALSE(is_valid_symbol(bad)) << bad;
  }
}

TEST(BarCodec, Topic) {
  auto t = decode_topic("bars.BTCUSD");
  ASSERT_TRUE(std::holds_alternative<std::string_view>(t));
  EXPECT_EQ(std::get<std::string_view>(t), "BTCUSD");
  EXPECT_EQ(encode_topic("ETH/USD"), "bars.ETH/USD");
  EXPECT_EQ(std::get<std::string_view>(decode_topic(encode_topic("ETH/USD"))), "ETH/USD");
  EXPECT_EQ(std::get<std::string_view>(decode_topic("bars." + std::string(32, 'Z'))),
            std::string(32, 'Z'));
  for (const std::string& bad : std::vector<std::string>{
           "", "bars", "bars.", "bar.BTC", "BARS.BTC", "params.BTC.x", " bars.BTC", "bars.BTC ",
           "bars.BTC\0"s, "bars." + std::string(33, 'Z'), "bars.\xff\xfe"s}) {
    const Reject r = reject_of(decode_topic(bad));
    EXPECT_EQ(r.reason, RejectReason::frames) << bad;
    expect_loggable(r);
  }
}

TEST(BarCodec, MessageFrames) {
  const std::string topic = "bars.BTCUSD", payload = encode_json(sample_bar());
  const std::vector<std::string_view> good = {topic, payload};
  const auto m = decode_message(good, PayloadFormat::json);
  ASSERT_TRUE(std::holds_alternative<BarMessage>(m));
  EXPECT_EQ(std::get<BarMessage>(m).symbol, "BTCUSD");
  expect_same_bits(std::get<BarMessage>(m).bar, sample_bar());

  const std::vector<std::string_view> one = {topic}, three = {topic, payload, payload}, none;
  EXPECT_EQ(reject_of(decode_message(one, PayloadFormat::json)).reason, RejectReason::frames);
  EXPECT_EQ(reject_of(decode_message(three, PayloadFormat::json)).reason, RejectReason::frames);
  EXPECT_EQ(reject_of(decode_message(none, PayloadFormat::json)).reason, RejectReason::frames);
  const std::vector<std::string_view> bad_topic = {"bars.BTC USD", payload};
  EXPECT_EQ(reject_of(decode_message(bad_topic, PayloadFormat::json)).reason, RejectReason::frames);
  // The payload decoder is the one the feed's format names.
  EXPECT_EQ(reject_of(decode_message(good, PayloadFormat::binary)).reason, RejectReason::size);
  const std::string binary = encode_binary(sample_bar());
  const std::vector<std::string_view> good_binary = {topic, binary};
  EXPECT_TRUE(
      std::holds_alternative<BarMessage>(decode_message(good_binary, PayloadFormat::binary)));
}

// ---------------------------------------------------------------------------------------
// JSON

TEST(BarCodecJson, Decodes) {
  const Bar b = decoded_bar(decode_json(json_with()));
  EXPECT_EQ(b.ts_ns, kTs);
  EXPECT_EQ(b.open, 100.5);
  EXPECT_EQ(b.high, 101.25);
  EXPECT_EQ(b.low, 99.75);
  EXPECT_EQ(b.close, 100.0);  // a JSON integer is a number too
  EXPECT_EQ(b.volume, 12.5);
  EXPECT_EQ(b.seq, 0u);  // absent = none
  EXPECT_EQ(decoded_bar(decode_json(json_with("1700000000000000000", "100.5", ",\"seq\":7"))).seq,
            7u);
  EXPECT_EQ(decoded_bar(decode_json(json_with("1700000000000000000", "100.5", ",\"seq\":0"))).seq,
            0u);
  EXPECT_EQ(decoded_bar(decode_json(json_with("1700000000000000000", "100.5",
                                              ",\"seq\":18446744073709551615")))
                .seq,
            std::numeric_limits<uint64_t>::max());
  // Key order, whitespace and escaped key names do not matter.
  const Bar c =
      decoded_bar(decode_json(" {\n \"volume\" : 1e1, \"close\":2, "
                              "\"low\":1.5E0,\"high\":3,\"op\\u0065n\":2,\"ts\":-5 }\t"));
  EXPECT_EQ(c.ts_ns, -5);
  EXPECT_EQ(c.open, 2.0);
  EXPECT_EQ(c.low, 1.5);
  EXPECT_EQ(c.volume, 10.0);
}

TEST(BarCodecJson, UnknownFieldsAreIgnored) {
  const Bar b = decoded_bar(decode_json(json_with(
      "1700000000000000000", "100.5",
      ",\"symbol\":\"X\",\"nested\":{\"ts\":\"junk\",\"open\":[1,{\"seq\":-1}]},\"n\":null,"
      "\"flag\":true,\"big\":1e308,\"neg\":-12345678901234567890123,\"list\":[[[]]]")));
  EXPECT_EQ(b.ts_ns, kTs);
  EXPECT_EQ(b.open, 100.5);
  EXPECT_EQ(b.seq, 0u);  // the nested "seq" is not the bar's
}

TEST(BarCodecJson, IsoTimestamps) {
  EXPECT_EQ(decoded_bar(decode_json(json_with("\"2023-11-14T22:13:20Z\""))).ts_ns, kTs);
  // +02:00 local time is two hours ahead of UTC.
  EXPECT_EQ(decoded_bar(decode_json(json_with("\"2023-11-15T00:13:20.5+02:00\""))).ts_ns,
            kTs + 500'000'000);
  EXPECT_EQ(decoded_bar(decode_json(json_with("\"2023-11-14T17:13:20.000000001-05:00\""))).ts_ns,
            kTs + 1);
  EXPECT_EQ(decoded_bar(decode_json(json_with("\"2023-11-14 22:13:20\""))).ts_ns, kTs);
  EXPECT_EQ(decoded_bar(decode_json(json_with("\"1970-01-01\""))).ts_ns, 0);
  for (const std::string bad :
       {"\"\"", "\"2023-11-14T22:13:20+2\"", "\"2023-02-30\"", "\"2023-11-14T24:00:00Z\"",
        "\"1700000000000000000\"", "\"2262-04-12T00:00:00Z\"", "\"2023-11-14T22:13:20Z \""}) {
    EXPECT_EQ(json_reason(json_with(bad)), RejectReason::field) << bad;
  }
}

TEST(BarCodecJson, TimestampRange) {
  EXPECT_EQ(decoded_bar(decode_json(json_with("9223372036854775807"))).ts_ns,
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(decoded_bar(decode_json(json_with("-9223372036854775808"))).ts_ns,
            std::numeric_limits<int64_t>::min());
  for (const std::string bad :
       {"9223372036854775808", "-9223372036854775809", "18446744073709551616", "1e18", "1.7e18",
        "1700000000000000000.0", "123456789012345678901234567890"}) {
    const Reject r = reject_of(decode_json(json_with(bad)));
    EXPECT_EQ(r.reason, RejectReason::field) << bad;
    EXPECT_NE(r.detail.find("'ts'"), std::string::npos) << r.detail;
  }
}

TEST(BarCodecJson, FieldRejects) {
  // Each required key missing.
  for (const std::string key : {"ts", "open", "high", "low", "close", "volume"}) {
    std::string payload = json_with();
    const size_t at = payload.find("\"" + key + "\"");
    ASSERT_NE(at, std::string::npos);
    payload.replace(at, key.size() + 2, "\"x" + key + "\"");
    const Reject r = reject_of(decode_json(payload));
    EXPECT_EQ(r.reason, RejectReason::field) << payload;
    EXPECT_NE(r.detail.find("'" + key + "': missing"), std::string::npos) << r.detail;
  }
  // Numbers that are not JSON numbers.
  for (const std::string bad : {"\"100.5\"", "true", "null", "{}", "[100.5]"}) {
    EXPECT_EQ(json_reason(json_with("1700000000000000000", bad)), RejectReason::field) << bad;
    EXPECT_EQ(json_reason(json_with(bad)), RejectReason::field) << bad;
  }
  // seq: an unsigned integer or absent.
  for (const std::string bad : {"-1", "1.0", "1e3", "\"7\"", "null", "18446744073709551616"}) {
    EXPECT_EQ(json_reason(json_with("1700000000000000000", "100.5", ",\"seq\":" + bad)),
              RejectReason::field)
        << bad;
  }
  // A known key twice is ambiguous (readers differ on which wins): refused.
  const Reject dup = reject_of(decode_json(json_with("1", "100.5", ",\"ts\":2")));
  EXPECT_EQ(dup.reason, RejectReason::field);
  EXPECT_NE(dup.detail.find("'ts'"), std::string::npos) << dup.detail;
  // ... but a repeated unknown key is ignored like the key itself.
  EXPECT_TRUE(std::holds_alternative<Bar>(decode_json(json_with("1", "1", ",\"x\":1,\"x\":2"))));
}

TEST(BarCodecJson, ParseRejects) {
  const std::vector<std::string> bad = {
      "",
      " ",
      "{",
      "}",
      "[]",
      "1",
      "\"ts\"",
      "null",
      "[" + json_with() + "]",
      json_with() + "x",
      json_with() + json_with(),
      json_with() + ",",
      "{\"ts\":1,}",
      "{'ts':1}",
      "{\"ts\":01,\"open\":1,\"high\":1,\"low\":1,\"close\":1,\"volume\":1}",
      json_with("NaN"),
      json_with("1", "Infinity"),
      json_with("1", "1e999"),   // beyond float64: JSON has no infinity
      json_with("1", "-1e999"),  // (nlohmann refuses the literal)
      json_with("1", "+1"),
      json_with("1", ".5"),
      json_with("1", "0x10"),
      json_with() + "\0"s,                             // NUL after the object
      json_with() + "\0junk"s,                         // which nlohmann alone would ignore
      "{\"ts\":1\0,\"open\":1}"s,                      // NUL inside
      json_with("1", "1", ",\"s\":\"a\0b\""s),         // NUL in a string
      json_with("1", "1", ",\"s\":\"\xff\""),          // invalid UTF-8
      json_with("1", "1", ",\"s\":\"\xc3\""),          // truncated UTF-8 sequence
      json_with("1", "1", ",\"s\":\"\xed\xa0\x80\""),  // UTF-16 surrogate in UTF-8
      json_with("1", "1", ",\"s\":\"\\ud800\""),       // lone surrogate escape
      json_with("1", "1", "/* c */"),                  // comments are not JSON
      std::string(3000, '['),                          // deep and unclosed
      json_with("1", "1", ",\"x\":" + std::string(1500, '[') + std::string(1499, ']')),
  };
  for (const std::string& payload : bad) {
    SCOPED_TRACE(testing::Message()
                 << "payload (" << payload.size() << " bytes): " << payload.substr(0, 80));
    const Reject r = reject_of(decode_json(payload));
    EXPECT_EQ(r.reason, RejectReason::parse);
    expect_loggable(r);
  }
  // A message embedding a NUL inside the string field value of ts: "1\0"
  EXPECT_EQ(json_reason(json_with("\"2023-11-14\0\""s)), RejectReason::parse);
}

TEST(BarCodecJson, DeepNestingInAnUnknownFieldIsFine) {
  const std::string deep = std::string(2000, '[') + std::string(2000, ']');
  const std::string payload = json_with("1", "100.5", ",\"x\":" + deep);
  ASSERT_LE(payload.size(), kMaxJsonPayloadBytes);
  EXPECT_EQ(decoded_bar(decode_json(payload)).ts_ns, 1);
}

TEST(BarCodecJson, SizeLimit) {
  // Pad with an unknown string field to an exact length.
  const auto padded = [](size_t total) {
    const std::string base = json_with("1", "100.5", ",\"pad\":\"\"");
    std::string payload = base;
    payload.insert(payload.size() - 2, total - base.size(), 'p');
    EXPECT_EQ(payload.size(), total);
    return payload;
  };
  EXPECT_EQ(decoded_bar(decode_json(padded(4096))).ts_ns, 1);
  const Reject r = reject_of(decode_json(padded(4097)));
  EXPECT_EQ(r.reason, RejectReason::size);
  EXPECT_NE(r.detail.find("4097"), std::string::npos) << r.detail;
  // Whitespace counts: the limit is on bytes, not on content.
  EXPECT_EQ(json_reason(json_with() + std::string(4097, ' ')), RejectReason::size);
  EXPECT_EQ(json_reason(std::string(1 << 20, 'x')), RejectReason::size);
}

TEST(BarCodecJson, EncodeShape) {
  EXPECT_EQ(encode_json(sample_bar()),
            R"({"ts":1700000000000000000,"open":100.5,"high":101.25,"low":99.75,)"
            R"("close":100.0,"volume":12.5,"seq":42})");
  Bar no_seq = sample_bar();
  no_seq.seq = 0;
  EXPECT_EQ(encode_json(no_seq, JsonTs::iso),
            R"({"ts":"2023-11-14T22:13:20Z","open":100.5,"high":101.25,"low":99.75,)"
            R"("close":100.0,"volume":12.5})");
  Bar nan = sample_bar();
  nan.volume = std::nan("");
  EXPECT_THROW(encode_json(nan), std::invalid_argument);
  nan.volume = 1;
  nan.high = std::numeric_limits<double>::infinity();
  EXPECT_THROW(encode_json(nan), std::invalid_argument);
}

// Random finite doubles from random bit patterns: subnormals, huge, negative, -0.
double random_finite(std::mt19937_64& rng) {
  for (;;) {
    const double v = std::bit_cast<double>(rng());
    if (std::isfinite(v)) return v;
  }
}

Bar random_bar(std::mt19937_64& rng, bool any_bits) {
  Bar b;
  b.ts_ns = static_cast<int64_t>(rng());
  b.seq = rng() % 4 == 0 ? 0 : rng();
  if (any_bits) {
    b.open = random_finite(rng);
    b.high = random_finite(rng);
    b.low = random_finite(rng);
    b.close = random_finite(rng);
    b.volume = random_finite(rng);
  } else {  // prices as feeds send them
    std::uniform_real_distribution<double> price(0.01, 1e5);
    b.open = price(rng);
    b.close = price(rng);
    b.low = std::min(b.open, b.close) * 0.99;
    b.high = std::max(b.open, b.close) * 1.01;
    b.volume = std::floor(price(rng));
  }
  return b;
}

TEST(BarCodecJson, RoundTripIsBitExact) {
  // Edge values first.
  for (const double v : {0.0, -0.0, 1.0, -1.0, 0.1, 1e300, -1e-300, 5e-324, 2.2250738585072014e-308,
                         std::numeric_limits<double>::max(), 9007199254740993.0, 1e16 + 2,
                         1.8446744073709552e19, 123456789012345678901234567890.0}) {
    const Bar b{-1, v, v, v, v, v, 1};
    for (const JsonTs ts : {JsonTs::ns, JsonTs::iso}) {
      const std::string text = encode_json(b, ts);
      SCOPED_TRACE(text);
      expect_same_bits(decoded_bar(decode_json(text)), b);
    }
  }
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 2000; ++i) {
      const Bar b = random_bar(rng, i % 2 == 0);
      const JsonTs ts = i % 3 == 0 ? JsonTs::iso : JsonTs::ns;
      const std::string text = encode_json(b, ts);
      ASSERT_LE(text.size(), kMaxJsonPayloadBytes);
      const Decoded<Bar> d = decode_json(text);
      ASSERT_TRUE(std::holds_alternative<Bar>(d)) << text << ": " << std::get<Reject>(d).detail;
      expect_same_bits(std::get<Bar>(d), b);
      if (testing::Test::HasFailure()) return;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Binary

// The record docs/protocol.md shows as a hex dump (and Python's
// struct.pack('<4sIqdddddQ', b'WFB1', 0, 1700000000000000000, 100.5, 101.25, 99.75, 100.0,
// 12.5, 42) produces).
std::string golden_record() {
  const char* hex =
      "574642310000000000002a36fe9c9717"
      "00000000002059400000000000505940"
      "0000000000f058400000000000005940"
      "00000000000029402a00000000000000";
  std::string out;
  for (size_t i = 0; hex[i] != '\0'; i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex + i, 2), nullptr, 16));
  }
  return out;
}

TEST(BarCodecBinary, GoldenRecord) {
  const std::string record = golden_record();
  ASSERT_EQ(record.size(), kBinaryPayloadBytes);
  EXPECT_EQ(encode_binary(sample_bar()), record);
  expect_same_bits(decoded_bar(decode_binary(record)), sample_bar());
}

TEST(BarCodecBinary, SizeMagicFlags) {
  const std::string record = golden_record();
  for (const size_t n : {size_t{0}, size_t{4}, size_t{63}, size_t{65}, size_t{128}, size_t{4096}}) {
    std::string payload = record;
    payload.resize(n, '\0');
    const Reject r = reject_of(decode_binary(payload));
    EXPECT_EQ(r.reason, RejectReason::size) << n;
    EXPECT_NE(r.detail.find(std::to_string(n)), std::string::npos) << r.detail;
  }
  for (const std::string& magic :
       std::vector<std::string>{"WFB2", "wfb1", "\0\0\0\0"s, "\xff\xfe\x01\x02"s, "1BFW"}) {
    std::string payload = record;
    payload.replace(0, 4, magic);
    const Reject r = reject_of(decode_binary(payload));
    EXPECT_EQ(r.reason, RejectReason::parse);
    expect_loggable(r);
  }
  for (const size_t byte : {4, 5, 6, 7}) {
    std::string payload = record;
    payload[byte] = '\x01';
    EXPECT_EQ(reject_of(decode_binary(payload)).reason, RejectReason::field) << byte;
  }
  // A JSON text is not a binary record, even at 64 bytes.
  std::string json = json_with("1", "1");
  json.resize(64, ' ');
  EXPECT_EQ(reject_of(decode_binary(json)).reason, RejectReason::parse);
}

TEST(BarCodecBinary, LittleEndianFields) {
  // Byte-level expectations independent of the encoder.
  Bar b;
  b.ts_ns = -2;  // two's complement: fe ff ... ff
  b.open = -0.0;
  b.seq = 0x0102030405060708;
  const std::string r = encode_binary(b);
  EXPECT_EQ(r.substr(0, 8), "WFB1\0\0\0\0"s);
  EXPECT_EQ(r.substr(8, 8), "\xfe\xff\xff\xff\xff\xff\xff\xff"s);
  EXPECT_EQ(r.substr(16, 8), "\0\0\0\0\0\0\0\x80"s);
  EXPECT_EQ(r.substr(56, 8), "\x08\x07\x06\x05\x04\x03\x02\x01"s);
  expect_same_bits(decoded_bar(decode_binary(r)), b);
}

TEST(BarCodecBinary, RoundTripAnyBits) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 5000; ++i) {
      Bar b;
      b.ts_ns = static_cast<int64_t>(rng());
      // Any bit pattern, NaN payloads and infinities included: the binary format carries
      // them unchanged and leaves SPEC §1 to the validator.
      b.open = std::bit_cast<double>(rng());
      b.high = std::bit_cast<double>(rng());
      b.low = std::bit_cast<double>(rng());
      b.close = std::bit_cast<double>(rng());
      b.volume = std::bit_cast<double>(rng());
      b.seq = rng();
      const std::string r = encode_binary(b);
      ASSERT_EQ(r.size(), kBinaryPayloadBytes);
      expect_same_bits(decoded_bar(decode_binary(r)), b);
      if (testing::Test::HasFailure()) return;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Hostile input: whatever the bytes, a Reject (loggable) or a Bar — never a crash, never
// an exception. A decoded JSON bar also re-encodes and decodes to itself.

void check_hostile_json(std::string_view payload) {
  const Decoded<Bar> d = decode_json(payload);
  if (const auto* r = std::get_if<Reject>(&d)) {
    expect_loggable(*r);
    return;
  }
  const Bar& b = std::get<Bar>(d);
  for (const double v : {b.open, b.high, b.low, b.close, b.volume}) ASSERT_TRUE(std::isfinite(v));
  expect_same_bits(decoded_bar(decode_json(encode_json(b))), b);
}

void check_hostile_binary(std::string_view payload) {
  const Decoded<Bar> d = decode_binary(payload);
  if (const auto* r = std::get_if<Reject>(&d)) {
    expect_loggable(*r);
    return;
  }
  EXPECT_EQ(encode_binary(std::get<Bar>(d)), payload);
}

TEST(BarCodecHostile, RandomBytes) {
  constexpr uint64_t kSeed = 20240611;
  SCOPED_TRACE(testing::Message() << "seed " << kSeed);
  std::mt19937_64 rng(kSeed);
  // Three sources: uniform bytes, bytes from JSON's alphabet (which get further into the
  // parser), and valid messages with a few bytes changed, cut or duplicated.
  const std::string alphabet = "{}[]\",:0123456789.eE+-tsopenhigclwvumqfaxrbyz\\ \n\0\xff\xc3"s;
  std::uniform_int_distribution<size_t> length(0, 5000);
  std::mt19937_64 bar_rng(kSeed + 1);
  int decoded = 0;
  for (int i = 0; i < 100'000; ++i) {
    std::string payload;
    switch (i % 3) {
      case 0: {
        payload.resize(length(rng));
        for (char& c : payload) c = static_cast<char>(rng());
        break;
      }
      case 1: {
        payload.resize(length(rng) % 600);
        for (char& c : payload) c = alphabet[rng() % alphabet.size()];
        break;
      }
      default: {
        const Bar b = random_bar(bar_rng, false);
        payload =
            rng() % 2 ? encode_json(b, rng() % 2 ? JsonTs::ns : JsonTs::iso) : encode_binary(b);
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !payload.empty(); ++e) {
          const size_t at = rng() % payload.size();
          switch (rng() % 4) {
            case 0:
              payload[at] = static_cast<char>(rng());
              break;
            case 1:
              payload.erase(at, 1 + rng() % 8);
              break;
            case 2:
              payload.insert(at, payload.substr(at, 1 + rng() % 16));
              break;
            default:
              payload.resize(at);
          }
        }
      }
    }
    check_hostile_json(payload);
    check_hostile_binary(payload);
    decoded += std::holds_alternative<Bar>(decode_json(payload)) ? 1 : 0;
    if (testing::Test::HasFailure()) {
      ADD_FAILURE() << "iteration " << i << ", " << payload.size() << " bytes";
      return;
    }
  }
  // Some mutated messages stay valid (an edited digit): the JSON path was exercised.
  EXPECT_GT(decoded, 100);
}

}  // namespace
}  // namespace wfod::feeds
