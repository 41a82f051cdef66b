// BarsFromAnchor: a stream's own copy of every bar from the anchor, appended in time order
// (the re-sweeping stream keeps one; the cpu and cuda streams keep a bounded tail,
// StreamBars). Shared so that every Stream implementation accepts and rejects bars the same way.
#pragma once

#include <span>
#include <stdexcept>
#include <string>

#include "wfod/bar.hpp"

namespace wfod::detail {

class BarsFromAnchor {
 public:
  explicit BarsFromAnchor(const HistoryView& h) {
    series_.reserve(h.size());
    // Volumes too where the view has them: a rules strategy may read them (SPEC §5a).
    for (size_t t = 0; t < h.size(); ++t)
      series_.push_back(Bar{h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t],
                            h.volume.empty() ? 0.0 : h.volume[t], 0});
  }
  // Appends all of `bars` or none: ts must increase strictly from the last bar (SPEC §1).
  void append(std::span<const Bar> bars) {
    int64_t last = series_.size() ? series_.ts_ns.back() : INT64_MIN;
    for (size_t i = 0; i < bars.size(); ++i) {
      if (bars[i].ts_ns <= last)
        throw std::invalid_argument("stream bar " + std::to_string(i) + " has ts " +
                                    std::to_string(bars[i].ts_ns) +
                                    " not after the previous bar's " + std::to_string(last));
      last = bars[i].ts_ns;
    }
    // No reserve(size + n): it would reallocate exactly, copying the whole history on every
    // one-bar append; push_back grows geometrically.
    for (const Bar& b : bars) series_.push_back(b);
  }
  HistoryView view() const { return HistoryView::of(series_); }
  size_t size() const { return series_.size(); }
  size_t footprint_bytes() const { return series_.ts_ns.capacity() * 6 * 8; }

 private:
  Series series_;
};

}  // namespace wfod::detail
