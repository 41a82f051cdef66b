// HTTP status responses: /metrics text, /healthz codes, bad requests, address parsing; the
// feed counters both health replies take from the validator (set_feed_counters).

#include "wfod/daemon/publish/http_status.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "wfod/feeds/bar_validator.hpp"

namespace wfod::daemon {
namespace {

HealthInput sample() {
  HealthInput h;
  h.backend = "cpu";
  h.uptime_s = 2;
  h.symbols["BTCUSD"].bars = 10;
  h.symbols["BTCUSD"].last_ts = 1'500'000'000'000'000'000;
  h.rejects["parse"] = 3;
  h.gaps = 1;
  h.coalesced = 2;
  return h;
}

bool starts_with(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }

TEST(HttpStatus, Metrics) {
  const std::string r = http_response("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", sample());
  EXPECT_TRUE(starts_with(r, "HTTP/1.1 200 OK\r\n")) << r;
  EXPECT_NE(r.find("wfod_bars{symbol=\"BTCUSD\"} 10\n"), std::string::npos);
  EXPECT_NE(r.find("wfod_feed_rejects_total{reason=\"parse\"} 3\n"), std::string::npos);
  EXPECT_NE(r.find("wfod_coalesced_total 2\n"), std::string::npos);
  EXPECT_NE(r.find("wfod_last_bar_timestamp_seconds{symbol=\"BTCUSD\"} 1500000000\n"),
            std::string::npos);
  const size_t body = r.find("\r\n\r\n") + 4;
  EXPECT_NE(r.find("Content-Length: " + std::to_string(r.size() - body)), std::string::npos);
}

// Health `gaps` and wfod_feed_missing_bars_total count missing bars, not gap events: a seq
// going 1, 1001, 1, 1001, 1 misses 999 bars twice (the backwards jumps, publisher restarts,
// miss none), in four jumps. Every reject reason is listed, `future` included.
TEST(HttpStatus, FeedCountersCountMissingBarsAndEveryReason) {
  const std::vector<std::string> symbols = {"BTCUSD"};
  feeds::BarValidator v(symbols);
  constexpr int64_t kNow = 1'790'000'000'000'000'000;
  v.set_max_future(std::chrono::seconds(300), [] { return kNow; });
  const uint64_t seqs[] = {1, 1001, 1, 1001, 1};
  for (int64_t i = 0; i < 5; ++i) {
    ASSERT_TRUE(v.validate("BTCUSD", Bar{kNow + i, 10, 11, 9, 10.5, 1, seqs[i]}).accepted());
  }
  EXPECT_EQ(
      v.validate("BTCUSD", Bar{9'000'000'000'000'000'000, 10, 11, 9, 10.5, 1, 2}).reject->reason,
      feeds::RejectReason::future);

  HealthInput h = sample();
  h.rejects.clear();
  set_feed_counters(h, v.stats());
  EXPECT_EQ(h.gaps, 1998u);
  EXPECT_EQ(h.gap_events, 4u);
  EXPECT_EQ(h.rejects.size(), feeds::kRejectReasonCount);
  EXPECT_EQ(h.rejects.at("future"), 1u);
  EXPECT_EQ(h.rejects.at("out_of_order"), 0u);
  EXPECT_EQ(health_json(h)["gaps"], 1998);
  EXPECT_EQ(health_json(h)["rejects"]["future"], 1);
  const std::string m = prometheus_metrics(h);
  EXPECT_NE(m.find("\nwfod_feed_missing_bars_total 1998\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nwfod_feed_gaps_total 4\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nwfod_feed_rejects_total{reason=\"future\"} 1\n"), std::string::npos);
}

TEST(HttpStatus, SymbolHealthMetrics) {
  HealthInput h = sample();
  h.symbols["BTCUSD"].last_bar_age_s = 12.5;
  h.symbols["BTCUSD"].quarantined_bars = 1500;
  h.symbols["ETHUSD"] = SymbolHealth{};
  h.symbols["ETHUSD"].stale = true;
  const std::string r = prometheus_metrics(h);
  EXPECT_NE(r.find("wfod_quarantined_bars{symbol=\"BTCUSD\"} 1500\n"), std::string::npos) << r;
  EXPECT_NE(r.find("wfod_quarantined_bars{symbol=\"ETHUSD\"} 0\n"), std::string::npos);
  EXPECT_NE(r.find("wfod_last_bar_age_seconds{symbol=\"BTCUSD\"} 12.5\n"), std::string::npos);
  EXPECT_EQ(r.find("wfod_last_bar_age_seconds{symbol=\"ETHUSD\"}"), std::string::npos);
  EXPECT_NE(r.find("wfod_symbol_stale{symbol=\"ETHUSD\"} 1\n"), std::string::npos);
  EXPECT_NE(r.find("wfod_symbol_stale{symbol=\"BTCUSD\"} 0\n"), std::string::npos);
}

TEST(HttpStatus, Healthz) {
  HealthInput h = sample();
  EXPECT_TRUE(starts_with(http_response("GET /healthz HTTP/1.0\r\n\r\n", h), "HTTP/1.1 200"));
  h.degraded = true;
  EXPECT_TRUE(starts_with(http_response("GET /healthz HTTP/1.0\r\n\r\n", h), "HTTP/1.1 503"));
  const std::string head = http_response("HEAD /healthz HTTP/1.0\r\n\r\n", h);
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

TEST(HttpStatus, ConnectionCapsInMetricsAndHealth) {
  HealthInput h = sample();
  h.snapshot_connections = {3, 256, 7};
  h.http_connections = {64, 64, 1200};
  const std::string r = http_response("GET /metrics HTTP/1.0\r\n\r\n", h);
  for (const char* line :
       {"wfod_connections{socket=\"snapshot\"} 3\n", "wfod_connections{socket=\"http\"} 64\n",
        "wfod_connections_max{socket=\"snapshot\"} 256\n",
        "wfod_connections_refused_total{socket=\"snapshot\"} 7\n",
        "wfod_connections_refused_total{socket=\"http\"} 1200\n"}) {
    EXPECT_NE(r.find(line), std::string::npos) << line;
  }
  const auto j = health_json(h);
  EXPECT_EQ(j["connections"]["snapshot"]["refused"], 7);
  EXPECT_EQ(j["connections"]["http"]["max"], 64);
  // A connection refused at the cap gets a whole response, whatever it sent.
  const std::string busy = net::http_busy_response();
  EXPECT_TRUE(starts_with(busy, "HTTP/1.1 503 Service Unavailable\r\n")) << busy;
  EXPECT_EQ(busy.substr(busy.size() - 21), "too many connections\n");
  EXPECT_NE(busy.find("Connection: close"), std::string::npos);
}

TEST(HttpStatus, FeedSessionsInMetricsAndHealth) {
  HealthInput h = sample();
  h.feeds.push_back({"tcp://10.0.0.1:5555", true, 0.25, 3, 1});
  h.feeds.push_back({"ipc:///run/feed", false, std::nullopt, 0, 0});
  const std::string r = http_response("GET /metrics HTTP/1.0\r\n\r\n", h);
  for (const char* line :
       {"wfod_feed_connected{feed=\"tcp://10.0.0.1:5555\"} 1\n",
        "wfod_feed_connected{feed=\"ipc:///run/feed\"} 0\n",
        "wfod_feed_last_message_age_seconds{feed=\"tcp://10.0.0.1:5555\"} 0.25\n",
        "wfod_feed_disconnects_total{feed=\"tcp://10.0.0.1:5555\"} 3\n",
        "wfod_feed_reconnects_total{feed=\"tcp://10.0.0.1:5555\"} 1\n"}) {
    EXPECT_NE(r.find(line), std::string::npos) << line;
  }
  // No age before the first message: no sample, and null in health.
  EXPECT_EQ(r.find("wfod_feed_last_message_age_seconds{feed=\"ipc:///run/feed\"}"),
            std::string::npos);
  const auto j = health_json(h);
  ASSERT_EQ(j["feeds"].size(), 2u);
  EXPECT_EQ(j["feeds"][0]["endpoint"], "tcp://10.0.0.1:5555");
  EXPECT_EQ(j["feeds"][0]["connected"], true);
  EXPECT_EQ(j["feeds"][0]["disconnects"], 3);
  EXPECT_EQ(j["feeds"][0]["reconnects"], 1);
  EXPECT_TRUE(j["feeds"][1]["last_message_age_s"].is_null());
}

TEST(HttpStatus, BadRequests) {
  const HealthInput h = sample();
  EXPECT_TRUE(starts_with(http_response("", h), "HTTP/1.1 400"));
  EXPECT_TRUE(starts_with(http_response("garbage\r\n\r\n", h), "HTTP/1.1 400"));
  EXPECT_TRUE(starts_with(http_response("GET /x HTTP/1.1\r\n\r\n", h), "HTTP/1.1 404"));
  EXPECT_TRUE(starts_with(http_response("POST /metrics HTTP/1.1\r\n\r\n", h), "HTTP/1.1 405"));
}

TEST(HttpStatus, Address) {
  EXPECT_EQ(parse_http_address("127.0.0.1:9100"),
            std::make_pair(std::string("127.0.0.1"), uint16_t{9100}));
  EXPECT_EQ(parse_http_address("[::1]:80"), std::make_pair(std::string("::1"), uint16_t{80}));
  EXPECT_FALSE(parse_http_address("127.0.0.1"));
  EXPECT_FALSE(parse_http_address(":9100"));
  EXPECT_FALSE(parse_http_address("host:0"));
  EXPECT_FALSE(parse_http_address("host:70000"));
  EXPECT_FALSE(parse_http_address("host:9x"));
  EXPECT_FALSE(parse_http_address("nonsense"));
  EXPECT_FALSE(parse_http_address("*:9100"));  // not a listener address for the resolver
  EXPECT_FALSE(parse_http_address("host: 9100"));
}

}  // namespace
}  // namespace wfod::daemon
