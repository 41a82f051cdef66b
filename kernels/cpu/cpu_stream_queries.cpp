// The CPU stream's queries (Stream::positions, returns, tracker, evaluate, block_summaries):
// every answer replays the combo's decisions from the state stored at the start of the ring
// chunk holding the first bar asked for (its stops' state with it), so none needs the history
// before horizon(). The window's Summaries come from the lane kernel over the very ranges the
// backend's evaluate and block_summaries use, entered with the very states (the backend finds
// them by scanning back from the anchor), so they are bit-identical.
#include <stdexcept>
#include <string>

#include "cpu_stream_impl.hpp"
#include "src/same_point.hpp"
#include "src/thread_count.hpp"
#include "src/tracker_seed.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"

namespace wfod::cpu {
using detail::same_point;

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
  return index_of_[combo.id];
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
  const size_t c = combo_index(combo);
  // At least the newest position, and the state its next decision starts from.
  const size_t end = bars_.end(), kept = std::max<size_t>(keep, 1);
  const size_t first = std::max(horizon(), end > kept ? end - kept : 0);
  ComboState state;
  const auto [s, p] = replay(c, first, end, &state);
  std::vector<int8_t> kept_positions(p.begin() + static_cast<ptrdiff_t>(first + 2 - s),
                                     p.begin() + static_cast<ptrdiff_t>(end + 2 - s));
  return TrackerSeed::make(spec_.strategy, combo, rows_, bars_, first, std::move(kept_positions),
                           state, keep);
}

WindowSpec CpuStream::current_window() const {
  const WindowSpec w{bars_.end(), spec_.window, spec_.warmup};
  check_window(w, bars_.end(), spec_.strategy);
  return w;
}

std::vector<Metrics> CpuStream::evaluate(std::span<const uint64_t> ids) const {
  const WindowSpec w = current_window();
  const LaneGroups g = group_ids(spec_.strategy.grid, ids);
  // The backend's split in time (it depends on the groups and threads): each chunk's
  // Summary from the kernel, joined left to right as run_groups joins them.
  const size_t chunks = time_chunks(g.groups.size(), threads_, w.bars);
  const size_t head = w.first() / chunk_, replay_from = std::max<size_t>(head * chunk_, 1);
  const BarTables tables = bars_.tables(spec_.strategy.costs.per_unit());
  std::vector<Metrics> out(ids.size());
  parallel_for(g.groups.size(), threads_, [&](int, size_t gi) {
    const Group& grp = g.groups[gi];
    size_t index[kLanes];
    LaneInput in[kLanes];
    LaneState state[kLanes];
    StopState stops[kLanes];
    for (int j = 0; j < grp.lanes; ++j) {
      index[j] = index_of_[grp.ids[j]];
      in[j] = inputs_[index[j]];
      const ComboState st = chunk_state(index[j], head);
      state[j] = {st.p2, st.p1};
      stops[j] = st.stop;
    }
    Summary joined[kLanes], part[kLanes];
    for (size_t ci = 0; ci < chunks; ++ci) {
      const size_t lo = w.first() + w.bars * ci / chunks;
      const size_t hi = w.first() + w.bars * (ci + 1) / chunks;
      const LaneRange range{ci == 0 ? replay_from : lo, lo, hi, state, state, stops, stops};
      run_lanes(grp.kind, grp.stops, tables, rows_.matrix(), in, grp.lanes, range, part);
      for (int j = 0; j < grp.lanes; ++j) joined[j] = combine(joined[j], part[j]);
    }
    for (int j = 0; j < grp.lanes; ++j) {
      const Metrics m = joined[j].nonpositive ? sequential(index[j], w.first(), w.end)
                                              : finalize(joined[j], spec_.strategy.bars_per_year);
      out[g.slot_of[g.group_base[gi] + static_cast<size_t>(j)]] = m;
    }
  });
  return out;
}

std::vector<Summary> CpuStream::block_summaries(std::span<const size_t> cuts) const {
  const WindowSpec w = current_window();
  selection::check_cuts(w, cuts);
  const size_t blocks = cuts.size() + 1;
  std::vector<Summary> out(spec_.strategy.grid.size() * blocks);
  auto edge = [&](size_t b) { return b == 0 ? w.first() : b == blocks ? w.end : cuts[b - 1]; };
  const size_t head = w.first() / chunk_, replay_from = std::max<size_t>(head * chunk_, 1);
  const BarTables tables = bars_.tables(spec_.strategy.costs.per_unit());
  parallel_for(groups_.size(), threads_, [&](int, size_t g) {
    const Group& grp = groups_[g];
    const size_t base = g * kLanes;
    LaneStarts s = group_chunk_start(g, head);  // carried from block to block
    Summary part[kLanes];
    for (size_t b = 0; b < blocks; ++b) {
      const size_t lo = edge(b), hi = edge(b + 1);
      const LaneRange range{b == 0 ? replay_from : lo, lo, hi, s.state, s.state, s.stops, s.stops};
      run_lanes(grp.kind, grp.stops, tables, rows_.matrix(), &inputs_[base], grp.lanes, range,
                part);
      for (int j = 0; j < grp.lanes; ++j) out[grp.ids[j] * blocks + b] = part[j];
    }
  });
  return out;
}

}  // namespace wfod::cpu
