// Snapshot replies (PROTOCOL §3): get / list / health and every malformed request answered
// with exactly one JSON error, never an exception.

#include "wfod/daemon/publish/snapshot.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace wfod::daemon {
namespace {

using Json = nlohmann::json;

PublicationMap sample() {
  PublicationMap m;
  m[{"BTCUSD", "trend"}] = LastPublication{3, R"({"seq":3})"};
  m[{"ETHUSD", "trend"}] = LastPublication{1, R"({"seq":1})"};
  return m;
}

HealthInput sample_health() {
  HealthInput h;
  h.backend = "cpu";
  h.uptime_s = 1.5;
  h.symbols["BTCUSD"].bars = 10;
  h.symbols["BTCUSD"].last_ts = 1234;
  h.symbols["ETHUSD"].bars = 0;
  h.symbols["ETHUSD"].last_ts = std::nullopt;
  h.rejects["parse"] = 2;
  h.gaps = 1;
  h.coalesced = 4;
  return h;
}

// The running configuration's streams: the two published ones and one still waiting.
bool configured(const PublicationKey& key) {
  return key == PublicationKey{"BTCUSD", "trend"} || key == PublicationKey{"ETHUSD", "trend"} ||
         key == PublicationKey{"BTCUSD", "idle"};
}

std::string reply(std::vector<std::string> frames) {
  return snapshot_reply(frames, sample(), configured, [] { return sample_health(); });
}

std::string snapshot_error_of(const std::string& bytes) {
  const Json j = Json::parse(bytes);
  return j.contains("error") ? j["error"].get<std::string>() : "";
}

TEST(Snapshot, GetReturnsTheExactPayload) {
  EXPECT_EQ(reply({"get", "BTCUSD", "trend"}), R"({"seq":3})");
  EXPECT_EQ(snapshot_error_of(reply({"get", "BTCUSD", "idle"})), "no publication yet");
}

// A stream the configuration does not have (never had, or removed by a reload) says so,
// instead of looking like one that will publish.
TEST(Snapshot, GetOfAnUnconfiguredStreamNamesIt) {
  EXPECT_EQ(snapshot_error_of(reply({"get", "BTCUSD", "other"})), "unknown stream BTCUSD.other");
  EXPECT_EQ(snapshot_error_of(reply({"get", "BRK.B", "x"})), "unknown stream BRK.B.x");
  // Configured is what counts: a publication kept after its stream left is not served.
  const std::vector<std::string> frames = {"get", "ETHUSD", "trend"};
  const auto only_btc = [](const PublicationKey& k) { return k.first == "BTCUSD"; };
  EXPECT_EQ(snapshot_error_of(snapshot_reply(frames, sample(), only_btc, {})),
            "unknown stream ETHUSD.trend");
}

TEST(Snapshot, OversizedFrameSaysHowLarge) {
  const std::string e = snapshot_error_of(reply({"get", std::string(70000, 'A'), "trend"}));
  EXPECT_NE(e.find("too large"), std::string::npos) << e;
  EXPECT_NE(e.find("70000 bytes, at most 256"), std::string::npos) << e;
}

TEST(Snapshot, List) {
  const Json j = Json::parse(reply({"list"}));
  ASSERT_EQ(j["streams"].size(), 2u);
  EXPECT_EQ(j["streams"][0]["symbol"], "BTCUSD");
  EXPECT_EQ(j["streams"][0]["strategy"], "trend");
  EXPECT_EQ(j["streams"][0]["seq"], 3);
}

TEST(Snapshot, Health) {
  const Json j = Json::parse(reply({"health"}));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_DOUBLE_EQ(j["uptime_s"].get<double>(), 1.5);
  EXPECT_EQ(j["symbols"]["BTCUSD"]["bars"], 10);
  EXPECT_EQ(j["symbols"]["BTCUSD"]["last_ts"], 1234);
  EXPECT_TRUE(j["symbols"]["ETHUSD"]["last_ts"].is_null());
  EXPECT_EQ(j["rejects"]["parse"], 2);
  EXPECT_EQ(j["gaps"], 1);
  EXPECT_EQ(j["coalesced"], 4);
  HealthInput d = sample_health();
  d.degraded = true;
  EXPECT_EQ(health_json(d)["status"], "degraded");
}

// PROTOCOL §3 per-symbol fields: the last bar's age, quarantined bars, and staleness.
TEST(Snapshot, SymbolHealthAgeStalenessAndQuarantine) {
  const int64_t now = 1'700'000'100'000'000'000;
  const int64_t last = now - 90'000'000'000;  // 90 s old
  SymbolHealth h = symbol_health(10, last, 0, 0, now, 500);
  ASSERT_TRUE(h.last_bar_age_s.has_value());
  EXPECT_DOUBLE_EQ(*h.last_bar_age_s, 90.0);
  EXPECT_FALSE(h.stale);  // stale_after_s = 0: off
  EXPECT_FALSE(h.degraded());
  EXPECT_FALSE(symbol_health(10, last, 0, 120, now, 500).stale);
  EXPECT_TRUE(symbol_health(10, last, 0, 60, now, 500).stale);
  EXPECT_TRUE(symbol_health(10, last, 0, 60, now, 500).degraded());
  // No bar at all: stale once the daemon ran stale_after_s without one.
  EXPECT_FALSE(symbol_health(0, std::nullopt, 0, 60, now, 30).stale);
  EXPECT_TRUE(symbol_health(0, std::nullopt, 0, 60, now, 61).stale);
  EXPECT_FALSE(symbol_health(0, std::nullopt, 0, 60, now, 61).last_bar_age_s.has_value());
  const SymbolHealth q = symbol_health(1500, last, 1500, 0, now, 1);
  EXPECT_TRUE(q.degraded());

  HealthInput in = sample_health();
  in.symbols["BTCUSD"] = q;
  const Json j = health_json(in);
  EXPECT_EQ(j["symbols"]["BTCUSD"]["quarantined_bars"], 1500);
  EXPECT_DOUBLE_EQ(j["symbols"]["BTCUSD"]["last_bar_age_s"].get<double>(), 90.0);
  EXPECT_EQ(j["symbols"]["BTCUSD"]["stale"], false);
  EXPECT_TRUE(j["symbols"]["ETHUSD"]["last_bar_age_s"].is_null());
  EXPECT_EQ(j["symbols"]["ETHUSD"]["quarantined_bars"], 0);
}

TEST(Snapshot, MalformedRequestsGetOneErrorEach) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {""},
      {"GET", "BTCUSD", "trend"},
      {"get"},
      {"get", "BTCUSD"},
      {"get", "BTCUSD", "trend", "extra"},
      {"list", "x"},
      {"health", "x"},
      {"frobnicate"},
      {std::string(10000, 'a')},
      {"get", std::string("BTC\0USD", 7), "trend"},
      {"get", "\xff\xfe", "trend"},
  };
  for (const auto& frames : bad) {
    std::string r;
    ASSERT_NO_THROW(r = reply(frames));
    EXPECT_FALSE(snapshot_error_of(r).empty()) << r;
  }
}

TEST(Snapshot, HealthFailureIsStillAReply) {
  const std::vector<std::string> frames = {"health"};
  const std::string r = snapshot_reply(frames, {}, configured,
                                       []() -> HealthInput { throw std::runtime_error("boom"); });
  EXPECT_NE(snapshot_error_of(r).find("boom"), std::string::npos);
}

}  // namespace
}  // namespace wfod::daemon
