// A consumer built against the installed wfod client: one Client on endpoints where nothing
// listens, polled once; it must compile, link and report the stream stale-free at first.
#include <cstdio>
#include <wfod/client.hpp>

int main() {
  wfod::client::Client c({{"tcp://127.0.0.1:1", "tcp://127.0.0.1:1"}},
                         std::vector<wfod::client::StreamKey>{{"BTCUSD", "trend"}});
  c.poll(std::chrono::milliseconds(10));
  std::printf("consumer: following %zu stream, position %s\n", c.streams().size(),
              c.position("BTCUSD", "trend") ? "known" : "unknown");
  return c.streams().size() == 1 ? 0 : 1;
}
