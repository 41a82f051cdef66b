// The positions a PositionTracker still answers for: p_t of bars [first, first + size), the
// older ones dropped in bulk once more than keep() are held (O(1) amortised per bar), so a
// tracker's memory does not grow with the bars it has followed. Shared by the built-in
// families' tracker and the rules tracker (position_tracker.cpp, rules_tracker.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wfod::detail {

struct KeptPositions {
  static constexpr size_t kKeepAll = static_cast<size_t>(-1);

  std::vector<int8_t> p;  // p_t for t in [first, first + p.size())
  size_t first = 0;
  size_t keep = kKeepAll;
  bool dropped = false;  // some position before `first` was known and dropped

  size_t end() const { return first + p.size(); }

  void set_keep(size_t bars) {
    keep = std::max<size_t>(bars, 1);  // the newest position is the next one's start
    trim();
  }

  void trim() {
    if (keep == kKeepAll || p.size() <= keep) return;
    const size_t drop = p.size() - keep;
    if (drop < std::max<size_t>(keep, 1024)) return;  // in bulk: O(1) amortised per bar
    p.erase(p.begin(), p.begin() + static_cast<ptrdiff_t>(drop));
    first += drop;
    dropped = true;
  }

  // p_t for t in [from, to); std::out_of_range outside [first, end()).
  std::vector<int8_t> range(size_t from, size_t to) const {
    if (from < first || from > to || to > end())
      throw std::out_of_range("positions of bars [" + std::to_string(from) + ", " +
                              std::to_string(to) + ") outside the tracker's [" +
                              std::to_string(first) + ", " + std::to_string(end()) + ")");
    return {p.begin() + static_cast<ptrdiff_t>(from - first),
            p.begin() + static_cast<ptrdiff_t>(to - first)};
  }

  // Positions p_t of bars [from, from + p.size()), kept by `keep_bars` from then on: the
  // positions that bars before `from` had are taken as dropped (a fork's, a restored
  // tracker's).
  static KeptPositions starting_at(size_t from, std::vector<int8_t> positions, size_t keep_bars) {
    KeptPositions k;
    k.first = from;
    k.p = std::move(positions);
    k.dropped = from > 0;
    k.set_keep(keep_bars);
    return k;
  }

  // The last min(keep, held) positions, kept by `keep` from then on (a fork's).
  KeptPositions fork(size_t keep_bars) const {
    const size_t kept = std::max<size_t>(keep_bars, 1);
    const size_t from = std::max(first, end() > kept ? end() - kept : 0);
    return starting_at(from, range(from, end()), keep_bars);
  }
};

}  // namespace wfod::detail
