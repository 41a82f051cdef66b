// wfo-sub: the client side of PROTOCOL §2-§3. Subscribes to parameter updates, takes a
// snapshot the zguide clone way (subscribe, then "get", then only updates newer than it),
// and sends one-shot "list" / "health" / "get" requests. Also prints bars.* feeds.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "wfo/args.hpp"
#include "wfo/tool_main.hpp"
#include "wfod/feeds/bar_codec.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/net/curve_keys.hpp"
#include "wfod/version.hpp"

namespace {

using nlohmann::json;
using wfod::cli::FlagSpec;
using wfod::cli::UsageError;

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;
constexpr int kExitTimeout = 3;
constexpr int kExitErrorReply = 4;
constexpr int kDefaultRequestTimeoutMs = 5000;

constexpr FlagSpec kFlags[] = {
    {"endpoint"},   {"topic"},      {"snapshot"},         {"symbol"},      {"strategy"},
    {"count"},      {"timeout-ms"}, {"json", false},      {"list", false}, {"health", false},
    {"get", false}, {"curve-key"},  {"curve-server-key"},
};

constexpr std::string_view kUsage =
    R"(usage: wfo-sub --endpoint EP [--topic PREFIX] [--snapshot EP --symbol S --strategy N]
               [--count N] [--timeout-ms T] [--json] [CURVE]
       wfo-sub --snapshot EP (--list | --health | --get --symbol S --strategy N)
               [--timeout-ms T] [CURVE]
Prints the daemon's parameter updates (PROTOCOL §2), one line each: topic, seq, params,
objective metric; or the raw JSON payload with --json. With --snapshot, it subscribes first,
asks ["get", S, N], prints the snapshot and then only updates of that stream with a larger
seq (the zguide clone pattern): its topic frame must be exactly params.S.N, since a
subscription is a prefix and params.BRK.B is a prefix of params.BRK.B.x.
bars.* topics (PROTOCOL §1 feeds) print as decoded bars.
  --endpoint EP     the daemon's PUB endpoint ([publish] endpoint), e.g. tcp://127.0.0.1:5560
  --topic PREFIX    subscription prefix, or several separated by commas (params.,signal.:
                    publications and per-bar signals, in arrival order). Default "params.";
                    not with --snapshot
  --snapshot EP     the daemon's REP endpoint ([publish] snapshot), e.g. tcp://127.0.0.1:5561
  --symbol S, --strategy N   the stream to snapshot (params.S.N)
  --count N         stop after N updates (exit 0)
  --timeout-ms T    stop when T ms pass without an update, or without a reply (exit 3).
                    Default: wait forever for updates, 5000 ms for a reply (a request the
                    daemon cannot read, e.g. a frame over 16 MiB, never gets one)
  --json            print raw JSON payloads instead of summary lines
  --list, --health, --get   send one request to --snapshot, print the reply, exit
  CURVE: --curve-key FILE --curve-server-key FILE   connect with CURVE (daemon [curve]):
                    this client's keypair (wfod --keygen) and the daemon's public key file
  --help, --version this text, or the version (exit 0)
Exit: 0 done, 1 runtime error, 2 usage error, 3 timeout, 4 the reply was {"error": ...}.
)";

struct Options {
  std::string endpoint, topic = "params.", snapshot, symbol, strategy;
  std::optional<size_t> count;
  std::optional<int> timeout_ms;
  bool json_out = false;
  std::string request;                      // "list", "health", "get" or "" (stream mode)
  std::string curve_key, curve_server_key;  // key files; both or neither
};

// CURVE client options on `sock` (before connect) when the key files are given.
void apply_curve(zmq::socket_t& sock, const Options& o) {
  if (o.curve_key.empty()) return;
  const wfod::net::CurveKeypair kp = wfod::net::read_keypair(o.curve_key);
  sock.set(zmq::sockopt::curve_serverkey, wfod::net::read_public_key(o.curve_server_key));
  sock.set(zmq::sockopt::curve_publickey, kp.public_z85);
  sock.set(zmq::sockopt::curve_secretkey, kp.secret_z85);
}

Options parse_options(std::span<const std::string_view> args) {
  auto parsed = wfod::cli::parse_args(args, kFlags);
  Options o;
  o.endpoint = parsed.text("endpoint").value_or("");
  o.topic = parsed.text("topic").value_or("params.");
  o.snapshot = parsed.text("snapshot").value_or("");
  o.symbol = parsed.text("symbol").value_or("");
  o.strategy = parsed.text("strategy").value_or("");
  o.count = parsed.count("count");
  if (auto t = parsed.integer("timeout-ms", 1, 86'400'000)) o.timeout_ms = static_cast<int>(*t);
  o.json_out = parsed.has("json");
  o.curve_key = parsed.text("curve-key").value_or("");
  o.curve_server_key = parsed.text("curve-server-key").value_or("");
  if (o.curve_key.empty() != o.curve_server_key.empty()) {
    throw UsageError("--curve-key and --curve-server-key go together");
  }
  int requests = 0;
  for (const char* r : {"list", "health", "get"}) {
    if (parsed.has(r)) {
      o.request = r;
      ++requests;
    }
  }
  if (requests > 1) throw UsageError("--list, --health and --get exclude each other");
  const bool wants_stream = o.request.empty() || o.request == "get";
  if (!o.request.empty()) {
    if (o.snapshot.empty()) throw UsageError("--" + o.request + " needs --snapshot EP");
    if (!o.endpoint.empty()) throw UsageError("--" + o.request + " does not use --endpoint");
    if (parsed.has("count") || parsed.has("topic")) {
      throw UsageError("--count and --topic apply to subscriptions, not to --" + o.request);
    }
  } else if (o.endpoint.empty()) {
    throw UsageError("--endpoint is required (or --list / --health / --get with --snapshot)");
  } else if (!o.snapshot.empty() && parsed.has("topic")) {
    throw UsageError("--topic does not apply with --snapshot: it follows params.S.N only");
  }
  const bool needs_stream_name = wants_stream && !o.snapshot.empty();
  if (needs_stream_name && (o.symbol.empty() || o.strategy.empty())) {
    throw UsageError("--snapshot" + std::string(o.request == "get" ? " --get" : "") +
                     " needs --symbol and --strategy");
  }
  if (!needs_stream_name && (!o.symbol.empty() || !o.strategy.empty())) {
    throw UsageError("--symbol and --strategy name the stream of --snapshot");
  }
  return o;
}

// The printable form of a JSON value for summary lines: floats to 6 significant digits.
std::string brief(const json& j) {
  if (j.is_discarded()) return "?";
  if (j.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", j.get<double>());
    return buf;
  }
  return j.dump();
}

// One summary line for a params.* payload: topic, seq, params, objective metric.
std::string params_line(std::string_view topic, const json& j) {
  std::string line(topic);
  line += " seq=" + (j.contains("seq") ? brief(j["seq"]) : std::string("?"));
  line += " params=" + (j.contains("params") ? brief(j["params"]) : std::string("?"));
  // The objective's name when the payload carries one, else SPEC §7's default.
  std::string objective = "sharpe";
  if (j.contains("objective") && j["objective"].is_string()) {
    objective = j["objective"].get<std::string>();
  }
  if (j.contains("metrics") && j["metrics"].is_object() && j["metrics"].contains(objective)) {
    line += " " + objective + "=" + brief(j["metrics"][objective]);
  }
  if (j.contains("changed") && j["changed"].is_boolean()) {
    line += j["changed"].get<bool>() ? " changed" : " unchanged";
  }
  return line;
}

// One line for a signal.* payload (PROTOCOL §2a): topic, bar time, position, combo, params_seq.
std::string signal_line(std::string_view topic, const json& j) {
  std::string line(topic);
  if (j.contains("ts") && j["ts"].is_number_integer())
    line += " ts=" + wfod::feeds::format_timestamp(j["ts"].get<int64_t>());
  line += " position=" + (j.contains("position") ? brief(j["position"]) : std::string("?"));
  line += " id=" + (j.contains("id") ? brief(j["id"]) : std::string("?"));
  line += " params_seq=" + (j.contains("params_seq") ? brief(j["params_seq"]) : std::string("?"));
  return line;
}

// A bars.* message, decoded whichever format it is in.
std::optional<wfod::Bar> decode_bar(std::string_view payload) {
  const auto format = payload.size() == wfod::feeds::kBinaryPayloadBytes &&
                              payload.substr(0, 4) == wfod::feeds::kBinaryMagic
                          ? wfod::feeds::PayloadFormat::binary
                          : wfod::feeds::PayloadFormat::json;
  auto decoded = wfod::feeds::decode_payload(payload, format);
  if (const auto* bar = std::get_if<wfod::Bar>(&decoded)) return *bar;
  return std::nullopt;
}

// Sends one multipart request on a fresh REQ socket; the reply, or nullopt on timeout.
std::optional<std::string> request(zmq::context_t& ctx, const std::string& endpoint,
                                   const std::vector<std::string>& frames, int timeout_ms,
                                   const Options& o) {
  zmq::socket_t req(ctx, zmq::socket_type::req);
  req.set(zmq::sockopt::linger, 0);
  apply_curve(req, o);
  req.connect(endpoint);
  for (size_t i = 0; i < frames.size(); ++i) {
    req.send(zmq::buffer(frames[i]),
             i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
  zmq::pollitem_t item{req.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms)) == 0) return std::nullopt;
  std::vector<zmq::message_t> parts;
  (void)zmq::recv_multipart(req, std::back_inserter(parts));
  std::string reply;
  for (const auto& p : parts) reply += p.to_string();
  return reply;
}

bool is_error_reply(const json& j) { return j.is_object() && j.contains("error"); }

int run_request(const Options& o) {
  zmq::context_t ctx(1);
  std::vector<std::string> frames{o.request};
  if (o.request == "get") {
    frames.push_back(o.symbol);
    frames.push_back(o.strategy);
  }
  const int timeout = o.timeout_ms.value_or(kDefaultRequestTimeoutMs);
  auto reply = request(ctx, o.snapshot, frames, timeout, o);
  if (!reply) {
    std::fprintf(stderr, "wfo-sub: no reply to \"%s\" from %s within %d ms\n", o.request.c_str(),
                 o.snapshot.c_str(), timeout);
    return kExitTimeout;
  }
  std::printf("%s\n", reply->c_str());
  return is_error_reply(json::parse(*reply, nullptr, false)) ? kExitErrorReply : 0;
}

int run_stream(const Options& o) {
  zmq::context_t ctx(1);
  // Clone mode follows one stream. Its topic is also the prefix of other streams' (symbols
  // may hold '.': params.BRK.B is BRK's strategy B and a prefix of params.BRK.B.x), so the
  // subscription narrows the traffic and the whole-frame comparison below decides.
  const bool clone = !o.snapshot.empty();
  const std::string stream_topic = "params." + o.symbol + "." + o.strategy;
  zmq::socket_t sub(ctx, zmq::socket_type::sub);
  sub.set(zmq::sockopt::linger, 0);
  if (clone) {
    sub.set(zmq::sockopt::subscribe, stream_topic);
  } else {
    // Several prefixes, comma-separated (a topic never holds a comma: SPEC §1's symbols).
    for (size_t at = 0; at <= o.topic.size();) {
      const size_t comma = std::min(o.topic.find(',', at), o.topic.size());
      sub.set(zmq::sockopt::subscribe, o.topic.substr(at, comma - at));
      at = comma + 1;
    }
  }
  apply_curve(sub, o);
  sub.connect(o.endpoint);

  // Clone pattern: the subscription is in place (updates queue up) before the snapshot.
  uint64_t snapshot_seq = 0;
  if (clone) {
    const int timeout = o.timeout_ms.value_or(kDefaultRequestTimeoutMs);
    auto reply = request(ctx, o.snapshot, {"get", o.symbol, o.strategy}, timeout, o);
    if (!reply) {
      std::fprintf(stderr, "wfo-sub: no snapshot reply from %s within %d ms\n", o.snapshot.c_str(),
                   timeout);
      return kExitTimeout;
    }
    const json j = json::parse(*reply, nullptr, false);
    if (o.json_out) {
      std::printf("%s\n", reply->c_str());
    } else if (is_error_reply(j)) {
      std::printf("snapshot %s: %s\n", stream_topic.c_str(), brief(j["error"]).c_str());
    } else {
      std::printf("snapshot %s\n", params_line(stream_topic, j).c_str());
    }
    if (!j.is_discarded() && j.contains("seq") && j["seq"].is_number_unsigned()) {
      snapshot_seq = j["seq"].get<uint64_t>();
    }
  }

  size_t received = 0;
  const auto poll_timeout = std::chrono::milliseconds(o.timeout_ms.value_or(-1));
  while (!o.count || received < *o.count) {
    zmq::pollitem_t item{sub.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, poll_timeout) == 0) {
      std::fprintf(stderr, "wfo-sub: no update within %d ms (%zu received)\n", *o.timeout_ms,
                   received);
      return kExitTimeout;
    }
    std::vector<zmq::message_t> parts;
    (void)zmq::recv_multipart(sub, std::back_inserter(parts));
    if (parts.size() != 2) {
      std::fprintf(stderr, "wfo-sub: ignored a %zu-frame message\n", parts.size());
      continue;
    }
    const std::string topic = parts[0].to_string();
    const std::string payload = parts[1].to_string();
    if (clone && topic != stream_topic) continue;  // another stream sharing the prefix
    if (topic.starts_with(wfod::feeds::kTopicPrefix)) {
      auto bar = decode_bar(payload);
      if (!bar) {
        std::fprintf(stderr, "wfo-sub: %s: undecodable bar (%zu bytes)\n", topic.c_str(),
                     payload.size());
        continue;
      }
      if (o.json_out) {
        std::printf("%s\n", wfod::feeds::encode_json(*bar).c_str());
      } else {
        std::printf("%s seq=%llu ts=%s close=%.17g\n", topic.c_str(),
                    static_cast<unsigned long long>(bar->seq),
                    wfod::feeds::format_timestamp(bar->ts_ns).c_str(), bar->close);
      }
      ++received;
      continue;
    }
    const json j = json::parse(payload, nullptr, false);
    if (j.is_discarded()) {
      std::fprintf(stderr, "wfo-sub: %s: payload is not JSON (%zu bytes)\n", topic.c_str(),
                   payload.size());
      continue;
    }
    // Updates the snapshot already covers are dropped (seq not newer).
    if (clone && j.contains("seq") && j["seq"].is_number_unsigned() &&
        j["seq"].get<uint64_t>() <= snapshot_seq) {
      continue;
    }
    if (o.json_out) {
      std::printf("%s\n", payload.c_str());
    } else if (topic.starts_with("signal.")) {
      std::printf("%s\n", signal_line(topic, j).c_str());
    } else {
      std::printf("%s\n", params_line(topic, j).c_str());
    }
    ++received;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Line-buffered even into a file or pipe: scripts read updates as they arrive.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (auto done = wfod::cli::answer_help_or_version(args, "wfo-sub", kUsage)) return *done;
  const auto parsed = wfod::cli::parse_tool_options(args, "wfo-sub", parse_options);
  if (!parsed) return kExitUsage;
  const Options& options = *parsed;
  try {
    return options.request.empty() ? run_stream(options) : run_request(options);
  } catch (const zmq::error_t& e) {
    const std::string& ep = options.request.empty() ? options.endpoint : options.snapshot;
    std::fprintf(stderr, "wfo-sub: %s: %s\n", ep.c_str(), e.what());
    return kExitRuntime;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wfo-sub: %s\n", e.what());
    return kExitRuntime;
  }
}
