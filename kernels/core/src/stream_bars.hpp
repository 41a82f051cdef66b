// The bars a bounded CPU stream keeps (cpu_stream.cpp): a tail of the history, addressed by
// absolute bar number from the anchor, with each bar's exit gap and body return (SPEC §2)
// computed once on arrival. Older bars are dropped in bulk once they outnumber the kept ones,
// so appends and releases cost O(1) amortised per bar.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "src/position_rules.hpp"
#include "wfod/bar.hpp"
#include "wfod/grid.hpp"

namespace wfod::detail {
class BlobWriter;
class BlobReader;
}  // namespace wfod::detail

namespace wfod::detail {

class StreamBars {
 public:
  explicit StreamBars(Fill fill) : fill_(fill) {}
  Fill fill() const { return fill_; }

  // Throws std::invalid_argument (naming the bar) unless every ts of `bars` increases
  // strictly from the last kept bar's (SPEC §1): appends are all or nothing.
  void check_order(std::span<const Bar> bars) const;
  // On an empty instance: the first bar appended will be bar `bar` (a handed-over tail).
  void start_at(size_t bar) { base_ = kept_from_ = bar; }
  // Appends bars [from, to) of `h` (in order: the caller's history, or another's view()).
  void append(const HistoryView& h, size_t from, size_t to);
  void append(std::span<const Bar> bars);  // after check_order

  // Room for `bars` bars in every column from now on (a stream reserves the most it holds
  // once, so its memory does not creep up with the size of its advances).
  void reserve(size_t bars);
  // Bars before `bar` will not be read again (the newest bar is always kept).
  void release_before(size_t bar);
  size_t kept_from() const { return kept_from_; }  // first bar readable
  size_t end() const { return base_ + close_.size(); }
  int64_t last_ts() const { return last_ts_; }

  // Bars [kept_from(), end()) as a view (index i is bar kept_from() + i).
  HistoryView view() const;
  // The lane kernel's columns, bar t at index t - base (the opens with fill next_open: a
  // trade's entry price for its stops).
  BarTables tables(double cost) const {
    return {gap_.data(), body_.data(), close_.data(),
            cost,        base_,        fill_ == Fill::next_open ? open_.data() : nullptr};
  }
  size_t footprint_bytes() const;

  // Checkpoints: the kept bars and their returns; load() fills an empty instance and checks
  // the bar range and the ts order (std::invalid_argument).
  void save(detail::BlobWriter& w) const;
  void load(detail::BlobReader& r, size_t bars, size_t kept_from);

 private:
  void push(int64_t ts, double open, double high, double low, double close);

  Fill fill_;
  size_t base_ = 0;       // bar at index 0 of the columns
  size_t kept_from_ = 0;  // >= base_: bars before it may be dropped at any time
  int64_t last_ts_ = INT64_MIN;
  std::vector<int64_t> ts_;
  std::vector<double> open_, high_, low_, close_, gap_, body_;
};

}  // namespace wfod::detail
