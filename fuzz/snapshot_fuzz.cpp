// Fuzzes the snapshot REP request handler (snapshot_reply, PROTOCOL §3). The input is the
// request's frames separated by '\n' (a byte the handler refuses inside a frame anyway).
// Beyond "no crash, no leak, no UB" it asserts that every request gets exactly one reply
// and that the reply is well-formed JSON of the shape its request calls for:
// - ["get", SYM, STRAT] of a stored stream: the stored payload, byte for byte; of a
//   configured one without a publication: {"error": "no publication yet"}; of any other:
//   {"error": "unknown stream SYM.STRAT"};
// - ["list"]: {"streams": [...]} with one entry per stored stream and its seq;
// - ["health"]: an object whose "status" is "ok" or "degraded";
// - anything else: an object holding exactly one key, "error", with a string value.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "wfod/daemon/publish/snapshot.hpp"

namespace {

using namespace wfod::daemon;
using Json = nlohmann::json;

// Two streams as the daemon would hold them: the exact bytes of their last publication.
const PublicationMap& stored() {
  static const PublicationMap map = {
      {{"GOOG", "demo"},
       {42, R"({"schema":1,"symbol":"GOOG","strategy":"demo","seq":42,"params":{"fast":5}})"}},
      {{"BTC/USD", "trend-2"},
       {7, R"({"schema":1,"symbol":"BTC/USD","strategy":"trend-2","seq":7,"live_oos":null})"}},
  };
  return map;
}

// Health as the worker reports it; the input's size picks among the edge cases (NaN
// uptime, a symbol without bars, degraded) so that every branch of health_json runs.
HealthInput health_for(size_t size) {
  HealthInput h;
  h.degraded = size % 2 == 1;
  h.backend = "cpu";
  h.uptime_s = size % 3 == 0 ? std::numeric_limits<double>::quiet_NaN() : 12.5;
  h.symbols["GOOG"].bars = 2300;
  h.symbols["GOOG"].last_ts = 1'380'585'600'000'000'000;
  h.symbols["BTC/USD"] = SymbolHealth{};
  h.rejects = {{"parse", 3}, {"value", 1}};
  h.gaps = 1;
  h.coalesced = size;
  return h;
}

std::vector<std::string> split_frames(std::string_view bytes) {
  std::vector<std::string> frames;
  size_t start = 0;
  for (;;) {
    const size_t nl = bytes.find('\n', start);
    frames.emplace_back(bytes.substr(start, nl == std::string_view::npos ? nl : nl - start));
    if (nl == std::string_view::npos) return frames;
    start = nl + 1;
  }
}

// The configuration: the stored streams and one that has not published yet.
bool configured(const PublicationKey& key) {
  return stored().count(key) == 1 || key == PublicationKey{"GOOG", "idle"};
}

bool is_error_reply(const Json& j) {
  return j.is_object() && j.size() == 1 && j.contains("error") && j["error"].is_string();
}

void check_reply(const std::vector<std::string>& frames, const std::string& reply) {
  WFOD_FUZZ_CHECK(Json::accept(reply), "every reply is well-formed JSON");
  const Json j = Json::parse(reply);
  WFOD_FUZZ_CHECK(j.is_object(), "every reply is a JSON object");
  if (is_error_reply(j)) {
    // A valid get of a stream that exists never errors.
    const bool known_get = frames.size() == 3 && frames[0] == "get" &&
                           stored().count(PublicationKey{frames[1], frames[2]}) == 1;
    WFOD_FUZZ_CHECK(!known_get, "a stored stream is always served");
    if (frames.size() == 3 && frames[0] == "get" && j["error"] == "no publication yet") {
      WFOD_FUZZ_CHECK(configured(PublicationKey{frames[1], frames[2]}),
                      "only a configured stream is waiting for its first publication");
    }
    return;
  }
  WFOD_FUZZ_CHECK(!frames.empty(), "an empty request is an error");
  const std::string& verb = frames[0];
  if (verb == "get") {
    WFOD_FUZZ_CHECK(frames.size() == 3, "get takes exactly SYMBOL and STRATEGY");
    const auto it = stored().find(PublicationKey{frames[1], frames[2]});
    WFOD_FUZZ_CHECK(it != stored().end(), "get only answers stored streams");
    WFOD_FUZZ_CHECK(reply == it->second.payload, "get returns the stored bytes exactly");
  } else if (verb == "list") {
    WFOD_FUZZ_CHECK(frames.size() == 1, "list takes no arguments");
    WFOD_FUZZ_CHECK(j.size() == 1 && j.contains("streams") && j["streams"].is_array() &&
                        j["streams"].size() == stored().size(),
                    "list names every stored stream");
    for (const Json& s : j["streams"]) {
      const auto it = stored().find(PublicationKey{s.at("symbol"), s.at("strategy")});
      WFOD_FUZZ_CHECK(it != stored().end() && s.at("seq") == it->second.seq,
                      "list reports each stream's seq");
    }
  } else {
    WFOD_FUZZ_CHECK(verb == "health" && frames.size() == 1, "only get, list, health succeed");
    WFOD_FUZZ_CHECK(j.contains("status") && (j["status"] == "ok" || j["status"] == "degraded"),
                    "health reports ok or degraded");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> frames =
      size == 0 ? std::vector<std::string>{} : split_frames(bytes);
  const std::string reply =
      snapshot_reply(frames, stored(), configured, [size] { return health_for(size); });
  check_reply(frames, reply);
  return 0;
}
