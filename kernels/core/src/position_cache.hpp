// Positions p_t (SPEC §2) of the combos a backend was asked for lately. A walk asks for its
// winner's positions fold after fold (its OOS bars, its selection's DSR returns) on ever
// longer prefixes of one history: a combo asked for a third time gets a tracker over the bars
// it saw, which later requests extend by the new bars (PositionTracker::extend, identical to
// the cpu backend's positions) instead of recomputing from the anchor. The first two
// requests take the batch path: starting a tracker costs 1-2.5x a batch pass, and a walk's
// winners often change from fold to fold (a walk with selection asks for each winner twice
// per fold: DSR, then OOS), so a combo pays for its tracker only once it has come back.
// The cuda backend answers positions() through it; cpu and cpu_ref compute from the anchor
// every time.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod::detail {

class PositionCache {
 public:
  explicit PositionCache(size_t capacity = 4) : capacity_(capacity < 1 ? 1 : capacity) {}

  // Exactly batch.positions(h, spec, c) (= PositionTracker(spec, c).extend(h)): every bar of h.
  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& spec, const Combo& c,
                                Backend& batch) {
    const size_t n = h.size();
    // Every tracker saw a prefix of the bars remembered: bars edited in place, or another
    // history, and none of them may be used again.
    if (!matches_seen(h, std::min(n, seen_bars()))) clear();
    if (n > seen_bars()) remember(h, seen_bars(), n);
    Entry* entry = find(c, spec.fill);
    if (entry == nullptr) entry = &insert(c, spec.fill);
    entry->used = ++clock_;
    if (!entry->tracker && ++entry->asked <= kBatchRequests) return batch.positions(h, spec, c);
    if (!entry->tracker) entry->tracker.emplace(spec, c);
    PositionTracker& tracker = *entry->tracker;
    if (tracker.bars() <= n) return tracker.extend(h);
    return tracker.positions(0, n);
  }

  size_t size() const { return entries_.size(); }
  void clear() {
    entries_.clear();
    open_.clear();
    high_.clear();
    low_.clear();
    close_.clear();
  }

 private:
  // Requests of one combo answered by the batch path before it gets a tracker.
  static constexpr int kBatchRequests = 2;
  struct Entry {
    Combo combo;
    Fill fill;  // a stop's entry price is o_{t0+1} with next_open (SPEC §5b)
    std::optional<PositionTracker> tracker;  // from request kBatchRequests + 1 on
    int asked = 0;
    uint64_t used = 0;
  };

  // Positions depend on the combo's parameters (SPEC §5, the stops of §5b, a rule's program
  // and values of §5a), not on its grid or id; and, where stops act, on the fill (the trade's
  // entry price).
  static bool same_combo(const Combo& a, Fill fill_a, const Combo& b, Fill fill_b) {
    return a.family == b.family && a.fast == b.fast && a.slow == b.slow && a.ma == b.ma &&
           a.entry == b.entry && a.n == b.n && a.source == b.source && a.k == b.k &&
           a.style == b.style && a.lo == b.lo && a.hi == b.hi && a.side == b.side &&
           a.has_vol == b.has_vol && a.vol_short == b.vol_short && a.vol_long == b.vol_long &&
           a.vol_threshold == b.vol_threshold && a.stop_loss == b.stop_loss &&
           a.take_profit == b.take_profit && a.trailing_stop == b.trailing_stop &&
           (!a.stops_on() || fill_a == fill_b) && a.program == b.program &&
           a.rule_values == b.rule_values;
  }
  static bool same(const std::vector<double>& kept, std::span<const double> now, size_t n) {
    return n == 0 || std::memcmp(kept.data(), now.data(), n * sizeof(double)) == 0;
  }

  size_t seen_bars() const { return close_.size(); }
  bool matches_seen(const HistoryView& h, size_t n) const {
    return same(close_, h.close, n) && same(open_, h.open, n) && same(high_, h.high, n) &&
           same(low_, h.low, n);
  }
  void remember(const HistoryView& h, size_t from, size_t to) {
    const auto add = [from, to](std::vector<double>& kept, std::span<const double> now) {
      kept.insert(kept.end(), now.begin() + static_cast<std::ptrdiff_t>(from),
                  now.begin() + static_cast<std::ptrdiff_t>(to));
    };
    add(open_, h.open);
    add(high_, h.high);
    add(low_, h.low);
    add(close_, h.close);
  }

  Entry* find(const Combo& c, Fill fill) {
    for (Entry& e : entries_)
      if (same_combo(e.combo, e.fill, c, fill)) return &e;
    return nullptr;
  }
  // A new entry (no tracker yet), in the least recently used slot when all are taken.
  Entry& insert(const Combo& c, Fill fill) {
    if (entries_.size() == capacity_) {
      size_t oldest = 0;
      for (size_t i = 1; i < entries_.size(); ++i)
        if (entries_[i].used < entries_[oldest].used) oldest = i;
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(oldest));
    }
    entries_.push_back(Entry{c, fill, std::nullopt});
    return entries_.back();
  }

  size_t capacity_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
  std::vector<double> open_, high_, low_, close_;  // the bars the trackers saw, from the anchor
};

}  // namespace wfod::detail
