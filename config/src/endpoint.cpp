// Endpoint and host:port checks (wfod/config/endpoint.hpp): strict where libzmq is lenient
// (its port parsing), so a typo is a config error instead of a socket bound somewhere else.
#include "wfod/config/endpoint.hpp"

#include <algorithm>
#include <cctype>

namespace wfod::config {
namespace {

constexpr size_t kMaxIpcPathBytes = 107;  // sizeof(sockaddr_un::sun_path) - 1 on Linux

bool has_space_or_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
}

// 1..65535, decimal digits only; nullopt otherwise.
std::optional<uint16_t> parse_port(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535) return std::nullopt;
  return static_cast<uint16_t>(value);
}

// HOST of HOST:PORT: a name or address, or "[v6]" (brackets kept here); not empty, no '*'.
bool valid_host(std::string_view host) {
  if (host.empty()) return false;
  if (host.front() == '[') return host.size() > 2 && host.back() == ']';
  return host.find_first_of("[]*") == std::string_view::npos;
}

std::string tcp_problem(std::string_view address, EndpointUse use) {
  if (use == EndpointUse::connect) {
    // tcp://SOURCE;HOST:PORT: the source (an interface or address, with an optional port)
    // is checked for presence only; the destination fully.
    if (const size_t semi = address.rfind(';'); semi != std::string_view::npos) {
      if (semi == 0) return "an empty source address before ';'";
      address = address.substr(semi + 1);
    }
  }
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return "expected tcp://HOST:PORT (no port)";
  const std::string_view host = address.substr(0, colon);
  const std::string_view port = address.substr(colon + 1);
  if (host == "*") {
    if (use == EndpointUse::connect) return "cannot connect to host '*' (it means every interface)";
  } else if (!valid_host(host)) {
    return "expected tcp://HOST:PORT (HOST a name, an address or [IPv6]); got host '" +
           std::string(host) + "'";
  }
  if (port == "*") {
    if (use == EndpointUse::connect) return "cannot connect to port '*'";
    return "";
  }
  if (!parse_port(port)) {
    std::string why = "port '" + std::string(port) + "' is not 1..65535";
    if (use == EndpointUse::bind) why += " (or * for an ephemeral port)";
    return why;
  }
  return "";
}

}  // namespace

std::string endpoint_problem(std::string_view endpoint, EndpointUse use) {
  if (endpoint.empty()) return "must not be empty";
  if (has_space_or_control(endpoint)) return "contains a space or a control character";
  const size_t sep = endpoint.find("://");
  if (sep == std::string_view::npos) {
    return "expected tcp://HOST:PORT, ipc://PATH or inproc://NAME (no transport:// prefix)";
  }
  const std::string_view transport = endpoint.substr(0, sep);
  const std::string_view address = endpoint.substr(sep + 3);
  if (transport == "tcp") return tcp_problem(address, use);
  if (transport == "ipc") {
    if (address.empty()) return "expected ipc://PATH (empty path)";
    if (address == "*" && use == EndpointUse::connect) return "cannot connect to ipc://*";
    if (address.size() > kMaxIpcPathBytes) {
      return "ipc path is " + std::to_string(address.size()) + " bytes, at most " +
             std::to_string(kMaxIpcPathBytes) + " fit a Unix socket address";
    }
    return "";
  }
  if (transport == "inproc") {
    return address.empty() ? "expected inproc://NAME (empty name)" : "";
  }
  return "unsupported transport '" + std::string(transport) +
         "': expected tcp://HOST:PORT, ipc://PATH or inproc://NAME";
}

std::optional<std::pair<std::string, uint16_t>> parse_host_port(std::string_view text) {
  if (has_space_or_control(text)) return std::nullopt;
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  const auto port = parse_port(text.substr(colon + 1));
  if (!port || !valid_host(host)) return std::nullopt;
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  return std::make_pair(std::string(host), *port);
}

}  // namespace wfod::config
