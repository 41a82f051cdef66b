// One symbol's bars in memory: the newest part of its history from the anchor, appended by
// the loop thread and read by jobs on the worker thread, held once per symbol however many
// strategies run on it. Memory is bounded by what the readers need (set_keep,
// set_needed_from), not by uptime: the full history stays in the bar log on disk.
//
// Bars live in blocks of fixed capacity whose addresses never move. A reader takes a
// snapshot (a shared block plus the bar count it was told about) and reads only bars below
// that count, which the loop wrote before handing the snapshot over; the loop only ever
// writes past every count it has published, so readers and the writer never touch the same
// bar. When a block is full the loop starts a new one holding the bars still needed; blocks
// that in-flight jobs hold stay alive until their snapshots are released.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "wfod/bar.hpp"

namespace wfod::daemon {

// Fixed-capacity columns holding bars [base, base + written) of a symbol (absolute indices
// from the anchor).
class HistoryBlock {
 public:
  HistoryBlock(size_t base, size_t capacity);
  size_t base() const { return base_; }
  size_t capacity() const { return capacity_; }
  // Bars written so far (loop thread); readers use the end they were handed instead.
  size_t written() const { return written_.load(std::memory_order_acquire); }
  // Bars [from, end) as a view, absolute indices; base() <= from <= end <= written().
  HistoryView view(size_t from, size_t end) const;
  Bar bar(size_t t) const;  // absolute index, base() <= t < written()
  size_t footprint_bytes() const { return capacity_ * 6 * 8; }

 private:
  friend class SymbolHistory;
  void append(const Bar& b);  // written() < capacity()

  size_t base_ = 0, capacity_ = 0;
  std::unique_ptr<int64_t[]> ts_ns_;
  std::unique_ptr<double[]> open_, high_, low_, close_, volume_;
  std::atomic<size_t> written_{0};
};

// Bars [from, end) of one block, kept alive while the reader holds it.
struct HistorySnapshot {
  std::shared_ptr<const HistoryBlock> block;
  size_t end = 0;  // absolute: bars from the anchor this reader may see
  size_t from() const { return block ? block->base() : 0; }
  HistoryView view() const { return block ? block->view(block->base(), end) : HistoryView{}; }
  HistoryView view(size_t first) const { return block->view(first, end); }
};

class SymbolHistory {
 public:
  // Keeps everything until set_keep says otherwise.
  SymbolHistory() = default;

  // The newest `bars` bars are always kept (0: keep everything).
  void set_keep(size_t bars) { keep_ = bars; }
  size_t keep() const { return keep_; }
  // Readers still need bars from this absolute index on (e.g. a stream that has not taken
  // them yet); kept even when older than the newest keep() bars.
  void set_needed_from(size_t t) { needed_from_ = t; }
  // Holds at most this many bars whatever readers need (0: no limit): a reader that lags
  // further reads the older bars from the bar log. Bars not durable are kept regardless.
  void set_limit(size_t bars) { limit_ = bars; }
  // Bars [0, t) are in the bar log; newer ones are never dropped (default: all of them).
  void set_durable(size_t t) { durable_ = t; }

  // Appends one bar (loop thread). The caller has checked its order (SPEC §1).
  void push_back(const Bar& b);
  // Bars from the anchor, and the oldest one still in memory.
  size_t size() const { return base_ + (block_ ? block_->written() : 0); }
  size_t base() const { return base_; }
  // The newest bar's ts; size() > 0.
  int64_t last_ts() const { return block_->bar(size() - 1).ts_ns; }
  Bar bar(size_t t) const { return block_->bar(t); }  // base() <= t < size()

  // The bars as of now, for a reader on another thread.
  HistorySnapshot snapshot() const { return {block_, size()}; }
  // Bytes held by the current block (older blocks live only while snapshots hold them).
  size_t footprint_bytes() const { return block_ ? block_->footprint_bytes() : 0; }

  // Drops now what a block turnover would drop (after the needs fell a lot, e.g. once the
  // streams are open at start-up); O(bars kept).
  void compact();

  // Continues an existing history whose first `base` bars are not in memory (a restart
  // that loaded only the newest bars of the log).
  void start_at(size_t base);

 private:
  void grow();
  size_t keep_from() const;  // the oldest bar to keep

  std::shared_ptr<HistoryBlock> block_;
  size_t base_ = 0;
  size_t keep_ = 0;
  size_t needed_from_ = 0;
  size_t limit_ = 0;
  size_t durable_ = SIZE_MAX;
};

}  // namespace wfod::daemon
