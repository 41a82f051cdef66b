// What a wfod daemon sends (PROTOCOL §2, §2a) as typed values, and its topic names. Header
// only, nlohmann::json; the C++ twin of clients/python/wfod_client/messages.py.
//
// A topic is `params.<SYMBOL>.<STRATEGY>` or `signal.<SYMBOL>.<STRATEGY>`. Symbols may contain
// `.` (`BRK.B`) but strategy names may not, so the strategy is the text after the last `.`.
// ZeroMQ subscriptions are prefix matches (`params.BRK.B` matches `params.BRK.B.x` too): a
// client compares whole topics, never prefixes.
#pragma once

#include <compare>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace wfod::client {

inline constexpr std::string_view kParamsPrefix = "params.";
inline constexpr std::string_view kSignalPrefix = "signal.";

// One (symbol, strategy) stream of a daemon.
struct StreamKey {
  std::string symbol;
  std::string strategy;

  // The exact topic of its publications.
  std::string params_topic() const { return std::string(kParamsPrefix) + symbol + "." + strategy; }
  // The exact topic of its per-bar signals.
  std::string signal_topic() const { return std::string(kSignalPrefix) + symbol + "." + strategy; }
  // "SYMBOL.STRATEGY", as the daemon names a stream.
  std::string name() const { return symbol + "." + strategy; }

  auto operator<=>(const StreamKey&) const = default;
  bool operator==(const StreamKey&) const = default;
};

enum class TopicKind { params, signal };

// Splits `params.S.N` / `signal.S.N` into its kind and stream; nullopt for anything else
// (another prefix, no `.` between symbol and strategy, an empty part).
inline std::optional<std::pair<TopicKind, StreamKey>> parse_topic(std::string_view topic) {
  for (auto [kind, prefix] :
       {std::pair{TopicKind::params, kParamsPrefix}, std::pair{TopicKind::signal, kSignalPrefix}}) {
    if (topic.substr(0, prefix.size()) != prefix) continue;
    const std::string_view rest = topic.substr(prefix.size());
    const size_t dot = rest.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == rest.size()) return std::nullopt;
    return std::pair{
        kind, StreamKey{std::string(rest.substr(0, dot)), std::string(rest.substr(dot + 1))}};
  }
  return std::nullopt;
}

// One parameter update (PROTOCOL §2): the combo a stream's last optimisation chose.
// `position` is the combo's p_T at the window's last bar (`position_ts`), what it holds from
// the next bar on; nullopt when the daemon sent none (a v1 daemon). `from_snapshot` is true
// when it came from a `get` reply rather than the PUB socket.
struct Publication {
  StreamKey stream;
  int64_t seq = 0;
  int64_t id = 0;
  nlohmann::json params;  // an object: parameter name -> value
  std::optional<int> position;
  std::optional<int64_t> position_ts;
  int64_t window_last_ts = 0;
  nlohmann::json payload;  // the whole payload, as the daemon sent it
  bool from_snapshot = false;

  // Builds it from a parsed payload; throws nlohmann::json::exception (or
  // std::invalid_argument) when a field is missing or has the wrong type.
  static Publication from_payload(const nlohmann::json& payload, bool from_snapshot = false) {
    Publication p;
    p.stream = {payload.at("symbol").get<std::string>(), payload.at("strategy").get<std::string>()};
    p.seq = payload.at("seq").get<int64_t>();
    p.id = payload.at("id").get<int64_t>();
    p.params = payload.at("params");
    if (!p.params.is_object()) throw std::invalid_argument("params is not an object");
    if (const auto pos = payload.find("position"); pos != payload.end() && pos->is_object()) {
      p.position = pos->at("value").get<int>();
      p.position_ts = pos->at("ts").get<int64_t>();
    }
    p.window_last_ts = payload.at("window").at("last_ts").get<int64_t>();
    p.payload = payload;
    p.from_snapshot = from_snapshot;
    return p;
  }
};

// One per-bar signal (PROTOCOL §2a): p_t of the published combo at bar `ts` (ns).
struct Signal {
  StreamKey stream;
  int64_t ts = 0;
  int position = 0;
  int64_t id = 0;
  int64_t params_seq = 0;

  // Builds it from a parsed payload; throws nlohmann::json::exception when a field is
  // missing or has the wrong type.
  static Signal from_payload(const nlohmann::json& payload) {
    Signal s;
    s.stream = {payload.at("symbol").get<std::string>(), payload.at("strategy").get<std::string>()};
    s.ts = payload.at("ts").get<int64_t>();
    s.position = payload.at("position").get<int>();
    s.id = payload.at("id").get<int64_t>();
    s.params_seq = payload.at("params_seq").get<int64_t>();
    return s;
  }
};

}  // namespace wfod::client
