// wfod's C++ client, header only (cppzmq + nlohmann::json): follow the parameter updates and
// per-bar signals of one or several wfod daemons (docs/protocol.md "Consuming wfod").
//
//   #include <wfod/client.hpp>
//   wfod::client::Options o;
//   o.on_signal = [](const wfod::client::Signal& s) { std::cout << s.ts << " hold " << s.position
//   << "\n"; }; wfod::client::Client c({{"tcp://127.0.0.1:5560", "tcp://127.0.0.1:5561"}},
//   {{{"BTCUSD", "trend"}}}, o); for (;;) c.poll(std::chrono::seconds(1));
//
// CMake: find_package(wfod_client) and link wfod_client::wfod_client.
#pragma once

#include "wfod/client/client.hpp"
#include "wfod/client/messages.hpp"
#include "wfod/client/requester.hpp"
