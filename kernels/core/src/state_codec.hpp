// Checkpoints of the incremental indicator states (indicator_state.hpp, sliding.hpp): the
// values that change as bars arrive, written and read back exactly. What a state is (its
// period, side, derived constants) comes from the grid, never from the bytes; what the
// bytes say is validated wherever a wrong value could make a later step read outside the
// series (bar counters, Donchian indices, the HMA inner tail, re-anchor counters), so a
// corrupted blob is refused rather than followed. `bars`: the bars the state has seen.
#pragma once

#include <deque>
#include <string>

#include "blob_io.hpp"
#include "indicator_state.hpp"

namespace wfod::detail {

struct StateCodec {
  // --- sums and sliding windows ---
  static void save(BlobWriter& w, const CompensatedSum& s) {
    w.put(s.sum);
    w.put(s.comp);
  }
  static void load(BlobReader& r, CompensatedSum& s) {
    s.sum = r.get<double>("compensated sum");
    s.comp = r.get<double>("compensated sum");
  }
  static void save(BlobWriter& w, const SlidingMean& s) {
    save(w, s.sum_);
    save(w, s.pre_);
    w.put(s.prepared_for_);
  }
  static void load(BlobReader& r, SlidingMean& s) {
    load(r, s.sum_);
    load(r, s.pre_);
    s.prepared_for_ = r.get<long long>("sliding mean");
  }
  static void save(BlobWriter& w, const SlidingStd& s) {
    save(w, s.sy_);
    save(w, s.syy_);
    w.put(s.shift_);
    w.put(s.since_anchor_);
  }
  static void load(BlobReader& r, SlidingStd& s) {
    load(r, s.sy_);
    load(r, s.syy_);
    s.shift_ = r.get<double>("sliding std shift");
    s.since_anchor_ = r.get<long long>("sliding std re-anchor counter");
    if (s.since_anchor_ < 0 || s.since_anchor_ > kSlidingReanchorBars)
      r.fail("sliding std re-anchor counter " + std::to_string(s.since_anchor_) +
             " is outside [0, " + std::to_string(kSlidingReanchorBars) + "]");
  }

  // --- the states ---
  template <typename Window>  // SmaState, StdState
  static void save(BlobWriter& w, const SlidingState<Window>& s) {
    w.put(s.t_);
    save(w, s.window_);
  }
  template <typename Window>
  static void load(BlobReader& r, SlidingState<Window>& s, size_t bars) {
    s.t_ = counter(r, bars, SlidingState<Window>::kName);
    load(r, s.window_);
  }
  static void save(BlobWriter& w, const EmaState& s) {
    w.put(s.t_);
    save(w, s.seed_);
    w.put(s.ema_.hi_);
    w.put(s.ema_.lo_);
  }
  static void load(BlobReader& r, EmaState& s, size_t bars) {
    s.t_ = counter(r, bars, "EMA");
    load(r, s.seed_);
    s.ema_.hi_ = r.get<double>("EMA value");
    s.ema_.lo_ = r.get<double>("EMA value");
  }
  static void save(BlobWriter& w, const WmaState& s) {
    w.put(s.t_);
    save(w, s.weighted_);
    save(w, s.plain_);
    save(w, s.pre_weighted_);
    save(w, s.pre_plain_);
    w.put(s.prepared_for_);
  }
  static void load(BlobReader& r, WmaState& s, size_t bars) {
    s.t_ = counter(r, bars, "WMA");
    load(r, s.weighted_);
    load(r, s.plain_);
    load(r, s.pre_weighted_);
    load(r, s.pre_plain_);
    s.prepared_for_ = r.get<long long>("WMA");
  }
  // The inner series' last root + 1 values (all its WMA reads); older ones are not written.
  static void save(BlobWriter& w, const HmaState& s) {
    w.put(s.t_);
    save(w, s.half_);
    save(w, s.full_);
    save(w, s.root_);
    const size_t count = s.diff_base_ + s.diff_.size(), keep = inner_keep(s, count);
    w.put(static_cast<uint64_t>(keep));
    w.put_array(std::span<const double>(s.diff_.data() + (s.diff_.size() - keep), keep));
  }
  static void load(BlobReader& r, HmaState& s, size_t bars) {
    s.t_ = counter(r, bars, "HMA");
    // Undefined HMAs (HMA(1)) never run their inner averages.
    const size_t inner_bars = s.defined_ ? bars : 0;
    load(r, s.half_, inner_bars);
    load(r, s.full_, inner_bars);
    const size_t n = static_cast<size_t>(s.n_);
    const size_t count = s.defined_ && bars >= n ? bars - (n - 1) : 0;  // from bar n - 1 on
    load(r, s.root_, count);
    const uint64_t keep = r.get<uint64_t>("HMA inner tail length");
    if (keep != inner_keep(s, count))
      r.fail("HMA inner tail holds " + std::to_string(keep) + " values, expected " +
             std::to_string(inner_keep(s, count)));
    s.diff_ = r.get_array<double>(static_cast<size_t>(keep), "HMA inner tail");
    s.diff_base_ = count - static_cast<size_t>(keep);
  }
  static void save(BlobWriter& w, const ExtremeState& s) {
    w.put(static_cast<uint64_t>(s.t_));
    w.put(static_cast<uint64_t>(s.window_.size()));
    for (size_t i : s.window_) w.put(static_cast<uint64_t>(i));
  }
  // The deque must be what next() left: bars strictly increasing, the newest last, none
  // older than the previous n bars (next() reads the series at each of them).
  static void load(BlobReader& r, ExtremeState& s, size_t bars) {
    s.t_ = static_cast<size_t>(counter(r, bars, "Donchian"));
    const uint64_t size = r.get<uint64_t>("Donchian window size");
    if (size > s.n_ + 1 || (size == 0) != (bars == 0))
      r.fail("Donchian window holds " + std::to_string(size) + " bars after " +
             std::to_string(bars) + " bars (period " + std::to_string(s.n_) + ")");
    const size_t oldest = bars > s.n_ + 1 ? bars - 1 - s.n_ : 0;
    s.window_.clear();
    for (uint64_t k = 0; k < size; ++k) {
      const uint64_t i = r.get<uint64_t>("Donchian window bar");
      const bool last = k + 1 == size;
      if (i < oldest || i >= bars || (!s.window_.empty() && i <= s.window_.back()) ||
          (last && i != bars - 1))
        r.fail("Donchian window bar " + std::to_string(i) + " is out of order or range after " +
               std::to_string(bars) + " bars (period " + std::to_string(s.n_) + ")");
      s.window_.push_back(static_cast<size_t>(i));
    }
  }
  static void save(BlobWriter& w, const RsiState& s) {
    w.put(s.t_);
    save(w, s.gains_);
    save(w, s.losses_);
    w.put(s.gain_.hi_);
    w.put(s.gain_.lo_);
    w.put(s.loss_.hi_);
    w.put(s.loss_.lo_);
  }
  static void load(BlobReader& r, RsiState& s, size_t bars) {
    s.t_ = counter(r, bars, "RSI");
    load(r, s.gains_);
    load(r, s.losses_);
    s.gain_.hi_ = r.get<double>("RSI average gain");
    s.gain_.lo_ = r.get<double>("RSI average gain");
    s.loss_.hi_ = r.get<double>("RSI average loss");
    s.loss_.lo_ = r.get<double>("RSI average loss");
  }
  static void save(BlobWriter& w, const VolState& s) {
    save(w, s.sd_);
    save(w, s.mean_);
  }
  static void load(BlobReader& r, VolState& s, size_t bars) {
    load(r, s.sd_, bars);
    load(r, s.mean_, bars);
  }

 private:
  static long long counter(BlobReader& r, size_t bars, const char* what) {
    const auto t = r.get<long long>(what);
    if (t < 0 || static_cast<unsigned long long>(t) != bars)
      r.fail(std::string(what) + " state has seen " + std::to_string(t) + " bars, the stream " +
             std::to_string(bars));
    return t;
  }
  static size_t inner_keep(const HmaState& s, size_t count) {
    const size_t keep = static_cast<size_t>(s.root_.period()) + 1;
    return count < keep ? count : keep;
  }
};

}  // namespace wfod::detail
