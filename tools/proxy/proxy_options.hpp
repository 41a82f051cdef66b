// wfo-proxy's command line: flags -> Options, every error naming its flag (exit 2). The
// endpoints' syntax is checked here; whether they bind or connect is main.cpp's to find out.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wfod::proxy {

struct Options {
  std::vector<std::string> upstreams;  // each shard's [publish] endpoint: the XSUB connects
  std::string bind;                    // the XPUB consumers connect to
  std::string http;                    // HOST:PORT of /healthz and /metrics; "" = none
  int sndhwm = 10000;                  // per consumer, like the daemon's [publish] sndhwm
  int rcvhwm = 100000;                 // per shard, on the XSUB
};

// Parses argv (without the program name). Throws wfod::cli::UsageError naming the flag.
Options parse_options(std::span<const std::string_view> args);

// "tcp://HOST:PORT", "ipc://PATH" or "inproc://NAME" with something after "://"; the flag
// is named in the error. (ZeroMQ checks the rest when binding or connecting.)
void check_endpoint(std::string_view flag, std::string_view endpoint);

}  // namespace wfod::proxy
