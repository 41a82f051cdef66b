// StreamBars: ordered appends, the per-bar returns, and the bulk release of old bars.
#include "src/stream_bars.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "src/blob_io.hpp"

namespace wfod::detail {

void StreamBars::check_order(std::span<const Bar> bars) const {
  int64_t last = last_ts_;
  for (size_t i = 0; i < bars.size(); ++i) {
    if (bars[i].ts_ns <= last)
      throw std::invalid_argument("stream bar " + std::to_string(i) + " has ts " +
                                  std::to_string(bars[i].ts_ns) + " not after the previous bar's " +
                                  std::to_string(last));
    last = bars[i].ts_ns;
  }
}

void StreamBars::push(int64_t ts, double open, double high, double low, double close) {
  double gap = 0, body = 0;
  if (!close_.empty()) {  // bar 0 has no segments; the newest bar is never released
    const double prev = close_.back();
    const double x = fill_ == Fill::close ? prev : open;
    gap = (x - prev) / prev;
    body = (close - x) / prev;
  }
  ts_.push_back(ts);
  open_.push_back(open);
  high_.push_back(high);
  low_.push_back(low);
  close_.push_back(close);
  gap_.push_back(gap);
  body_.push_back(body);
  last_ts_ = ts;
}

void StreamBars::append(const HistoryView& h, size_t from, size_t to) {
  for (size_t t = from; t < to; ++t) push(h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t]);
}

void StreamBars::append(std::span<const Bar> bars) {
  for (const Bar& b : bars) push(b.ts_ns, b.open, b.high, b.low, b.close);
}

void StreamBars::reserve(size_t bars) {
  for (auto* v : {&open_, &high_, &low_, &close_, &gap_, &body_}) v->reserve(bars);
  ts_.reserve(bars);
}

void StreamBars::release_before(size_t bar) {
  const size_t n = end();
  if (n == 0) return;
  kept_from_ = std::max(kept_from_, std::min(bar, n - 1));
  const size_t dead = kept_from_ - base_, live = n - kept_from_;
  if (dead < std::max<size_t>(live, 1024)) return;  // drop in bulk: O(1) amortised per bar
  auto drop = [dead](auto& v) { v.erase(v.begin(), v.begin() + static_cast<ptrdiff_t>(dead)); };
  drop(ts_);
  drop(open_);
  drop(high_);
  drop(low_);
  drop(close_);
  drop(gap_);
  drop(body_);
  base_ = kept_from_;
}

HistoryView StreamBars::view() const {
  const size_t skip = kept_from_ - base_, n = close_.size() - skip;
  return {{ts_.data() + skip, n},
          {open_.data() + skip, n},
          {high_.data() + skip, n},
          {low_.data() + skip, n},
          {close_.data() + skip, n},
          {}};  // no volumes: no incremental stream runs rules (SPEC §5a), their one reader
}

size_t StreamBars::footprint_bytes() const {
  return ts_.capacity() * sizeof(int64_t) +
         (open_.capacity() + high_.capacity() + low_.capacity() + close_.capacity() +
          gap_.capacity() + body_.capacity()) *
             sizeof(double);
}

void StreamBars::save(detail::BlobWriter& w) const {
  const size_t skip = kept_from_ - base_, n = close_.size() - skip;
  w.put(static_cast<uint64_t>(kept_from_));
  w.put(static_cast<uint64_t>(n));
  w.put_array(std::span<const int64_t>(ts_).subspan(skip));
  for (const auto* col : {&open_, &high_, &low_, &close_, &gap_, &body_})
    w.put_array(std::span<const double>(*col).subspan(skip));
}

void StreamBars::load(detail::BlobReader& r, size_t bars, size_t kept_from) {
  const uint64_t from = r.get<uint64_t>("bar tail start");
  const uint64_t n = r.get<uint64_t>("bar tail length");
  if (from != kept_from || n != bars - kept_from)
    r.fail("bar tail holds bars [" + std::to_string(from) + ", " + std::to_string(from + n) +
           "), expected [" + std::to_string(kept_from) + ", " + std::to_string(bars) + ")");
  ts_ = r.get_array<int64_t>(static_cast<size_t>(n), "bar ts");
  for (size_t i = 1; i < ts_.size(); ++i)
    if (ts_[i] <= ts_[i - 1])
      r.fail("bar ts " + std::to_string(ts_[i]) + " at bar " + std::to_string(kept_from + i) +
             " is not after the previous bar's " + std::to_string(ts_[i - 1]));
  for (auto* col : {&open_, &high_, &low_, &close_, &gap_, &body_})
    *col = r.get_array<double>(static_cast<size_t>(n), "bar values");
  base_ = kept_from_ = kept_from;
  last_ts_ = ts_.empty() ? INT64_MIN : ts_.back();
}

}  // namespace wfod::detail
