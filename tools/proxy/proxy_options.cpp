// wfo-proxy's flags (proxy_options.hpp), parsed with the shared wfod::cli rules.
#include "proxy_options.hpp"

#include "wfo/args.hpp"
#include "wfod/config/endpoint.hpp"

namespace wfod::proxy {

namespace {

using wfod::cli::FlagSpec;
using wfod::cli::UsageError;

constexpr FlagSpec kFlags[] = {
    {"upstream"}, {"bind"}, {"http"}, {"sndhwm"}, {"rcvhwm"},
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

void check_endpoint(std::string_view flag, std::string_view endpoint) {
  const size_t sep = endpoint.find("://");
  const std::string_view transport = sep == std::string_view::npos ? "" : endpoint.substr(0, sep);
  if (transport != "tcp" && transport != "ipc" && transport != "inproc") {
    throw UsageError("--" + std::string(flag) + ": '" + std::string(endpoint) +
                     "' is not an endpoint (tcp://HOST:PORT, ipc://PATH)");
  }
  if (endpoint.size() == sep + 3) {
    throw UsageError("--" + std::string(flag) + ": '" + std::string(endpoint) +
                     "' names no address after ://");
  }
}

Options parse_options(std::span<const std::string_view> args) {
  const auto parsed = wfod::cli::parse_args(args, kFlags);
  Options o;
  const auto upstream = parsed.text("upstream");
  if (!upstream) throw UsageError("--upstream is required (each shard's [publish] endpoint)");
  for (std::string& ep : split_commas(*upstream)) {
    if (ep.empty()) throw UsageError("--upstream: an empty endpoint in '" + *upstream + "'");
    check_endpoint("upstream", ep);
    for (const std::string& seen : o.upstreams) {
      if (seen == ep) throw UsageError("--upstream: " + ep + " is named twice");
    }
    o.upstreams.push_back(std::move(ep));
  }
  const auto bind = parsed.text("bind");
  if (!bind) throw UsageError("--bind is required (the endpoint consumers subscribe to)");
  check_endpoint("bind", *bind);
  o.bind = *bind;
  o.http = parsed.text("http").value_or("");
  if (!o.http.empty() && !wfod::config::parse_host_port(o.http)) {
    throw UsageError("--http: '" + o.http + "' is not HOST:PORT (PORT 1..65535)");
  }
  o.sndhwm = static_cast<int>(parsed.integer("sndhwm", 0, 1 << 30).value_or(o.sndhwm));
  o.rcvhwm = static_cast<int>(parsed.integer("rcvhwm", 0, 1 << 30).value_or(o.rcvhwm));
  return o;
}

}  // namespace wfod::proxy
