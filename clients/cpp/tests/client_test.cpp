// wfod::client::Client against live wfod daemons on loopback (paths compiled in, or WFOD,
// WFOD_CSV, CPP_FOLLOW from the environment; ctest cpp_client.*), and against a scripted fake
// daemon where the test needs what a live one does not do on demand (a lost update, updates before
// the snapshot). The C++ twin of clients/python/tests/test_client.py.
#include "wfod/client.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "live_wfod.hpp"
#include "support/temp_dir.hpp"

namespace wfod::client_test {
namespace {

namespace wc = wfod::client;
using Clock = std::chrono::steady_clock;

const std::vector<Bar>& all_bars() {
  static const std::vector<Bar> bars = load_bars(csv_path());
  return bars;
}

// Polls until done(); returns the seconds it took, fails the test after `timeout`.
double poll_until(wc::Client& c, const std::function<bool()>& done,
                  std::chrono::duration<double> timeout, const std::string& what) {
  const auto t0 = Clock::now();
  while (!done()) {
    if (Clock::now() - t0 > timeout) {
      ADD_FAILURE() << "not within " << timeout.count() << " s: " << what;
      return -1;
    }
    c.poll(std::chrono::milliseconds(50));
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Everything a client delivers, in order.
struct Recorder {
  std::vector<wc::Publication> pubs;
  std::vector<wc::Signal> signals;
  std::vector<std::pair<wc::StreamKey, bool>> stale;

  wc::Options options(double stale_after_s = 10, double request_timeout_s = 2) {
    wc::Options o;
    o.stale_after = std::chrono::duration<double>(stale_after_s);
    o.request_timeout = std::chrono::duration<double>(request_timeout_s);
    o.on_publication = [this](const wc::Publication& p) { pubs.push_back(p); };
    o.on_signal = [this](const wc::Signal& s) { signals.push_back(s); };
    o.on_stale = [this](const wc::StreamKey& k, bool s) { stale.emplace_back(k, s); };
    return o;
  }
};

std::vector<wc::StreamKey> keys(std::initializer_list<wc::StreamKey> k) { return k; }

// One context, feed and temp dir per test; daemons stopped at the end.
class LiveDaemon : public ::testing::Test {
 protected:
  void SetUp() override {
    if (wfod_path().empty() || access(wfod_path().c_str(), X_OK) != 0) {
      GTEST_SKIP() << "wfod not built (or WFOD not set)";
    }
    feed_ = std::make_unique<Feed>(ctx_);
  }
  void TearDown() override {
    daemons_.clear();
    feed_.reset();
  }

  Wfod& daemon(const std::string& name, const std::vector<std::string>& symbols,
               const std::string& strategies) {
    const std::string dir = tmp_.path() + "/" + name;
    std::filesystem::create_directories(dir);
    daemons_.push_back(std::make_unique<Wfod>(ctx_, dir, *feed_, symbols, strategies));
    daemons_.back()->start();
    return *daemons_.back();
  }

  void feed(const Wfod& d, const std::string& symbol, size_t first, size_t end) {
    feed_bars(*feed_, {&d}, symbol, all_bars(), first, end);
  }

  zmq::context_t ctx_{1};
  wfod::test::TempDir tmp_{"wfod_cpp_client"};
  std::unique_ptr<Feed> feed_;
  std::vector<std::unique_ptr<Wfod>> daemons_;
};

TEST_F(LiveDaemon, SnapshotThenOnlyNewerUpdatesAndEverySignal) {
  Wfod& d = daemon("a", {"GOOG"}, strategy_toml("t", {"GOOG"}));
  feed(d, "GOOG", 0, 200);
  const int64_t seq0 = settle(d, "GOOG", "t");
  Recorder rec;
  wc::Client c({{d.pub(), d.snapshot()}}, keys({{"GOOG", "t"}}), rec.options(5), &ctx_);
  poll_until(
      c, [&] { return !rec.pubs.empty(); }, std::chrono::seconds(5), "the snapshot");
  ASSERT_FALSE(rec.pubs.empty());
  EXPECT_TRUE(rec.pubs[0].from_snapshot);
  EXPECT_EQ(rec.pubs[0].seq, seq0);
  EXPECT_EQ(rec.pubs[0].payload, *d.request({"get", "GOOG", "t"}));
  feed(d, "GOOG", 200, 300);
  const int64_t last = settle(d, "GOOG", "t");
  poll_until(
      c, [&] { return rec.pubs.back().seq == last && rec.signals.size() == 100; },
      std::chrono::seconds(10), "seq " + std::to_string(last) + " and 100 signals");
  std::vector<int64_t> seqs, want;
  for (const auto& p : rec.pubs) seqs.push_back(p.seq);
  for (int64_t s = seq0; s <= last; ++s) want.push_back(s);
  EXPECT_EQ(seqs, want) << "each update once, none older";
  for (size_t i = 1; i < rec.pubs.size(); ++i) EXPECT_FALSE(rec.pubs[i].from_snapshot);
  EXPECT_EQ(c.gaps(), 0u);
  ASSERT_EQ(rec.signals.size(), 100u);
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(rec.signals[i].ts, all_bars()[200 + i].ts_ns) << i;
  EXPECT_EQ(c.position("GOOG", "t"), rec.signals.back().position);
  EXPECT_EQ(rec.signals.back().params_seq, last);
  const nlohmann::json final_pub = *d.request({"get", "GOOG", "t"});
  ASSERT_NE(c.publication("GOOG", "t"), nullptr);
  EXPECT_EQ(c.publication("GOOG", "t")->payload, final_pub);
  EXPECT_EQ(rec.signals.back().position, final_pub["position"]["value"].get<int>());
  EXPECT_TRUE(c.stale_streams().empty());
}

TEST_F(LiveDaemon, StaleAfterKill9ThenResumesWithIncreasingSeq) {
  Wfod& d = daemon("a", {"GOOG"}, strategy_toml("t", {"GOOG"}));
  feed(d, "GOOG", 0, 160);
  const int64_t seq0 = settle(d, "GOOG", "t");
  Recorder rec;
  const double stale_after = 1.5;
  wc::Client c({{d.pub(), d.snapshot()}}, keys({{"GOOG", "t"}}), rec.options(stale_after, 0.5),
               &ctx_);
  poll_until(
      c, [&] { return !rec.pubs.empty(); }, std::chrono::seconds(5), "the snapshot");
  c.poll(std::chrono::milliseconds(500));
  EXPECT_FALSE(c.is_stale("GOOG", "t"));
  const auto killed = Clock::now();
  d.kill9();
  const double took = poll_until(
      c, [&] { return c.is_stale("GOOG", "t"); }, std::chrono::duration<double>(stale_after + 3),
      "stale");
  EXPECT_LE(std::chrono::duration<double>(Clock::now() - killed).count(), stale_after + 1.0)
      << "stale within its timeout (plus a probe)";
  ASSERT_FALSE(rec.stale.empty());
  EXPECT_EQ(rec.stale.back(), std::make_pair(wc::StreamKey{"GOOG", "t"}, true));
  c.poll(std::chrono::seconds(1));  // requests to the dead daemon time out: nothing blocks
  EXPECT_GE(c.request_timeouts(), 1u);
  d.start();  // same endpoints, same state
  poll_until(
      c, [&] { return !c.is_stale("GOOG", "t"); }, std::chrono::seconds(10), "fresh again");
  EXPECT_EQ(rec.stale.back(), std::make_pair(wc::StreamKey{"GOOG", "t"}, false));
  c.poll(std::chrono::milliseconds(500));  // the SUB has reconnected and subscribed again
  const size_t end = 160 + 4 * kEvery;
  feed(d, "GOOG", 160, end);
  const int64_t last = settle(d, "GOOG", "t");
  EXPECT_GT(last, seq0);
  poll_until(
      c,
      [&] {
        return rec.pubs.back().seq == last && !rec.signals.empty() &&
               rec.signals.back().ts == all_bars()[end - 1].ts_ns;
      },
      std::chrono::seconds(10), "the last seq and the last bar's signal");
  for (size_t i = 1; i < rec.pubs.size(); ++i) {
    EXPECT_GT(rec.pubs[i].seq, rec.pubs[i - 1].seq) << "seq only increases across the restart";
  }
  ASSERT_EQ(rec.signals.size(), end - 160);
  for (size_t i = 0; i < rec.signals.size(); ++i)
    EXPECT_EQ(rec.signals[i].ts, all_bars()[160 + i].ts_ns);
  std::printf("stale %.2f s after kill -9 (stale_after %.1f s); seq %lld -> %lld\n", took,
              stale_after, static_cast<long long>(seq0), static_cast<long long>(last));
}

TEST_F(LiveDaemon, WholeTopicsOnlyThoughPrefixesCollide) {
  // params.BRK.B (strategy B of BRK) is a prefix of params.BRK.B.x (x of BRK.B), and
  // signal.BRK.B of signal.BRK.B.x; BRK.B/x.x shares the symbol's start too.
  Wfod& d = daemon("a", {"BRK", "BRK.B", "BRK.B/x"},
                   strategy_toml("B", {"BRK"}) + strategy_toml("x", {"BRK.B", "BRK.B/x"}));
  Recorder rec_b, rec_x;
  wc::Client cb({{d.pub(), d.snapshot()}}, keys({{"BRK", "B"}}), rec_b.options(), &ctx_);
  wc::Client cx({{d.pub(), d.snapshot()}}, keys({{"BRK.B", "x"}}), rec_x.options(), &ctx_);
  cb.poll(std::chrono::milliseconds(300));
  cx.poll(std::chrono::milliseconds(300));
  for (const char* sym : {"BRK.B/x", "BRK.B", "BRK"}) feed(d, sym, 0, kFirstRun + 2 * kEvery);
  settle(d, "BRK", "B");
  settle(d, "BRK.B", "x");
  settle(d, "BRK.B/x", "x");
  poll_until(
      cb,
      [&] {
        return !rec_b.pubs.empty() && !rec_b.signals.empty() &&
               rec_b.pubs.back().seq == d.get_seq("BRK", "B");
      },
      std::chrono::seconds(10), "BRK.B");
  poll_until(
      cx, [&] { return !rec_x.pubs.empty() && rec_x.pubs.back().seq == d.get_seq("BRK.B", "x"); },
      std::chrono::seconds(10), "BRK.B.x");
  std::set<wc::StreamKey> b_streams, x_streams;
  for (const auto& p : rec_b.pubs) b_streams.insert(p.stream);
  for (const auto& s : rec_b.signals) b_streams.insert(s.stream);
  for (const auto& p : rec_x.pubs) x_streams.insert(p.stream);
  for (const auto& s : rec_x.signals) x_streams.insert(s.stream);
  EXPECT_EQ(b_streams, (std::set<wc::StreamKey>{{"BRK", "B"}}));
  EXPECT_EQ(x_streams, (std::set<wc::StreamKey>{{"BRK.B", "x"}}));
  EXPECT_EQ(cb.streams(), keys({{"BRK", "B"}}));
}

TEST_F(LiveDaemon, EveryStreamOfEveryDaemonAndOneGoingStale) {
  Wfod& a = daemon("a", {"AAA"}, strategy_toml("t", {"AAA"}));
  Wfod& b = daemon("b", {"BBB", "B.B"}, strategy_toml("t", {"BBB", "B.B"}));
  Recorder rec;
  wc::Client c({{a.pub(), a.snapshot()}, {b.pub(), b.snapshot()}}, std::nullopt,
               rec.options(1.5, 0.5), &ctx_);
  const auto want_keys = keys({{"AAA", "t"}, {"B.B", "t"}, {"BBB", "t"}});
  c.poll(std::chrono::milliseconds(300));
  feed(a, "AAA", 0, kFirstRun + kEvery);
  feed(b, "BBB", 0, kFirstRun + kEvery);
  feed(b, "B.B", 0, kFirstRun + kEvery);
  std::map<wc::StreamKey, int64_t> want;
  for (const auto& k : want_keys) want[k] = settle(k.symbol == "AAA" ? a : b, k.symbol, k.strategy);
  poll_until(
      c, [&] { return c.streams() == want_keys; }, std::chrono::seconds(5), "streams found");
  poll_until(
      c,
      [&] {
        for (const auto& k : want_keys) {
          const wc::Publication* p = c.publication(k.symbol, k.strategy);
          if (p == nullptr || p->seq != want[k]) return false;
        }
        return true;
      },
      std::chrono::seconds(10), "every stream's newest publication");
  b.kill9();
  const std::vector<wc::StreamKey> b_keys(want_keys.begin() + 1, want_keys.end());
  poll_until(
      c, [&] { return c.stale_streams() == b_keys; }, std::chrono::seconds(4),
      "daemon b's streams stale");
  auto a_signals = [&] {
    size_t n = 0;
    for (const auto& s : rec.signals) n += s.stream == want_keys[0];
    return n;
  };
  const size_t before = a_signals();
  feed(a, "AAA", kFirstRun + kEvery, kFirstRun + 3 * kEvery);
  poll_until(
      c, [&] { return a_signals() == before + 2 * kEvery; }, std::chrono::seconds(10),
      "daemon a's signals go on");
  EXPECT_EQ(c.stale_streams(), b_keys);
  EXPECT_FALSE(c.is_stale("AAA", "t"));
}

// examples/cpp_follow against a live daemon: it starts from the snapshot's position and
// prints each trade the signals make, ending at the last signal's position.
TEST_F(LiveDaemon, CppFollowExamplePrintsEachPositionChange) {
  const std::string example = follow_path();
  Wfod& d = daemon("a", {"GOOG"}, strategy_toml("t", {"GOOG"}));
  feed(d, "GOOG", 0, kFirstRun + kEvery);
  settle(d, "GOOG", "t");
  const std::string out_path = tmp_.path() + "/follow.out";
  const pid_t pid = spawn({example, "GOOG", "t", "--pub", d.pub(), "--snapshot", d.snapshot(),
                           "--size", "100", "--seconds", "8"},
                          out_path);
  Recorder rec;  // the same stream through the library, for the expected position
  wc::Client c({{d.pub(), d.snapshot()}}, keys({{"GOOG", "t"}}), rec.options(), &ctx_);
  poll_until(
      c, [&] { return !rec.pubs.empty(); }, std::chrono::seconds(5), "the snapshot");
  c.poll(std::chrono::seconds(1));  // the example has subscribed and snapshotted too
  feed(d, "GOOG", kFirstRun + kEvery, 400);
  poll_until(
      c, [&] { return !rec.signals.empty() && rec.signals.back().ts == all_bars()[399].ts_ns; },
      std::chrono::seconds(10), "the last bar's signal");
  EXPECT_EQ(wait_exit(pid, std::chrono::seconds(20)), 0);  // it stops by itself after 8 s
  std::ifstream f(out_path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string out = ss.str();
  EXPECT_NE(out.find("(snapshot)"), std::string::npos) << out;
  std::vector<std::string> trades;
  std::istringstream lines(out);
  for (std::string l; std::getline(lines, l);) {
    if (l.find(" BUY ") != std::string::npos || l.find(" SELL ") != std::string::npos)
      trades.push_back(l);
  }
  EXPECT_GE(trades.size(), 3u) << out;
  std::optional<int> held;
  for (const auto& line : trades) {
    int before = 0, after = 0;
    ASSERT_EQ(std::sscanf(line.substr(line.find('(')).c_str(), "(%d -> %d", &before, &after), 2)
        << line;
    if (held) {
      EXPECT_EQ(before, *held) << line;
    }
    std::istringstream words(line);
    std::string w[5];
    for (auto& x : w) words >> x;  // date time SYMBOL: SIDE SIZE
    EXPECT_DOUBLE_EQ(std::stod(w[4]), std::abs(after - before) * 100.0) << line;
    held = after;
  }
  ASSERT_FALSE(rec.signals.empty());
  EXPECT_EQ(held, rec.signals.back().position) << out;
}

// A scripted daemon: an XPUB (so the test sees the client's subscriptions) and a ROUTER that
// answers `get` with whatever publication the test sets, counting the requests.
class FakeDaemon {
 public:
  explicit FakeDaemon(zmq::context_t& ctx)
      : pub_(ctx, zmq::socket_type::xpub), snapshot_(ctx, zmq::socket_type::router) {
    pub_.set(zmq::sockopt::linger, 0);
    snapshot_.set(zmq::sockopt::linger, 0);
    pub_.bind("tcp://127.0.0.1:*");
    snapshot_.bind("tcp://127.0.0.1:*");
  }
  wc::DaemonEndpoints endpoints() {
    return {pub_.get(zmq::sockopt::last_endpoint), snapshot_.get(zmq::sockopt::last_endpoint)};
  }
  static nlohmann::json publication(int64_t seq) {
    return {{"schema", 1},
            {"symbol", "GOOG"},
            {"strategy", "t"},
            {"seq", seq},
            {"id", 100 + seq},
            {"params", {{"fast", 3}}},
            {"window", {{"last_ts", seq * 1000}}},
            {"position", {{"value", seq % 2 == 0 ? 1 : -1}, {"ts", seq * 1000}}}};
  }
  void publish(const std::string& topic, const nlohmann::json& payload) {
    const std::string body = payload.dump();
    pub_.send(zmq::buffer(topic), zmq::send_flags::sndmore);
    pub_.send(zmq::buffer(body), zmq::send_flags::none);
  }
  // Subscriptions received so far (XPUB: "\x01" + prefix each).
  size_t subscriptions() {
    zmq::message_t m;
    while (pub_.recv(m, zmq::recv_flags::dontwait)) {
      if (m.size() > 0 && m.data<char>()[0] == 1) ++subscriptions_;
    }
    return subscriptions_;
  }
  // Answers the pending requests: `get` with the current snapshot, others with health.
  void serve() {
    std::vector<zmq::message_t> parts;
    while (true) {
      zmq::message_t m;
      if (!snapshot_.recv(m, zmq::recv_flags::dontwait)) return;
      bool more = m.more();
      parts.clear();
      parts.push_back(std::move(m));
      while (more) {
        zmq::message_t next;
        (void)snapshot_.recv(next);
        more = next.more();
        parts.push_back(std::move(next));
      }
      // [identity, "", command, ...]
      const std::string command = parts.size() > 2 ? parts[2].to_string() : "";
      nlohmann::json reply = nlohmann::json{{"status", "ok"}};
      if (command == "get") {
        ++gets;
        reply = snapshot;
      }
      const std::string body = reply.dump();
      snapshot_.send(parts[0], zmq::send_flags::sndmore);
      snapshot_.send(zmq::str_buffer(""), zmq::send_flags::sndmore);
      snapshot_.send(zmq::buffer(body), zmq::send_flags::none);
    }
  }
  nlohmann::json snapshot;
  int gets = 0;

 private:
  zmq::socket_t pub_, snapshot_;
  size_t subscriptions_ = 0;
};

// The clone pattern's edges, scripted: updates sent before the snapshot reply are applied
// after it, in seq order; a seq jump and a signal naming an unseen publication are gaps that
// ask `get` again; older updates are dropped; a longer topic with our topic as its prefix is
// not ours.
TEST(FakeDaemon, BufferedUpdatesGapsAndResyncs) {
  zmq::context_t ctx(1);
  FakeDaemon fake(ctx);
  Recorder rec;
  wc::Client c({fake.endpoints()}, keys({{"GOOG", "t"}}), rec.options(), &ctx);
  auto run = [&](const std::function<bool()>& done, const char* what) {
    const auto t0 = Clock::now();
    while (!done() && Clock::now() - t0 < std::chrono::seconds(5)) {
      c.poll(std::chrono::milliseconds(20));
      fake.serve();
    }
    EXPECT_TRUE(done()) << what;
  };
  // Two subscriptions (params.GOOG.t, signal.GOOG.t); the client's get waits unanswered
  // in the ROUTER until serve().
  const auto t0 = Clock::now();
  while (fake.subscriptions() < 2 && Clock::now() - t0 < std::chrono::seconds(5)) {
    c.poll(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(fake.subscriptions(), 2u);
  fake.publish("params.GOOG.t", FakeDaemon::publication(7));  // before the snapshot
  fake.publish("params.GOOG.t", FakeDaemon::publication(6));
  c.poll(std::chrono::milliseconds(100));
  EXPECT_TRUE(rec.pubs.empty()) << "nothing before the snapshot";
  fake.snapshot = FakeDaemon::publication(5);
  run([&] { return rec.pubs.size() == 3; }, "the snapshot, then the two buffered updates");
  ASSERT_EQ(rec.pubs.size(), 3u);
  EXPECT_TRUE(rec.pubs[0].from_snapshot);
  EXPECT_EQ(rec.pubs[0].seq, 5);
  EXPECT_EQ(rec.pubs[1].seq, 6);
  EXPECT_EQ(rec.pubs[2].seq, 7);
  EXPECT_EQ(c.gaps(), 0u);
  EXPECT_EQ(fake.gets, 1);

  fake.publish("params.GOOG.t.x", FakeDaemon::publication(8));  // another stream's topic
  fake.publish("params.GOOG.t", FakeDaemon::publication(7));    // already seen
  fake.snapshot = FakeDaemon::publication(9);
  fake.publish("params.GOOG.t", FakeDaemon::publication(9));  // 8 was lost: a gap
  run([&] { return fake.gets == 2; }, "a get after the gap");
  fake.publish("params.GOOG.t", FakeDaemon::publication(8));  // late: dropped
  c.poll(std::chrono::milliseconds(100));
  std::vector<int64_t> seqs;
  for (const auto& p : rec.pubs) seqs.push_back(p.seq);
  EXPECT_EQ(seqs, (std::vector<int64_t>{5, 6, 7, 9}));
  EXPECT_EQ(c.gaps(), 1u);
  EXPECT_EQ(c.resyncs(), 0u) << "the reply (seq 9) had nothing new";

  // A signal following publication 11, which this client never saw: a gap, then get.
  fake.snapshot = FakeDaemon::publication(11);
  fake.publish("signal.GOOG.t", {{"schema", 1},
                                 {"symbol", "GOOG"},
                                 {"strategy", "t"},
                                 {"ts", 11000},
                                 {"position", 1},
                                 {"id", 111},
                                 {"params_seq", 11}});
  run([&] { return rec.pubs.back().seq == 11; }, "publication 11 from a get");
  EXPECT_TRUE(rec.pubs.back().from_snapshot);
  EXPECT_EQ(c.gaps(), 2u);
  EXPECT_EQ(c.resyncs(), 1u);
  EXPECT_EQ(fake.gets, 3);
  ASSERT_EQ(rec.signals.size(), 1u);
  EXPECT_EQ(c.position("GOOG", "t"), 1);
  EXPECT_EQ(c.streams(), keys({{"GOOG", "t"}}));
}

}  // namespace
}  // namespace wfod::client_test
