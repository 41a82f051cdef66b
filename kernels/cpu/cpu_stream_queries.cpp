// The CPU stream's bar queries (Stream::positions, returns, tracker): every answer replays
// the combo's decisions from the state stored at the start of the ring chunk holding the
// first bar asked for, so none needs the history before the stream's horizon().
#include <stdexcept>
#include <string>

#include "cpu/cpu_stream_impl.hpp"
#include "cpu/tracker_seed.hpp"
#include "wfod/segments.hpp"

namespace wfod::cpu {
namespace {

bool same_point(const Combo& a, const Combo& b) {
  return a.family == b.family && a.fast == b.fast && a.slow == b.slow && a.ma == b.ma &&
         a.entry == b.entry && a.n == b.n && a.source == b.source && a.side == b.side &&
         a.has_vol == b.has_vol && a.vol_short == b.vol_short && a.vol_long == b.vol_long &&
         a.vol_threshold == b.vol_threshold;
}

}  // namespace

size_t CpuStream::combo_index(const Combo& combo) const {
  const Grid& grid = spec_.strategy.grid;
  const std::string id = "combo id " + std::to_string(combo.id);
  if (combo.id >= grid.size())
    throw std::invalid_argument(id + " is outside the stream's grid of " +
                                std::to_string(grid.size()) + " combos");
  const Combo point = grid.decode(combo.id);
  if (!same_point(point, combo))
    throw std::invalid_argument(id + " does not have the parameters of the stream's grid point");
  if (!point.valid()) throw std::invalid_argument(id + " is invalid (SPEC §5)");
  for (size_t g = 0; g < groups_.size(); ++g)
    for (int j = 0; j < groups_[g].lanes; ++j)
      if (groups_[g].ids[j] == combo.id) return g * kLanes + static_cast<size_t>(j);
  throw std::logic_error(id + " is valid but in no lane group");
}

void CpuStream::check_range(size_t first, size_t end, size_t oldest) const {
  if (first < oldest || first > end || end > bars_.end())
    throw std::invalid_argument("bars [" + std::to_string(first) + ", " + std::to_string(end) +
                                ") are not within what this stream can replay, [" +
                                std::to_string(oldest) + ", " + std::to_string(bars_.end()) +
                                ") (its horizon is " + std::to_string(horizon()) + ")");
}

std::vector<int8_t> CpuStream::positions(const Combo& combo, size_t first, size_t end) const {
  const size_t c = combo_index(combo);
  check_range(first, end, horizon());
  if (first == end) return {};
  const auto [s, p] = replay(c, first, end);
  return {p.begin() + static_cast<ptrdiff_t>(first + 2 - s),
          p.begin() + static_cast<ptrdiff_t>(end + 2 - s)};
}

std::vector<double> CpuStream::returns(const Combo& combo, size_t first, size_t end) const {
  const size_t c = combo_index(combo);
  check_range(first, end, std::max<size_t>(horizon(), 1));
  if (first == end) return {};
  const auto [s, p] = replay(c, first, end - 1);  // p_{t-2} and p_{t-1} for t < end
  const HistoryView v = bars_.view();
  const size_t vb = bars_.kept_from();
  const double cost = spec_.strategy.costs.per_unit();
  std::vector<double> out;
  out.reserve(end - first);
  for (size_t t = first; t < end; ++t) {
    const BarSegments b =
        bar_segments(v, spec_.strategy.fill, cost, t - vb, p[t - s], p[t - s + 1]);
    out.push_back(b.exit_value + b.body_value);
  }
  return out;
}

PositionTracker CpuStream::tracker(const Combo& combo, size_t keep) const {
  combo_index(combo);  // validates
  // At least the newest position: the tracker's next decision starts from it.
  const size_t end = bars_.end(), kept = std::max<size_t>(keep, 1);
  const size_t first = std::max(horizon(), end > kept ? end - kept : 0);
  return TrackerSeed::make(spec_.strategy, combo, rows_, bars_, first, positions(combo, first, end),
                           keep);
}

}  // namespace wfod::cpu
