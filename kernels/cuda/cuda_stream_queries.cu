// The CUDA stream's queries (Stream::positions, returns, tracker, evaluate, block_summaries),
// answered on the host without the history before horizon(): a combo's start state entering
// a ring chunk comes from the device (chunk_start_, two bytes a combo), and its decisions are
// replayed from there over the host's bar tail and indicator values by the core's
// replay_positions (the code the cpu stream and the trackers run). Positions are integers from
// the very indicator values the device read, so they equal the device's and cpu_ref's; returns
// are bar_segments of them, as every backend computes them. evaluate folds summarize_bar left
// to right over the window as cpu_ref does (SPEC §6, §9: equal to the cuda backend's device
// sums up to rounding, counts exactly); a window whose equity reaches zero takes the literal
// drawdown (SequentialMetrics), as the run's fallback does. block_summaries, asked for every
// combo, runs on the device instead (the run's own replay over the ring, launch_stream_blocks).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda_stream_impl.cuh"
#include "device_memory.cuh"
#include "src/lane_setup.hpp"
#include "src/same_point.hpp"
#include "src/thread_count.hpp"
#include "src/tracker_seed.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"

namespace wfod::cuda {

uint64_t CudaStream::combo_id(const Combo& combo) const {
  const Grid& grid = spec_.strategy.grid;
  const std::string id = "combo id " + std::to_string(combo.id);
  if (combo.id >= grid.size())
    throw std::invalid_argument(id + " is outside the stream's grid of " +
                                std::to_string(grid.size()) + " combos");
  const Combo point = grid.decode(combo.id);
  if (!detail::same_point(point, combo))
    throw std::invalid_argument(id + " does not have the parameters of the stream's grid point");
  if (!point.valid()) throw std::invalid_argument(id + " is invalid (SPEC §5)");
  return combo.id;
}

void CudaStream::check_range(size_t first, size_t end, size_t oldest) const {
  if (first < oldest || first > end || end > bars_.end())
    throw std::invalid_argument("bars [" + std::to_string(first) + ", " + std::to_string(end) +
                                ") are not within what this stream can replay, [" +
                                std::to_string(oldest) + ", " + std::to_string(bars_.end()) +
                                ") (its horizon is " + std::to_string(horizon()) + ")");
}

WindowSpec CudaStream::current_window() const {
  const WindowSpec w{bars_.end(), spec_.window, spec_.warmup};
  check_window(w, bars_.end(), spec_.strategy);
  return w;
}

// Every advance ends synchronised with the work stream; the copies go through it anyway.
std::vector<PositionState> CudaStream::chunk_states(size_t chunk) const {
  std::vector<PositionState> out(n_);
  const size_t slot = chunk % static_cast<size_t>(ring_slots_);
  WFOD_CUDA_CHECK(cudaMemcpyAsync(out.data(), chunk_start_.data() + slot * n_,
                                  n_ * sizeof(PositionState), cudaMemcpyDeviceToHost,
                                  stream_.get()));
  WFOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  return out;
}

PositionState CudaStream::chunk_state(uint64_t id, size_t chunk) const {
  PositionState out;
  const size_t slot = chunk % static_cast<size_t>(ring_slots_);
  WFOD_CUDA_CHECK(cudaMemcpyAsync(&out, chunk_start_.data() + slot * n_ + id, sizeof(PositionState),
                                  cudaMemcpyDeviceToHost, stream_.get()));
  WFOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  return out;
}

std::vector<int8_t> CudaStream::replay(const Combo& combo, size_t chunk, PositionState start,
                                       size_t end, detail::ComboState* end_state) const {
  const size_t s = chunk * chunk_;
  detail::ComboState state;
  state.p2 = start.p2;
  state.p1 = start.p1;
  std::vector<int8_t> p{state.p2, state.p1};
  p.reserve(std::max(end, s) - s + 2);
  detail::replay_positions(detail::lane_input(rows_, combo), detail::kind_of(combo), rows_.matrix(),
                           bars_.tables(0), s, std::max(end, s), state, p);
  if (end_state) *end_state = state;
  return p;
}

std::pair<size_t, std::vector<int8_t>> CudaStream::replay_from_ring(
    const Combo& combo, size_t first, size_t end, detail::ComboState* end_state) const {
  const size_t chunk = first / chunk_;
  return {chunk * chunk_, replay(combo, chunk, chunk_state(combo.id, chunk), end, end_state)};
}

std::vector<double> CudaStream::segment_values(std::span<const int8_t> p, size_t s, size_t first,
                                               size_t end) const {
  const HistoryView v = bars_.view();
  const size_t kb = bars_.kept_from();
  const double cost = spec_.strategy.costs.per_unit();
  std::vector<double> out;
  out.reserve(end - first);
  for (size_t t = first; t < end; ++t) {
    const BarSegments b =
        bar_segments(v, spec_.strategy.fill, cost, t - kb, p[t - s], p[t - s + 1]);
    out.push_back(b.exit_value + b.body_value);
  }
  return out;
}

Metrics CudaStream::sequential(std::span<const int8_t> p, size_t s, size_t first,
                               size_t end) const {
  const HistoryView v = bars_.view();
  const size_t kb = bars_.kept_from();
  const double cost = spec_.strategy.costs.per_unit();
  SequentialMetrics m;
  for (size_t t = first; t < end; ++t)
    m.add(bar_segments(v, spec_.strategy.fill, cost, t - kb, p[t - s], p[t - s + 1]));
  return m.finish(spec_.strategy.bars_per_year);
}

Metrics CudaStream::window_metrics(std::span<const int8_t> p, size_t s, size_t first,
                                   size_t end) const {
  const HistoryView v = bars_.view();
  const size_t kb = bars_.kept_from();
  const double cost = spec_.strategy.costs.per_unit();
  SummaryBuilder sum;
  for (size_t t = first; t < end; ++t)
    sum.add(bar_segments(v, spec_.strategy.fill, cost, t - kb, p[t - s], p[t - s + 1]));
  return sum.summary().nonpositive ? sequential(p, s, first, end)
                                   : finalize(sum.summary(), spec_.strategy.bars_per_year);
}

std::vector<int8_t> CudaStream::positions(const Combo& combo, size_t first, size_t end) const {
  combo_id(combo);
  check_range(first, end, horizon());
  if (first == end) return {};
  const auto [s, p] = replay_from_ring(combo, first, end);
  return {p.begin() + static_cast<ptrdiff_t>(first + 2 - s),
          p.begin() + static_cast<ptrdiff_t>(end + 2 - s)};
}

std::vector<double> CudaStream::returns(const Combo& combo, size_t first, size_t end) const {
  combo_id(combo);
  check_range(first, end, std::max<size_t>(horizon(), 1));
  if (first == end) return {};
  const auto [s, p] = replay_from_ring(combo, first, end - 1);  // p_{t-2}, p_{t-1} for t < end
  return segment_values(p, s, first, end);
}

PositionTracker CudaStream::tracker(const Combo& combo, size_t keep) const {
  combo_id(combo);
  // At least the newest position, and the state its next decision starts from.
  const size_t end = bars_.end(), kept = std::max<size_t>(keep, 1);
  const size_t first = std::max(horizon(), end > kept ? end - kept : 0);
  detail::ComboState state;
  const auto [s, p] = replay_from_ring(combo, first, end, &state);
  std::vector<int8_t> kept_positions(p.begin() + static_cast<ptrdiff_t>(first + 2 - s),
                                     p.begin() + static_cast<ptrdiff_t>(end + 2 - s));
  return detail::TrackerSeed::make(spec_.strategy, combo, rows_, bars_, first,
                                   std::move(kept_positions), state, keep);
}

std::vector<Metrics> CudaStream::evaluate(std::span<const uint64_t> ids) const {
  const WindowSpec w = current_window();
  const Grid& grid = spec_.strategy.grid;
  std::vector<Combo> combos;
  combos.reserve(ids.size());
  for (uint64_t id : ids) {
    if (id >= grid.size())
      throw std::invalid_argument("combo id " + std::to_string(id) +
                                  " is outside the stream's grid of " +
                                  std::to_string(grid.size()) + " combos");
    combos.push_back(grid.decode(id));
    if (!combos.back().valid())
      throw std::invalid_argument("combo id " + std::to_string(id) + " is invalid (SPEC §5)");
  }
  const size_t head = w.first() / chunk_, s = head * chunk_;
  const std::vector<PositionState> starts = chunk_states(head);
  std::vector<Metrics> out(ids.size());
  detail::parallel_for(ids.size(), threads_, [&](int, size_t i) {
    const std::vector<int8_t> p = replay(combos[i], head, starts[ids[i]], w.end - 1);
    out[i] = window_metrics(p, s, w.first(), w.end);
  });
  return out;
}

// On the device: robust selection asks for every combo's blocks after every run, which the
// host could only answer by replaying every combo over the window (O(combos x W) on the
// host's cores). The device replays each combo from the state entering the window's head
// chunk over the ring, as a run does (the same run_from), in slices of ids whose Summaries the
// device stages as the other block passes do (staged_summary_chunk), one launch per kind.
std::vector<Summary> CudaStream::block_summaries(std::span<const size_t> cuts) const {
  const WindowSpec w = current_window();
  selection::check_cuts(w, cuts);
  const size_t blocks = cuts.size() + 1;
  std::vector<Summary> out(n_ * blocks);
  if (n_ == 0) return out;
  std::vector<long long> edges;
  edges.reserve(blocks + 1);
  edges.push_back(static_cast<long long>(w.first()));
  for (size_t c : cuts) edges.push_back(static_cast<long long>(c));
  edges.push_back(static_cast<long long>(w.end));
  DeviceBuffer<long long> d_edges(edges.size());
  cudaStream_t s = stream_.get();
  WFOD_CUDA_CHECK(cudaMemcpyAsync(d_edges.data(), edges.data(), edges.size() * sizeof(long long),
                                  cudaMemcpyHostToDevice, s));
  const unsigned long long slice = staged_summary_chunk(n_, blocks * sizeof(Summary), 0);
  DeviceBuffer<Summary> d_out(slice * blocks);
  for (unsigned long long id0 = 0; id0 < n_; id0 += slice) {
    const unsigned long long count = std::min<unsigned long long>(slice, n_ - id0);
    for (const KernelKind& kind : kinds_)
      launch_stream_blocks(kind, tables_.view, ring_, arrays_, d_edges.data(),
                           static_cast<int>(blocks), id0, count, d_out.data(), s);
    WFOD_CUDA_CHECK(cudaMemcpyAsync(out.data() + id0 * blocks, d_out.data(),
                                    count * blocks * sizeof(Summary), cudaMemcpyDeviceToHost, s));
    WFOD_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  return out;
}

}  // namespace wfod::cuda
