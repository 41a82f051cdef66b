// Per-symbol bar validation (SPEC §1) after decoding: values, bars stamped in the future
// (PROTOCOL §1), strictly increasing ts, publisher seq gaps, and the feed counters the
// daemon reports. Also the rate limiter that
// keeps reject logging bounded under a flood of bad input.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/feeds/bar_codec.hpp"

namespace wfod::feeds {

// SPEC §1 value rules on one bar, alone: prices finite and > 0, low <= min(open, close),
// high >= max(open, close), volume finite and >= 0. nullopt when they hold, else a `value`
// reject naming the first broken rule.
std::optional<Reject> check_values(const Bar& bar);

// Where one symbol's series stands.
struct SymbolStats {
  bool has_last = false;  // false until a bar is accepted or the symbol is seeded
  int64_t last_ts_ns = 0;
  uint64_t last_seq = 0;  // the last accepted bar's seq; 0 = it had none
  uint64_t accepted = 0;  // accepted by this validator (seeded history not included)
  uint64_t gaps = 0;
};

struct FeedStats {
  std::array<uint64_t, kRejectReasonCount> rejects{};  // indexed by RejectReason
  uint64_t accepted = 0;
  uint64_t gaps = 0;          // seq gap events (each is also one accepted bar)
  uint64_t missing_seqs = 0;  // seq numbers skipped by forward jumps, summed
  std::map<std::string, SymbolStats, std::less<>> symbols;  // every configured symbol

  uint64_t rejected(RejectReason reason) const { return rejects[static_cast<size_t>(reason)]; }
  uint64_t rejected_total() const;
};

// A jump in a symbol's publisher seq (SPEC §1): the bar is still accepted.
struct SeqGap {
  uint64_t expected = 0;  // last seq + 1
  uint64_t got = 0;
  uint64_t missing = 0;  // got - expected for a forward jump; 0 when seq went backwards
  bool backwards = false;
};

struct Verdict {
  std::optional<Reject> reject;  // set when the bar was not accepted
  std::optional<SeqGap> gap;     // set when it was accepted across a seq gap

  bool accepted() const { return !reject; }
};

class BarValidator {
 public:
  // The configured symbols; bars for any other are `unknown_symbol`.
  explicit BarValidator(std::span<const std::string> symbols);

  // Continues a series from persisted history: the last accepted bar's ts and seq (0 =
  // none), so that a restart rejects re-sent bars and sees gaps across the restart.
  // False (and nothing changes) if the symbol is not configured.
  bool seed(std::string_view symbol, int64_t last_ts_ns, uint64_t last_seq);

  // Checks one decoded bar and, when it is accepted, makes it the symbol's last bar.
  // Order: unknown_symbol, value, field (set_min_ts), future (set_max_future), then
  // duplicate / out_of_order
  // against the last accepted ts; an accepted bar may carry a seq gap. A rejected bar
  // changes nothing but its count: a later bar is never compared with it.
  Verdict validate(std::string_view symbol, const Bar& bar);

  // The hot path of the daemon's feed loop: the symbol's position in the constructor's list
  // (one hash lookup, no allocation), then validate() by that index without a second lookup.
  std::optional<size_t> index_of(std::string_view symbol) const;
  Verdict validate(size_t index, const Bar& bar);
  // An unknown symbol, counted and described as validate(symbol, ...) would.
  Verdict unknown(std::string_view symbol);

  // Counts a reject found before validation (frames, size, parse, field from the codec).
  void count(RejectReason reason) { ++stats_.rejects[static_cast<size_t>(reason)]; }

  // Wall-clock time, ns since the Unix epoch.
  using WallClock = std::function<int64_t()>;
  static int64_t system_now_ns();  // std::chrono::system_clock (realtime)
  // PROTOCOL §1 `future`: a bar stamped more than `max_ahead` after now() when it is
  // validated is rejected. Zero (the default) turns the check off. One bad publisher clock
  // must not lock a symbol: without it, a bar from year 2255 would be accepted and every
  // real bar after it rejected as out_of_order. Tests pass a fake clock.
  void set_max_future(std::chrono::nanoseconds max_ahead, WallClock now = system_now_ns);
  std::chrono::nanoseconds max_future() const { return std::chrono::nanoseconds(max_future_ns_); }
  // [daemon] min_ts: a bar stamped before `min_ts_ns` is rejected as `field` (a ts in
  // seconds or milliseconds reads as 1970). Off (INT64_MIN) by default.
  void set_min_ts(int64_t min_ts_ns) { min_ts_ns_ = min_ts_ns; }
  int64_t min_ts() const { return min_ts_ns_; }

  const FeedStats& stats() const { return stats_; }

 private:
  Verdict rejected(RejectReason reason, std::string detail);

  // Transparent hashing, so a string_view finds a std::string key without a copy.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  FeedStats stats_;
  int64_t max_future_ns_ = 0;  // 0: no future check
  int64_t min_ts_ns_ = std::numeric_limits<int64_t>::min();
  WallClock now_;
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> index_;
  std::vector<SymbolStats*> by_index_;  // into stats_.symbols (map nodes do not move)
};

// Bounds reject logging: at most `max_per_interval` lines per `interval` (a fixed window
// opened by the first reject after the previous window ends); the rest are counted, and
// the next logged line reports how many were suppressed before it. The caller passes the
// time, so tests drive it with a fake clock.
class RejectLogLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  struct Decision {
    bool log = false;
    uint64_t suppressed = 0;  // when log: rejects not logged since the last logged one
  };

  RejectLogLimiter(uint32_t max_per_interval, Clock::duration interval)
      : max_per_interval_(max_per_interval), interval_(interval) {}

  Decision on_reject(Clock::time_point now);
  Decision on_reject() { return on_reject(Clock::now()); }
  // Suppressed since the last logged one: for a final "N more suppressed" line.
  uint64_t pending_suppressed() const { return suppressed_; }

 private:
  uint32_t max_per_interval_;
  Clock::duration interval_;
  std::optional<Clock::time_point> window_start_;
  uint32_t logged_in_window_ = 0;
  uint64_t suppressed_ = 0;
};

}  // namespace wfod::feeds
