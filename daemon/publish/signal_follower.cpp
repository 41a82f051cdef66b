// SignalFollower: which bars may be signalled (persisted, not held by a run in flight), the
// followed combo's tracker extended over them, and the PROTOCOL §2a payload.
#include "wfod/daemon/publish/signal_follower.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

namespace wfod::daemon {

void SignalFollower::hold(size_t end) { held_.insert(end); }

void SignalFollower::release(size_t end) {
  if (const auto it = held_.find(end); it != held_.end()) held_.erase(it);
}

void SignalFollower::adopt(PositionTracker tracker, uint64_t params_seq, size_t from) {
  from = std::max(from, next_);
  if (from < tracker.first_kept())
    throw std::invalid_argument("signals from bar " + std::to_string(from) +
                                ": the tracker keeps positions from bar " +
                                std::to_string(tracker.first_kept()));
  tracker_.emplace(std::move(tracker));
  params_seq_ = params_seq;
  next_ = from;
}

size_t SignalFollower::needs_from() const {
  return tracker_ ? std::min(next_, tracker_->bars()) : next_;
}

size_t SignalFollower::ready_end(size_t durable) const {
  size_t end = durable;
  // A run over [0, e) publishes at bar e - 1: that bar's signal follows its outcome.
  if (!held_.empty() && *held_.begin() >= 1) end = std::min(end, *held_.begin() - 1);
  return std::max(end, next_);
}

std::vector<Signal> SignalFollower::take(std::span<const Bar> bars) {
  if (!tracker_) throw std::logic_error("SignalFollower::take while not following a combo");
  const size_t first = needs_from(), end = first + bars.size();
  // The tracker keeps its last keep() positions (a few); a batch longer than that (a burst,
  // or bars that waited on a long run) would drop the first ones it is to signal while it
  // is extended. It keeps every position from next() on for this call, then trims again.
  const size_t keep = tracker_->keep();
  if (end > next_ && end - next_ > keep) tracker_->set_keep(end - next_);
  std::vector<int8_t> p;
  try {
    if (end > tracker_->bars()) tracker_->append(bars.subspan(tracker_->bars() - first));
    if (end > next_) p = tracker_->positions(next_, end);
  } catch (...) {
    tracker_->set_keep(keep);
    throw;
  }
  tracker_->set_keep(keep);
  std::vector<Signal> out;
  if (end <= next_) return out;
  out.reserve(end - next_);
  for (size_t t = next_; t < end; ++t) out.push_back({t, bars[t - first].ts_ns, p[t - next_]});
  next_ = end;
  return out;
}

std::string signal_payload(std::string_view symbol, std::string_view strategy, const Signal& s,
                           uint64_t combo_id, uint64_t params_seq) {
  std::string out;
  out.reserve(128 + symbol.size() + strategy.size());
  auto integer = [&out](auto v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  };
  out += R"({"schema":1,"symbol":")";
  out += symbol;
  out += R"(","strategy":")";
  out += strategy;
  out += R"(","ts":)";
  integer(s.ts_ns);
  out += R"(,"position":)";
  integer(static_cast<int>(s.position));
  out += R"(,"id":)";
  integer(combo_id);
  out += R"(,"params_seq":)";
  integer(params_seq);
  out += '}';
  return out;
}

}  // namespace wfod::daemon
