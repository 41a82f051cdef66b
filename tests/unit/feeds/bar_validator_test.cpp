// Tests of per-symbol bar validation (SPEC §1, feeds/src/bar_validator.cpp): each value rule,
// duplicate / out_of_order / unknown_symbol, future bars against a fake clock, seq gaps
// (forward, backwards, seeded restart, missing-bar counts),
// counters against a seeded random stream and a plain model, and the reject log limiter.
#include "wfod/feeds/bar_validator.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace wfod::feeds {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Bar bar(int64_t ts, uint64_t seq = 0) { return Bar{ts, 100, 102, 99, 101, 5, seq}; }

const std::vector<std::string> kSymbols = {"BTCUSD", "ETHUSD"};

// ---------------------------------------------------------------------------------------
// Values

TEST(BarValidator, ValueRules) {
  EXPECT_FALSE(check_values(bar(1)));
  // Boundaries that hold: low == min(open, close), high == max(open, close), volume 0.
  EXPECT_FALSE(check_values(Bar{1, 100, 101, 100, 101, 0, 0}));
  EXPECT_FALSE(check_values(Bar{1, 5, 5, 5, 5, 0, 0}));
  EXPECT_FALSE(check_values(Bar{1, 5e-324, 5e-324, 5e-324, 5e-324, 0, 0}));  // > 0

  struct Case {
    const char* what;
    Bar b;
    const char* detail;
  };
  const Case cases[] = {
      {"open 0", {1, 0, 102, 99, 101, 5, 0}, "open"},
      {"open negative", {1, -100, 102, 99, 101, 5, 0}, "open"},
      {"open -0", {1, -0.0, 102, 99, 101, 5, 0}, "open"},
      {"high NaN", {1, 100, kNan, 99, 101, 5, 0}, "high"},
      {"low inf", {1, 100, 102, kInf, 101, 5, 0}, "low"},
      {"close -inf", {1, 100, 102, 99, -kInf, 5, 0}, "close"},
      {"volume negative", {1, 100, 102, 99, 101, -1, 0}, "volume"},
      {"volume NaN", {1, 100, 102, 99, 101, kNan, 0}, "volume"},
      {"volume inf", {1, 100, 102, 99, 101, kInf, 0}, "volume"},
      {"low above open", {1, 100, 102, 100.5, 101, 5, 0}, "low"},
      {"low above close", {1, 101, 102, 100.5, 100, 5, 0}, "low"},
      {"high below close", {1, 100, 100.5, 99, 101, 5, 0}, "high"},
      {"high below open", {1, 101, 100.5, 99, 100, 5, 0}, "high"},
      {"high below low", {1, 100, 99, 101, 100, 5, 0}, "low"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const auto r = check_values(c.b);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->reason, RejectReason::value);
    EXPECT_EQ(r->detail.rfind(c.detail, 0), 0u) << r->detail;

    BarValidator v(kSymbols);
    const Verdict verdict = v.validate("BTCUSD", c.b);
    ASSERT_FALSE(verdict.accepted());
    EXPECT_EQ(verdict.reject->reason, RejectReason::value);
    EXPECT_EQ(v.stats().rejected(RejectReason::value), 1u);
    EXPECT_EQ(v.stats().accepted, 0u);
    EXPECT_FALSE(v.stats().symbols.at("BTCUSD").has_last);  // nothing recorded
  }
}

// ---------------------------------------------------------------------------------------
// Order, duplicates, symbols

TEST(BarValidator, AcceptsIncreasingTs) {
  BarValidator v(kSymbols);
  for (const int64_t ts : {-100, 0, 1, 2, 1'000'000})
    EXPECT_TRUE(v.validate("BTCUSD", bar(ts)).accepted());
  const SymbolStats& s = v.stats().symbols.at("BTCUSD");
  EXPECT_TRUE(s.has_last);
  EXPECT_EQ(s.last_ts_ns, 1'000'000);
  EXPECT_EQ(s.accepted, 5u);
  EXPECT_EQ(v.stats().accepted, 5u);
  EXPECT_EQ(v.stats().rejected_total(), 0u);
  EXPECT_FALSE(v.stats().symbols.at("ETHUSD").has_last);  // symbols are independent
  EXPECT_TRUE(v.validate("ETHUSD", bar(1)).accepted());
}

TEST(BarValidator, DuplicateAndOutOfOrder) {
  BarValidator v(kSymbols);
  ASSERT_TRUE(v.validate("BTCUSD", bar(100, 1)).accepted());

  Bar again = bar(100, 2);
  again.close = 100.5;  // a different bar with the same ts is still a duplicate
  const Verdict dup = v.validate("BTCUSD", again);
  ASSERT_FALSE(dup.accepted());
  EXPECT_EQ(dup.reject->reason, RejectReason::duplicate);

  const Verdict old = v.validate("BTCUSD", bar(99, 3));
  ASSERT_FALSE(old.accepted());
  EXPECT_EQ(old.reject->reason, RejectReason::out_of_order);
  EXPECT_NE(old.reject->detail.find("1970-01-01T00:00:00.000000099Z"), std::string::npos)
      << old.reject->detail;

  // Rejected bars changed nothing: the last bar is still ts 100, seq 1.
  const SymbolStats& s = v.stats().symbols.at("BTCUSD");
  EXPECT_EQ(s.last_ts_ns, 100);
  EXPECT_EQ(s.last_seq, 1u);
  EXPECT_EQ(v.stats().rejected(RejectReason::duplicate), 1u);
  EXPECT_EQ(v.stats().rejected(RejectReason::out_of_order), 1u);
  EXPECT_EQ(v.stats().accepted, 1u);
  const Verdict next = v.validate("BTCUSD", bar(101, 2));
  EXPECT_TRUE(next.accepted());
  EXPECT_FALSE(next.gap);  // seq 2 follows 1: rejected bars do not advance seq
}

TEST(BarValidator, ValueIsCheckedBeforeOrder) {
  BarValidator v(kSymbols);
  ASSERT_TRUE(v.validate("BTCUSD", bar(100)).accepted());
  Bar bad = bar(100);
  bad.open = kNan;
  EXPECT_EQ(v.validate("BTCUSD", bad).reject->reason, RejectReason::value);
}

TEST(BarValidator, UnknownSymbol) {
  BarValidator v(kSymbols);
  const Verdict r = v.validate("DOGEUSD", bar(1));
  ASSERT_FALSE(r.accepted());
  EXPECT_EQ(r.reject->reason, RejectReason::unknown_symbol);
  EXPECT_NE(r.reject->detail.find("DOGEUSD"), std::string::npos);
  EXPECT_EQ(v.stats().rejected(RejectReason::unknown_symbol), 1u);
  EXPECT_EQ(v.stats().symbols.count("DOGEUSD"), 0u);  // not added
  EXPECT_EQ(v.validate("btcusd", bar(1)).reject->reason, RejectReason::unknown_symbol);
  const Verdict hostile = v.validate(std::string_view("\xff\n\0", 3), bar(1));
  EXPECT_EQ(hostile.reject->reason, RejectReason::unknown_symbol);
  EXPECT_EQ(hostile.reject->detail, "malformed symbol is not configured");
}

TEST(BarValidator, CountsCodecRejects) {
  BarValidator v(kSymbols);
  v.count(RejectReason::frames);
  v.count(RejectReason::parse);
  v.count(RejectReason::parse);
  EXPECT_EQ(v.stats().rejected(RejectReason::frames), 1u);
  EXPECT_EQ(v.stats().rejected(RejectReason::parse), 2u);
  EXPECT_EQ(v.stats().rejected_total(), 3u);
}

// ---------------------------------------------------------------------------------------
// Future bars (PROTOCOL §1 `future`), against a fake wall clock

constexpr int64_t kOneSecond = 1'000'000'000;
constexpr int64_t kNow = 1'790'000'000 * kOneSecond;  // 2026-09

TEST(BarValidatorFuture, FarFutureBarIsRejectedAndNeverLocksTheSymbol) {
  BarValidator v(kSymbols);
  int64_t now = kNow;
  v.set_max_future(std::chrono::seconds(300), [&now] { return now; });
  ASSERT_TRUE(v.validate("BTCUSD", bar(kNow - 60 * kOneSecond)).accepted());
  // The black-box tester's bar: ts 9e18 ns, year 2255.
  const Verdict far = v.validate("BTCUSD", bar(9'000'000'000'000'000'000));
  ASSERT_FALSE(far.accepted());
  EXPECT_EQ(far.reject->reason, RejectReason::future);
  EXPECT_NE(far.reject->detail.find("2255-03-14T16:00:00Z"), std::string::npos)
      << far.reject->detail;
  EXPECT_NE(far.reject->detail.find("max_future_s 300"), std::string::npos) << far.reject->detail;
  // Real bars after it: accepted, never out_of_order against the refused one.
  for (int64_t i = 1; i <= 5; ++i) {
    const Verdict real = v.validate("BTCUSD", bar(kNow - 60 * kOneSecond + i * kOneSecond));
    ASSERT_TRUE(real.accepted()) << real.reject->detail;
  }
  EXPECT_EQ(v.stats().rejected(RejectReason::future), 1u);
  EXPECT_EQ(v.stats().rejected(RejectReason::out_of_order), 0u);
  EXPECT_EQ(v.stats().symbols.at("BTCUSD").last_ts_ns, kNow - 55 * kOneSecond);
}

TEST(BarValidatorFuture, TheLimitIsInclusiveAndFollowsTheClock) {
  BarValidator v(kSymbols);
  int64_t now = kNow;
  v.set_max_future(std::chrono::seconds(300), [&now] { return now; });
  EXPECT_EQ(v.validate("BTCUSD", bar(kNow + 300 * kOneSecond + 1)).reject->reason,
            RejectReason::future);                                             // 1 ns too far
  EXPECT_TRUE(v.validate("BTCUSD", bar(kNow + 300 * kOneSecond)).accepted());  // exactly 300 s
  // Refused at one time, the same stamp is fine once the clock has moved on.
  EXPECT_EQ(v.validate("ETHUSD", bar(kNow + 400 * kOneSecond)).reject->reason,
            RejectReason::future);
  now += 100 * kOneSecond;
  EXPECT_TRUE(v.validate("ETHUSD", bar(kNow + 400 * kOneSecond)).accepted());
  EXPECT_EQ(v.stats().rejected(RejectReason::future), 2u);
}

TEST(BarValidatorFuture, ZeroTurnsItOffAndExtremesDoNotOverflow) {
  BarValidator off(kSymbols);  // the default: no check
  EXPECT_TRUE(off.validate("BTCUSD", bar(std::numeric_limits<int64_t>::max())).accepted());
  off.set_max_future(std::chrono::seconds(0), [] { return kNow; });
  EXPECT_TRUE(off.validate("ETHUSD", bar(std::numeric_limits<int64_t>::max())).accepted());

  // A clock before 1970 against a bar at INT64_MAX: the distance exceeds int64.
  BarValidator v(kSymbols);
  v.set_max_future(std::chrono::seconds(300), [] { return -kNow; });
  EXPECT_EQ(v.validate("BTCUSD", bar(std::numeric_limits<int64_t>::max())).reject->reason,
            RejectReason::future);
  EXPECT_TRUE(v.validate("BTCUSD", bar(std::numeric_limits<int64_t>::min())).accepted());
  // The real clock: now is not 300 s in the future of itself.
  BarValidator real(kSymbols);
  real.set_max_future(std::chrono::seconds(300));
  EXPECT_TRUE(real.validate("BTCUSD", bar(BarValidator::system_now_ns())).accepted());
  EXPECT_EQ(real.validate("BTCUSD", bar(BarValidator::system_now_ns() + 3600 * kOneSecond))
                .reject->reason,
            RejectReason::future);
}

TEST(BarValidatorFuture, ValueIsCheckedFirstAndFutureBeforeOrder) {
  BarValidator v(kSymbols);
  v.set_max_future(std::chrono::seconds(300), [] { return kNow; });
  Bar bad = bar(kNow + 3600 * kOneSecond);
  bad.open = kNan;
  EXPECT_EQ(v.validate("BTCUSD", bad).reject->reason, RejectReason::value);
  // A persisted far-future bar (seeded from a log written without the check): a new bar
  // beyond the limit is `future`, not a duplicate of it or out of order against it.
  ASSERT_TRUE(v.seed("ETHUSD", 9'000'000'000'000'000'000, 0));
  EXPECT_EQ(v.validate("ETHUSD", bar(9'000'000'000'000'000'000)).reject->reason,
            RejectReason::future);
  EXPECT_EQ(v.validate("ETHUSD", bar(kNow)).reject->reason, RejectReason::out_of_order);
}

// Issue 43 item 9: [daemon] min_ts. A ts in seconds reads as 1970: `field`, with the reason.
TEST(BarValidatorMinTs, BarsBeforeTheFloorAreFieldRejectsThatHoldNothing) {
  BarValidator v(kSymbols);
  EXPECT_TRUE(v.validate("BTCUSD", bar(1'741'080'000)).accepted());  // off by default
  BarValidator w(kSymbols);
  w.set_min_ts(int64_t{31'536'000} * kOneSecond);  // 1971-01-01
  const Verdict seconds = w.validate("BTCUSD", bar(1'741'080'000));
  ASSERT_FALSE(seconds.accepted());
  EXPECT_EQ(seconds.reject->reason, RejectReason::field);
  EXPECT_EQ(
      seconds.reject->detail,
      "ts 1741080000 (1970-01-01T00:00:01.741080000Z) is before min_ts 1971-01-01T00:00:00Z: a "
      "ts in seconds or milliseconds? PROTOCOL §1 ts is nanoseconds");
  EXPECT_EQ(w.validate("BTCUSD", bar(-1'000'000'000'000'000'000)).reject->reason,
            RejectReason::field);  // 1938
  EXPECT_EQ(w.stats().rejected(RejectReason::field), 2u);
  EXPECT_TRUE(w.validate("BTCUSD", bar(kNow)).accepted());  // nothing was held
  w.set_min_ts(kNow + kOneSecond);
  EXPECT_EQ(w.validate("BTCUSD", bar(kNow + kOneSecond / 2)).reject->reason, RejectReason::field);
  EXPECT_TRUE(w.validate("BTCUSD", bar(kNow + kOneSecond)).accepted());  // inclusive
}

// ---------------------------------------------------------------------------------------
// Seq gaps

TEST(BarValidator, SeqGaps) {
  BarValidator v(kSymbols);
  EXPECT_FALSE(v.validate("BTCUSD", bar(1, 1)).gap);  // first bar: nothing to compare
  EXPECT_FALSE(v.validate("BTCUSD", bar(2, 2)).gap);

  const Verdict jump = v.validate("BTCUSD", bar(3, 5));
  ASSERT_TRUE(jump.accepted());  // a gap is counted, the series continues
  ASSERT_TRUE(jump.gap);
  EXPECT_EQ(jump.gap->expected, 3u);
  EXPECT_EQ(jump.gap->got, 5u);
  EXPECT_EQ(jump.gap->missing, 2u);
  EXPECT_FALSE(jump.gap->backwards);
  EXPECT_FALSE(v.validate("BTCUSD", bar(4, 6)).gap);

  // Backwards (a publisher restart) with a newer ts: accepted, a gap of unknown size.
  const Verdict back = v.validate("BTCUSD", bar(5, 1));
  ASSERT_TRUE(back.accepted());
  ASSERT_TRUE(back.gap);
  EXPECT_TRUE(back.gap->backwards);
  EXPECT_EQ(back.gap->missing, 0u);
  EXPECT_FALSE(v.validate("BTCUSD", bar(6, 2)).gap);  // continues from the new counter

  // The same seq again with a newer ts is not "last + 1" either.
  const Verdict repeat = v.validate("BTCUSD", bar(7, 2));
  ASSERT_TRUE(repeat.gap);
  EXPECT_TRUE(repeat.gap->backwards);

  const FeedStats& st = v.stats();
  EXPECT_EQ(st.gaps, 3u);
  EXPECT_EQ(st.missing_seqs, 2u);
  EXPECT_EQ(st.symbols.at("BTCUSD").gaps, 3u);
  EXPECT_EQ(st.accepted, 7u);
  EXPECT_EQ(st.rejected_total(), 0u);
}

// A publisher whose seq alternates 1, 1001, 1, ...: every bar after the first is a gap. Each
// forward jump misses 999 bars; a backwards one (a counter restart) misses none it can tell.
TEST(BarValidator, AlternatingSeqCountsMissingBarsOfForwardJumpsOnly) {
  BarValidator v(kSymbols);
  constexpr int64_t kBars = 10'000;
  uint64_t forward = 0, backwards = 0;
  for (int64_t i = 0; i < kBars; ++i) {
    const Verdict r = v.validate("BTCUSD", bar(i + 1, i % 2 == 0 ? 1 : 1001));
    ASSERT_TRUE(r.accepted());
    ASSERT_EQ(r.gap.has_value(), i > 0);
    if (!r.gap) continue;
    if (r.gap->backwards) {
      ++backwards;
      EXPECT_EQ(r.gap->missing, 0u);
    } else {
      ++forward;
      EXPECT_EQ(r.gap->missing, 999u);
    }
  }
  EXPECT_EQ(forward, 5'000u);
  EXPECT_EQ(backwards, 4'999u);
  EXPECT_EQ(v.stats().gaps, 9'999u);
  EXPECT_EQ(v.stats().missing_seqs, 5'000u * 999u);
  EXPECT_EQ(v.stats().accepted, 10'000u);
}

TEST(BarValidator, SeqZeroMeansNone) {
  BarValidator v(kSymbols);
  EXPECT_FALSE(v.validate("BTCUSD", bar(1, 0)).gap);
  EXPECT_FALSE(v.validate("BTCUSD", bar(2, 7)).gap);   // last had none
  EXPECT_FALSE(v.validate("BTCUSD", bar(3, 0)).gap);   // this has none
  EXPECT_FALSE(v.validate("BTCUSD", bar(4, 50)).gap);  // compared with the last bar's 0
  EXPECT_EQ(v.stats().gaps, 0u);
}

TEST(BarValidator, SeqAtTheTopOfItsRange) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  BarValidator v(kSymbols);
  ASSERT_TRUE(v.validate("BTCUSD", bar(1, kMax - 1)).accepted());
  EXPECT_FALSE(v.validate("BTCUSD", bar(2, kMax)).gap);
  const Verdict wrapped = v.validate("BTCUSD", bar(3, 1));  // counter wrapped: a restart
  ASSERT_TRUE(wrapped.gap);
  EXPECT_TRUE(wrapped.gap->backwards);
}

TEST(BarValidator, SeededRestart) {
  BarValidator v(kSymbols);
  EXPECT_FALSE(v.seed("DOGEUSD", 1, 1));
  ASSERT_TRUE(v.seed("BTCUSD", 1000, 10));
  EXPECT_EQ(v.stats().symbols.at("BTCUSD").last_ts_ns, 1000);
  EXPECT_EQ(v.stats().accepted, 0u);  // seeding is history, not new bars

  // The publisher re-sends its last bars after our restart: dropped, counted.
  EXPECT_EQ(v.validate("BTCUSD", bar(1000, 10)).reject->reason, RejectReason::duplicate);
  EXPECT_EQ(v.validate("BTCUSD", bar(990, 9)).reject->reason, RejectReason::out_of_order);
  // The next bar continues the persisted sequence: no gap.
  const Verdict next = v.validate("BTCUSD", bar(1010, 11));
  EXPECT_TRUE(next.accepted());
  EXPECT_FALSE(next.gap);

  // Bars published while we were down show as a gap across the restart.
  BarValidator w(kSymbols);
  ASSERT_TRUE(w.seed("BTCUSD", 1000, 10));
  const Verdict after_downtime = w.validate("BTCUSD", bar(1050, 15));
  ASSERT_TRUE(after_downtime.gap);
  EXPECT_EQ(after_downtime.gap->missing, 4u);

  // History without seq numbers (e.g. a CSV backfill): seq is not compared.
  BarValidator u(kSymbols);
  ASSERT_TRUE(u.seed("BTCUSD", 1000, 0));
  EXPECT_FALSE(u.validate("BTCUSD", bar(1010, 77)).gap);
  EXPECT_EQ(u.validate("BTCUSD", bar(1000, 0)).reject->reason, RejectReason::out_of_order);
}

// A random stream of bars (repeats, old ts, bad values, unknown symbols, seq jumps) against a
// plain model of SPEC §1 written separately from the validator.
TEST(BarValidator, RandomStreamMatchesModel) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    const std::vector<std::string> names = {"A", "B", "C", "X"};  // X is not configured
    BarValidator v(std::vector<std::string>{"A", "B", "C"});
    struct Last {
      int64_t ts;
      uint64_t seq;
    };
    std::map<std::string, Last> model;
    std::array<uint64_t, kRejectReasonCount> rejects{};
    uint64_t accepted = 0, gaps = 0, missing = 0;
    std::map<std::string, int64_t> next_ts;
    std::map<std::string, uint64_t> next_seq;
    for (int i = 0; i < 5000; ++i) {
      const std::string& sym = names[rng() % names.size()];
      Bar b = bar(0);
      const auto kind = rng() % 10;
      b.ts_ns = next_ts[sym] + static_cast<int64_t>(rng() % 3) - 1;  // -1, 0, +1 around next
      if (rng() % 20 == 0) b.ts_ns -= 5;                             // late
      if (kind == 0) b.low = 200;                                    // breaks low <= min
      if (kind == 1) b.volume = -1;
      b.seq = rng() % 5 == 0 ? 0 : next_seq[sym] + (rng() % 6 == 0 ? rng() % 4 : 0);
      if (rng() % 50 == 0) b.seq = 1;  // a publisher restart
      const Verdict verdict = v.validate(sym, b);

      // The model.
      std::optional<RejectReason> want;
      const auto it = model.find(sym);
      if (sym == "X") {
        want = RejectReason::unknown_symbol;
      } else if (kind <= 1) {
        want = RejectReason::value;
      } else if (it != model.end() && b.ts_ns == it->second.ts) {
        want = RejectReason::duplicate;
      } else if (it != model.end() && b.ts_ns < it->second.ts) {
        want = RejectReason::out_of_order;
      }
      ASSERT_EQ(verdict.accepted(), !want) << "bar " << i;
      if (want) {
        ASSERT_EQ(verdict.reject->reason, *want) << "bar " << i;
        ++rejects[static_cast<size_t>(*want)];
        continue;
      }
      const bool gap =
          it != model.end() && b.seq != 0 && it->second.seq != 0 && b.seq != it->second.seq + 1;
      ASSERT_EQ(verdict.gap.has_value(), gap) << "bar " << i;
      if (gap) {
        ++gaps;
        if (b.seq > it->second.seq) missing += b.seq - it->second.seq - 1;
      }
      model[sym] = {b.ts_ns, b.seq};
      ++accepted;
      next_ts[sym] = b.ts_ns + 1 + static_cast<int64_t>(rng() % 2);
      if (b.seq != 0) next_seq[sym] = b.seq + 1;
    }
    EXPECT_EQ(v.stats().rejects, rejects);
    EXPECT_EQ(v.stats().accepted, accepted);
    EXPECT_EQ(v.stats().gaps, gaps);
    EXPECT_EQ(v.stats().missing_seqs, missing);
    for (const auto& [sym, last] : model) {
      EXPECT_EQ(v.stats().symbols.at(sym).last_ts_ns, last.ts) << sym;
      EXPECT_EQ(v.stats().symbols.at(sym).last_seq, last.seq) << sym;
    }
    EXPECT_GT(gaps, 10u);
    EXPECT_GT(rejects[static_cast<size_t>(RejectReason::duplicate)], 10u);
    EXPECT_GT(rejects[static_cast<size_t>(RejectReason::out_of_order)], 10u);
  }
}

// ---------------------------------------------------------------------------------------
// Reject log limiter (with a fake clock: the caller passes the time)

TEST(BarValidatorLogLimiter, LimitsPerIntervalAndReportsSuppressed) {
  using namespace std::chrono_literals;
  using Clock = RejectLogLimiter::Clock;
  const Clock::time_point t0{};
  RejectLogLimiter limiter(3, 1s);

  for (int i = 0; i < 3; ++i) {
    const auto d = limiter.on_reject(t0 + i * 100ms);
    EXPECT_TRUE(d.log);
    EXPECT_EQ(d.suppressed, 0u);
  }
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(limiter.on_reject(t0 + 500ms).log);
  EXPECT_FALSE(limiter.on_reject(t0 + 999ms).log);
  EXPECT_EQ(limiter.pending_suppressed(), 6u);

  // The window ends 1 s after it opened: the next reject logs and reports the six.
  const auto d = limiter.on_reject(t0 + 1s);
  EXPECT_TRUE(d.log);
  EXPECT_EQ(d.suppressed, 6u);
  EXPECT_EQ(limiter.pending_suppressed(), 0u);
  EXPECT_TRUE(limiter.on_reject(t0 + 1s).log);
  EXPECT_TRUE(limiter.on_reject(t0 + 1500ms).log);
  EXPECT_FALSE(limiter.on_reject(t0 + 1999ms).log);

  // A quiet spell: the new window opens at the next reject, not on a fixed grid.
  const auto later = limiter.on_reject(t0 + 10s + 300ms);
  EXPECT_TRUE(later.log);
  EXPECT_EQ(later.suppressed, 1u);
  EXPECT_TRUE(limiter.on_reject(t0 + 11s).log);
  EXPECT_TRUE(limiter.on_reject(t0 + 11s + 200ms).log);
  EXPECT_FALSE(limiter.on_reject(t0 + 11s + 299ms).log);
  EXPECT_TRUE(limiter.on_reject(t0 + 11s + 300ms).log);

  // A clock stepping backwards opens a window rather than stalling the log.
  EXPECT_TRUE(limiter.on_reject(t0).log);
}

TEST(BarValidatorLogLimiter, ZeroMeansNeverLog) {
  using namespace std::chrono_literals;
  RejectLogLimiter limiter(0, 1s);
  const RejectLogLimiter::Clock::time_point t0{};
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(limiter.on_reject(t0 + i * 1s).log);
  EXPECT_EQ(limiter.pending_suppressed(), 10u);
}

}  // namespace
}  // namespace wfod::feeds
