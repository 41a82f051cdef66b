// wfo-replay: publishes a CSV history as a PROTOCOL §1 bar feed ([bars.<SYM>, payload] on a
// ZeroMQ PUB socket), numbered with seq and paced at a given rate. The publisher side of the
// daemon's feeds, for demos and the integration test.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "wfo/args.hpp"
#include "wfo/tool_main.hpp"
#include "wfod/feeds/bar_codec.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/net/curve_keys.hpp"
#include "wfod/version.hpp"

namespace {

using wfod::cli::FlagSpec;
using wfod::cli::UsageError;

constexpr FlagSpec kFlags[] = {
    {"csv"},       {"symbol"},  {"endpoint"},     {"format"},         {"rate"},
    {"start"},     {"count"},   {"seq-start"},    {"connect", false}, {"bind", false},
    {"linger-ms"}, {"wait-ms"}, {"quiet", false}, {"curve-key"},
};

constexpr std::string_view kUsage =
    R"(usage: wfo-replay --csv FILE --symbol SYM --endpoint EP [options]
Publishes each bar of FILE (SPEC §1 CSV) as [bars.SYM, payload] on a ZeroMQ PUB socket.
  --csv FILE          history to replay (timestamp,open,high,low,close,volume)
  --symbol SYM        topic symbol: frames go out as bars.SYM
  --endpoint EP       e.g. tcp://127.0.0.1:5555
  --format F          json | binary (PROTOCOL §1). Default json
  --rate R            bars per second, 0 = as fast as possible. Default 0
  --start N           first bar to send (0-based row of the file). Default 0
  --count N           bars to send. Default: all from --start
  --seq-start N       seq of the first bar sent, then +1 per bar; 0 = no seq. Default 1
  --bind | --connect  bind the PUB socket (default: the daemon's SUB connects) or connect
  --wait-ms MS        pause after bind/connect so subscribers join first. Default 500
  --curve-key FILE    publish as a CURVE server with this keypair (wfod --keygen); the
                      daemon's feed names its public half in curve_server_key_file
  --linger-ms MS      time to flush queued bars at exit. Default 1000
  --quiet             no summary line
  --help, --version   this text, or the version (exit 0)
Exit: 0 sent, 1 runtime error (file, socket), 2 usage error.
)";

struct Options {
  std::string csv, symbol, endpoint;
  wfod::feeds::PayloadFormat format = wfod::feeds::PayloadFormat::json;
  double rate = 0;
  size_t start = 0;
  std::optional<size_t> count;
  uint64_t seq_start = 1;
  bool bind = true;
  std::string curve_key;
  int wait_ms = 500;
  int linger_ms = 1000;
  bool quiet = false;
};

Options parse_options(std::span<const std::string_view> args) {
  auto parsed = wfod::cli::parse_args(args, kFlags);
  Options o;
  auto required = [&](std::string_view name) {
    auto v = parsed.text(name);
    if (!v) throw UsageError("--" + std::string(name) + " is required");
    return *v;
  };
  o.csv = required("csv");
  o.symbol = required("symbol");
  o.endpoint = required("endpoint");
  if (!wfod::feeds::is_valid_symbol(o.symbol)) {
    throw UsageError("--symbol: '" + o.symbol + "' is not 1-32 bytes of [A-Za-z0-9._:/-]");
  }
  if (auto f = parsed.text("format")) {
    if (*f == "json") {
      o.format = wfod::feeds::PayloadFormat::json;
    } else if (*f == "binary") {
      o.format = wfod::feeds::PayloadFormat::binary;
    } else {
      throw UsageError("--format: expected json or binary, got '" + *f + "'");
    }
  }
  o.rate = parsed.real("rate", 0).value_or(0);
  o.start = parsed.count("start").value_or(0);
  o.count = parsed.count("count");
  o.seq_start = static_cast<uint64_t>(parsed.integer("seq-start", 0).value_or(1));
  if (parsed.has("connect") && parsed.has("bind")) {
    throw UsageError("--bind and --connect exclude each other");
  }
  o.bind = !parsed.has("connect");
  o.curve_key = parsed.text("curve-key").value_or("");
  o.wait_ms = static_cast<int>(parsed.integer("wait-ms", 0, 600000).value_or(500));
  o.linger_ms = static_cast<int>(parsed.integer("linger-ms", 0, 600000).value_or(1000));
  o.quiet = parsed.has("quiet");
  return o;
}

int run(const Options& o) {
  wfod::Series series;
  try {
    series = wfod::feeds::read_csv(o.csv).series;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wfo-replay: --csv: %s\n", e.what());
    return 1;
  }
  if (o.start > series.size()) {
    std::fprintf(stderr, "wfo-replay: --start %zu is past the %zu bars of %s\n", o.start,
                 series.size(), o.csv.c_str());
    return 2;
  }
  const size_t available = series.size() - o.start;
  const size_t n = o.count ? std::min(*o.count, available) : available;
  if (o.count && *o.count > available) {
    std::fprintf(stderr, "wfo-replay: --count %zu: only %zu bars from --start %zu; sending %zu\n",
                 *o.count, available, o.start, n);
  }

  zmq::context_t ctx(1);
  zmq::socket_t pub(ctx, zmq::socket_type::pub);
  // A replay must not drop bars when the subscriber lags: no high-water mark on the sender.
  pub.set(zmq::sockopt::sndhwm, 0);
  pub.set(zmq::sockopt::linger, o.linger_ms);
  try {
    if (!o.curve_key.empty()) {
      // CURVE server without a ZAP handler: any client that knows our public key may
      // subscribe; the subscriber (wfod) authenticates us by that key.
      const wfod::net::CurveKeypair kp = wfod::net::read_keypair(o.curve_key);
      pub.set(zmq::sockopt::curve_server, 1);
      pub.set(zmq::sockopt::curve_secretkey, kp.secret_z85);
    }
    if (o.bind) {
      pub.bind(o.endpoint);
    } else {
      pub.connect(o.endpoint);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wfo-replay: --endpoint %s: cannot %s: %s\n", o.endpoint.c_str(),
                 o.bind ? "bind" : "connect", e.what());
    return 1;
  }
  // ZeroMQ's slow joiner: PUB drops what it sends before a subscriber's connection is up.
  std::this_thread::sleep_for(std::chrono::milliseconds(o.wait_ms));

  const std::string topic = wfod::feeds::encode_topic(o.symbol);
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < n; ++i) {
    const size_t row = o.start + i;
    wfod::Bar bar;
    bar.ts_ns = series.ts_ns[row];
    bar.open = series.open[row];
    bar.high = series.high[row];
    bar.low = series.low[row];
    bar.close = series.close[row];
    bar.volume = series.volume[row];
    bar.seq = o.seq_start == 0 ? 0 : o.seq_start + i;
    const std::string payload = o.format == wfod::feeds::PayloadFormat::json
                                    ? wfod::feeds::encode_json(bar)
                                    : wfod::feeds::encode_binary(bar);
    if (o.rate > 0) {
      // Absolute schedule (t0 + i / rate), so sleep overshoot does not accumulate.
      std::this_thread::sleep_until(
          t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(static_cast<double>(i) / o.rate)));
    }
    pub.send(zmq::buffer(topic), zmq::send_flags::sndmore);
    pub.send(zmq::buffer(payload), zmq::send_flags::none);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!o.quiet) {
    const uint64_t last_seq = o.seq_start == 0 || n == 0 ? 0 : o.seq_start + n - 1;
    std::printf("wfo-replay: sent %zu bars of %s (rows %zu..%zu, seq %llu..%llu) to %s in %.3f s",
                n, o.symbol.c_str(), o.start, n == 0 ? o.start : o.start + n - 1,
                static_cast<unsigned long long>(n == 0 ? 0 : o.seq_start),
                static_cast<unsigned long long>(last_seq), o.endpoint.c_str(), seconds);
    if (seconds > 0) std::printf(" (%.0f bars/s)", static_cast<double>(n) / seconds);
    std::printf("\n");
    std::fflush(stdout);
  }
  // Closing the socket (linger) flushes what is still queued.
  pub.close();
  ctx.close();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (auto done = wfod::cli::answer_help_or_version(args, "wfo-replay", kUsage)) return *done;
  const auto options = wfod::cli::parse_tool_options(args, "wfo-replay", parse_options);
  if (!options) return wfod::cli::kExitUsageError;
  try {
    return run(*options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wfo-replay: %s\n", e.what());
    return 1;
  }
}
