// Syntax and range checks of the addresses a configuration names (PROTOCOL §4): ZeroMQ
// endpoints as libzmq would accept them for bind or connect, and the HTTP status address.
// Shared by the config loader (errors at load) and the daemon (the HTTP listener).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace wfod::config {

enum class EndpointUse { bind, connect };

// What is wrong with a ZeroMQ endpoint for `use`, or "" when it is acceptable:
//   tcp://HOST:PORT   PORT 1..65535; bind also takes `*` (an ephemeral port) and HOST `*`
//                     (every interface); HOST may be [IPv6]; connect may name a source
//                     address first (tcp://SOURCE;HOST:PORT)
//   ipc://PATH        at most 107 bytes (sun_path); bind also takes ipc://*
//   inproc://NAME     any non-empty name
// libzmq itself reads the port with atoi() and keeps it modulo 65536 (99999 binds 34463) and
// ignores trailing garbage ("5560x"), so the range is checked here, before ZeroMQ sees it.
std::string endpoint_problem(std::string_view endpoint, EndpointUse use);

// "HOST:PORT" (HOST a name, an IPv4 address or [IPv6]) -> (HOST without brackets, PORT);
// nullopt when malformed or PORT is not 1..65535. The [publish] http address.
std::optional<std::pair<std::string, uint16_t>> parse_host_port(std::string_view text);

}  // namespace wfod::config
