// Fuzzes the HTTP status endpoint's request handling (http_response on the request head,
// [publish] http) and the "host:port" parser behind that config key. Beyond "no crash, no
// leak, no UB" it asserts:
// - every request head gets one HTTP/1.1 response with a known status (200, 400, 404,
//   405, 503), a head of printable ASCII lines ended by a blank line, and a Content-Length
//   equal to the body's length (HEAD: the body is dropped, the length kept);
// - an address that parses has a non-empty host and a port in 1..65535, and "[host]:port"
//   written back parses to the same pair.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "wfod/daemon/publish/http_status.hpp"

namespace {

using namespace wfod::daemon;

HealthInput health_for(size_t size) {
  HealthInput h;
  h.degraded = size % 2 == 1;
  h.backend = "cpu";
  h.uptime_s = 3.25;
  h.symbols["GOOG"].bars = 2300;
  h.symbols["GOOG"].last_ts = 1'380'585'600'000'000'000;
  h.symbols["BTC/USD"] = SymbolHealth{};
  h.rejects = {{"parse", 3}};
  return h;
}

void check_response(std::string_view request, const std::string& r) {
  WFOD_FUZZ_CHECK(r.starts_with("HTTP/1.1 "), "a response starts with the status line");
  const std::string_view code = std::string_view(r).substr(9, 3);
  WFOD_FUZZ_CHECK(code == "200" || code == "400" || code == "404" || code == "405" || code == "503",
                  "a known status code");
  const size_t end_of_head = r.find("\r\n\r\n");
  WFOD_FUZZ_CHECK(end_of_head != std::string::npos, "the head ends with a blank line");
  const std::string_view head = std::string_view(r).substr(0, end_of_head + 2);
  for (size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    const bool crlf = (c == '\r' && i + 1 < head.size() && head[i + 1] == '\n') ||
                      (c == '\n' && i > 0 && head[i - 1] == '\r');
    WFOD_FUZZ_CHECK(crlf || (c >= 0x20 && c < 0x7f), "the head is printable ASCII lines");
  }
  constexpr std::string_view kLength = "Content-Length: ";
  const size_t at = head.find(kLength);
  WFOD_FUZZ_CHECK(at != std::string_view::npos, "a Content-Length header");
  size_t length = 0;
  const char* first = head.data() + at + kLength.size();
  const auto [ptr, ec] = std::from_chars(first, head.data() + head.size(), length);
  WFOD_FUZZ_CHECK(ec == std::errc() && *ptr == '\r', "Content-Length is a number");
  const size_t body = r.size() - end_of_head - 4;
  const bool head_request = request.starts_with("HEAD ") && code != "400";
  WFOD_FUZZ_CHECK(head_request ? body == 0 : body == length, "Content-Length matches the body");
}

void check_address(std::string_view text) {
  const auto parsed = parse_http_address(text);
  if (!parsed) return;
  const auto& [host, port] = *parsed;
  WFOD_FUZZ_CHECK(!host.empty() && port >= 1, "a parsed address has a host and a port");
  const std::string again = "[" + host + "]:" + std::to_string(port);
  const auto reparsed = parse_http_address(again);
  WFOD_FUZZ_CHECK(reparsed && *reparsed == *parsed, "[host]:port parses back the same");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check_response(bytes, http_response(bytes, health_for(size)));
  check_address(bytes);
  return 0;
}
