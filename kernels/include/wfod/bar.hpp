// Bars and read-only views of a symbol's history (SPEC §1).
// The engine reads columns (struct of arrays), so a history is a set of spans.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace wfod {

struct Bar {
  int64_t ts_ns = 0;  // bar close time, ns since the Unix epoch, UTC
  double open = 0, high = 0, low = 0, close = 0, volume = 0;
  uint64_t seq = 0;  // publisher sequence, 0 = none
};

// Owning column store of one symbol's bars, in time order.
struct Series {
  std::vector<int64_t> ts_ns;
  std::vector<double> open, high, low, close, volume;

  size_t size() const { return close.size(); }
  void push_back(const Bar& b) {
    ts_ns.push_back(b.ts_ns);
    open.push_back(b.open);
    high.push_back(b.high);
    low.push_back(b.low);
    close.push_back(b.close);
    volume.push_back(b.volume);
  }
  void reserve(size_t n) {
    ts_ns.reserve(n);
    open.reserve(n);
    high.reserve(n);
    low.reserve(n);
    close.reserve(n);
    volume.reserve(n);
  }
};

// Non-owning view of bars 0..size()-1 from the anchor (SPEC §2).
struct HistoryView {
  std::span<const int64_t> ts_ns;
  std::span<const double> open, high, low, close;
  // One value a bar, or empty where the holder keeps no volumes: only a rules strategy that
  // reads `volume` (SPEC §5a) needs them, and refuses a view without them.
  std::span<const double> volume;

  size_t size() const { return close.size(); }
  static HistoryView of(const Series& s) {
    return {s.ts_ns, s.open, s.high, s.low, s.close, s.volume};
  }
  // The first n bars: what the engine would have seen when bar n-1 closed.
  HistoryView prefix(size_t n) const {
    return {ts_ns.first(n), open.first(n),  high.first(n),
            low.first(n),   close.first(n), volume.empty() ? volume : volume.first(n)};
  }
};

}  // namespace wfod
