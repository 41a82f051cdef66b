// SymbolHistory: fixed blocks of bar columns, a new block when one is full holding only the
// bars still needed.
#include "wfod/daemon/store/symbol_history.hpp"

#include <algorithm>
#include <stdexcept>

namespace wfod::daemon {

namespace {
constexpr size_t kMinBlock = 4096;
}

HistoryBlock::HistoryBlock(size_t base, size_t capacity)
    : base_(base),
      capacity_(capacity),
      ts_ns_(new int64_t[capacity]),
      open_(new double[capacity]),
      high_(new double[capacity]),
      low_(new double[capacity]),
      close_(new double[capacity]),
      volume_(new double[capacity]) {}

HistoryView HistoryBlock::view(size_t from, size_t end) const {
  if (from < base_ || end < from || end - base_ > written())
    throw std::out_of_range("history view [" + std::to_string(from) + ", " + std::to_string(end) +
                            ") outside the bars held [" + std::to_string(base_) + ", " +
                            std::to_string(base_ + written()) + ")");
  const size_t i = from - base_, n = end - from;
  return {{ts_ns_.get() + i, n}, {open_.get() + i, n},  {high_.get() + i, n},
          {low_.get() + i, n},   {close_.get() + i, n}, {volume_.get() + i, n}};
}

Bar HistoryBlock::bar(size_t t) const {
  const size_t i = t - base_;
  return Bar{ts_ns_[i], open_[i], high_[i], low_[i], close_[i], volume_[i], 0};
}

void HistoryBlock::append(const Bar& b) {
  const size_t i = written_.load(std::memory_order_relaxed);
  ts_ns_[i] = b.ts_ns;
  open_[i] = b.open;
  high_[i] = b.high;
  low_[i] = b.low;
  close_[i] = b.close;
  volume_[i] = b.volume;
  // Release: a reader that sees the new count sees the bar's columns.
  written_.store(i + 1, std::memory_order_release);
}

void SymbolHistory::start_at(size_t base) {
  if (block_ && block_->written() > 0)
    throw std::logic_error("SymbolHistory::start_at on a history that holds bars");
  base_ = base;
  block_.reset();
}

void SymbolHistory::push_back(const Bar& b) {
  if (!block_ || block_->written() == block_->capacity()) grow();
  block_->append(b);
}

size_t SymbolHistory::keep_from() const {
  const size_t end = size();
  // The newest keep_ bars (all when keep_ is 0) and everything a reader still needs, but at
  // most limit_ bars, less every bar not yet in the log: the limit is applied here, against
  // the current end, because the needs are refreshed only when a job ends.
  size_t from = keep_ == 0 || end < keep_ ? base_ : end - keep_;
  from = std::min(from, needed_from_);
  if (limit_ > 0 && end > limit_) from = std::max(from, end - limit_);
  from = std::min(from, durable_);
  return std::max(base_, from);
}

void SymbolHistory::compact() {
  if (block_ && keep_from() > base_) grow();
}

void SymbolHistory::grow() {
  const size_t end = size();
  const size_t from = keep_from();
  const size_t kept = end - from;
  // Twice what is kept: each bar is copied O(1) times on average, whatever the keep.
  const size_t capacity = std::max(kMinBlock, 2 * std::max(kept, keep_));
  auto next = std::make_shared<HistoryBlock>(from, capacity);
  for (size_t t = from; t < end; ++t) next->append(block_->bar(t));
  block_ = std::move(next);
  base_ = from;
}

}  // namespace wfod::daemon
