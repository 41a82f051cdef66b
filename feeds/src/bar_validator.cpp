// SPEC §1 per-symbol validation and feed counters, and the reject log rate limiter.
// Nothing here throws on input: every outcome is a Verdict, so one bad bar cannot take
// the feed down or alter what was already accepted.
#include "wfod/feeds/bar_validator.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <numeric>
#include <utility>

#include "wfod/feeds/csv_reader.hpp"

namespace wfod::feeds {
namespace {

std::string number(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, static_cast<size_t>(end - buf));
}

}  // namespace

std::optional<Reject> check_values(const Bar& bar) {
  const std::pair<std::string_view, double> prices[] = {
      {"open", bar.open}, {"high", bar.high}, {"low", bar.low}, {"close", bar.close}};
  for (const auto& [name, v] : prices) {
    // Written as !(v > 0) so that NaN fails too.
    if (!std::isfinite(v) || !(v > 0)) {
      return Reject{RejectReason::value,
                    std::string(name) + " " + number(v) + ": prices must be finite and > 0"};
    }
  }
  if (!std::isfinite(bar.volume) || !(bar.volume >= 0)) {
    return Reject{RejectReason::value,
                  "volume " + number(bar.volume) + ": must be finite and >= 0"};
  }
  if (bar.low > std::min(bar.open, bar.close)) {
    return Reject{RejectReason::value, "low " + number(bar.low) + " above min(open " +
                                           number(bar.open) + ", close " + number(bar.close) + ")"};
  }
  if (bar.high < std::max(bar.open, bar.close)) {
    return Reject{RejectReason::value, "high " + number(bar.high) + " below max(open " +
                                           number(bar.open) + ", close " + number(bar.close) + ")"};
  }
  return std::nullopt;
}

uint64_t FeedStats::rejected_total() const {
  return std::accumulate(rejects.begin(), rejects.end(), uint64_t{0});
}

BarValidator::BarValidator(std::span<const std::string> symbols) {
  for (const std::string& s : symbols) {
    auto [it, added] = stats_.symbols.try_emplace(s);
    // A repeated name keeps its first index; every index still points at its symbol.
    index_.try_emplace(s, by_index_.size());
    by_index_.push_back(&it->second);
    (void)added;
  }
}

std::optional<size_t> BarValidator::index_of(std::string_view symbol) const {
  const auto it = index_.find(symbol);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

Verdict BarValidator::unknown(std::string_view symbol) {
  // Only a well-formed symbol goes into the log line; the daemon's come from
  // decode_topic, which has checked them, but other callers may pass anything.
  return rejected(RejectReason::unknown_symbol,
                  is_valid_symbol(symbol) ? "symbol " + std::string(symbol) + " is not configured"
                                          : "malformed symbol is not configured");
}

bool BarValidator::seed(std::string_view symbol, int64_t last_ts_ns, uint64_t last_seq) {
  const auto it = stats_.symbols.find(symbol);
  if (it == stats_.symbols.end()) return false;
  it->second.has_last = true;
  it->second.last_ts_ns = last_ts_ns;
  it->second.last_seq = last_seq;
  return true;
}

Verdict BarValidator::rejected(RejectReason reason, std::string detail) {
  count(reason);
  return Verdict{Reject{reason, std::move(detail)}, std::nullopt};
}

Verdict BarValidator::validate(std::string_view symbol, const Bar& bar) {
  const std::optional<size_t> index = index_of(symbol);
  if (!index) return unknown(symbol);
  return validate(*index, bar);
}

int64_t BarValidator::system_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void BarValidator::set_max_future(std::chrono::nanoseconds max_ahead, WallClock now) {
  max_future_ns_ = std::max<int64_t>(0, max_ahead.count());
  now_ = now ? std::move(now) : WallClock(system_now_ns);
}

Verdict BarValidator::validate(size_t index, const Bar& bar) {
  if (auto r = check_values(bar)) {
    count(r->reason);
    return Verdict{std::move(r), std::nullopt};
  }
  if (bar.ts_ns < min_ts_ns_) {
    return rejected(RejectReason::field,
                    "ts " + std::to_string(bar.ts_ns) + " (" + format_timestamp(bar.ts_ns) +
                        ") is before min_ts " + format_timestamp(min_ts_ns_) +
                        ": a ts in seconds or milliseconds? PROTOCOL §1 ts is nanoseconds");
  }
  if (max_future_ns_ > 0) {
    const int64_t now = now_();
    // Unsigned difference: exact for any two int64 with ts > now, where ts - now could
    // overflow int64 (a bar at INT64_MAX against a clock before 1970).
    const uint64_t ahead = static_cast<uint64_t>(bar.ts_ns) - static_cast<uint64_t>(now);
    if (bar.ts_ns > now && ahead > static_cast<uint64_t>(max_future_ns_)) {
      return rejected(RejectReason::future, "ts " + format_timestamp(bar.ts_ns) + " is " +
                                                std::to_string(ahead / 1'000'000'000) +
                                                " s ahead of the clock (" + format_timestamp(now) +
                                                "), more than max_future_s " +
                                                std::to_string(max_future_ns_ / 1'000'000'000));
    }
  }
  SymbolStats& s = *by_index_.at(index);
  if (s.has_last && bar.ts_ns == s.last_ts_ns) {
    return rejected(RejectReason::duplicate,
                    "ts " + format_timestamp(bar.ts_ns) + " equals the last accepted bar's");
  }
  if (s.has_last && bar.ts_ns < s.last_ts_ns) {
    return rejected(RejectReason::out_of_order, "ts " + format_timestamp(bar.ts_ns) +
                                                    " is older than the last accepted " +
                                                    format_timestamp(s.last_ts_ns));
  }

  Verdict verdict;
  // seq 0 on either side means "no sequence number": nothing to compare. last_seq is the
  // last *accepted* bar's seq, whatever it was, so a publisher that stops numbering and
  // starts again is not compared across the unnumbered stretch.
  if (s.has_last && bar.seq != 0 && s.last_seq != 0 && bar.seq != s.last_seq + 1) {
    SeqGap gap;
    gap.expected = s.last_seq + 1;  // wraps to 0 after UINT64_MAX: then any seq is a gap
    gap.got = bar.seq;
    if (bar.seq > s.last_seq) {
      gap.missing = bar.seq - s.last_seq - 1;
    } else {
      // seq went backwards (or repeated) while ts moved forward: most likely the publisher
      // restarted its counter. The ts rule already guarantees the bar is new, so it is
      // accepted and counted as a gap of unknown size, and the series continues from it.
      gap.backwards = true;
    }
    ++stats_.gaps;
    ++s.gaps;
    stats_.missing_seqs += gap.missing;
    verdict.gap = gap;
  }
  s.has_last = true;
  s.last_ts_ns = bar.ts_ns;
  s.last_seq = bar.seq;
  ++s.accepted;
  ++stats_.accepted;
  return verdict;
}

RejectLogLimiter::Decision RejectLogLimiter::on_reject(Clock::time_point now) {
  // A new window opens on the first reject at or past the end of the last one; a clock
  // that steps backwards (only a fake one can) also opens one rather than stalling logs.
  if (!window_start_ || now - *window_start_ >= interval_ || now < *window_start_) {
    window_start_ = now;
    logged_in_window_ = 0;
  }
  if (logged_in_window_ < max_per_interval_) {
    ++logged_in_window_;
    Decision d{true, suppressed_};
    suppressed_ = 0;
    return d;
  }
  ++suppressed_;
  return {};
}

}  // namespace wfod::feeds
