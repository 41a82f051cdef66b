// The CUDA backend's incremental stream: what it keeps on the device and on the host. Split
// over cuda_stream.cu (advancing and optimising), cuda_stream_queries.cu (positions, returns,
// trackers and the window's metrics and block summaries, replayed on the host from the
// device's chunk start states) and cuda_stream_checkpoint.cu (checkpoints).
//
// Bounded by the window, not by the bars advanced through (issue 43 item 10): the device ring
// holds the last ring_len bars, and the host keeps only
//   - bars_ (StreamBars): bars from min(horizon() - 1, newest - lookback) on, and
//   - rows_ (RollingIndicators, matrix mode): indicator values from horizon() - 1 on,
// where horizon() = the first bar of the oldest chunk whose start state the device ring
// (chunk_start_, R = ceil(W/C) + 3 chunk slots) still holds, fewer than R C bars behind the
// newest. That is what every query (a replay from a chunk start state) and the next run's host
// work (the fallback of windows whose equity reaches zero, the winners' exact growth) read, and
// what the indicator states read back. So the host holds at most (R + 1) C + batch + look-back
// bars x (rows + 7) doubles (StreamLayout::most_host_bars, reserved twice over at open) whatever
// the uptime; long histories go through in batches of at most `batch` (2,048) bars.
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "cuda_handles.cuh"
#include "cuda_stream.hpp"
#include "device_buffer.cuh"
#include "grid_tables.cuh"
#include "pinned_buffer.cuh"
#include "src/rolling_indicators.hpp"
#include "src/stop_rules.hpp"
#include "src/stream_bars.hpp"
#include "src/window_schedule.hpp"
#include "stream_kernels.cuh"
#include "tally.cuh"
#include "tuning.cuh"
#include "wfod/backend.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod::cuda {
namespace stream_detail {

class Graph {
 public:
  Graph() = default;
  ~Graph() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  bool ready() const { return exec_ != nullptr; }
  template <typename Enqueue>
  void capture(cudaStream_t s, Enqueue&& enqueue) {
    WFOD_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    enqueue();
    WFOD_CUDA_CHECK(cudaStreamEndCapture(s, &graph_));
    WFOD_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  void launch(cudaStream_t s) { WFOD_CUDA_CHECK(cudaGraphLaunch(exec_, s)); }

 private:
  cudaGraph_t graph_{};
  cudaGraphExec_t exec_{};
};

std::vector<KernelKind> kinds_of(const Grid& g);

// A stream's sizes from its spec alone: one function for the constructor and the size query
// (Backend::stream_memory), so what is planned is what is allocated.
struct StreamLayout {
  // batch: columns staged per upload while catching up (tuning.cuh)
  size_t chunk = 1, sub = 1, ring_len = 1, batch = 1;
  int ring_slots = 1, subs = 1, rows = 0, top_k = 1;
  unsigned long long n = 0;
  size_t kinds = 1;
  size_t lookback = 1;

  StreamLayout(const StreamSpec& spec, const detail::RollingIndicators& row_set);
  size_t fallback_cap() const { return std::min<size_t>(std::max<size_t>(n, 1), 1u << 16); }
  // The most bars the host's bar tail and indicator matrix hold at once: the ring's chunks,
  // the chunk being rolled, one batch being added and the indicators' look-back.
  size_t most_host_bars() const;
  double device_bytes() const;
  // Pinned staging, the top-K read-back, the host's bar tail and indicator values (reserved
  // at twice most_host_bars(), as the constructor does).
  double host_bytes() const;
};

}  // namespace stream_detail

class CudaStream final : public Stream {
 public:
  CudaStream(const StreamSpec& spec, const HistoryView& history);

  SweepResult advance(std::span<const Bar> bars) override;
  StreamStats stats() const override;
  size_t horizon() const override;
  bool bounded() const override { return true; }

  // Bar queries (cuda_stream_queries.cu).
  std::vector<int8_t> positions(const Combo& combo, size_t first, size_t end) const override;
  std::vector<double> returns(const Combo& combo, size_t first, size_t end) const override;
  PositionTracker tracker(const Combo& combo, size_t keep) const override;
  std::vector<Metrics> evaluate(std::span<const uint64_t> ids) const override;
  std::vector<Summary> block_summaries(std::span<const size_t> cuts) const override;

  // Checkpoints (cuda_stream_checkpoint.cu).
  std::vector<uint8_t> checkpoint() const override;
  static std::unique_ptr<CudaStream> restore(const StreamSpec& spec, std::span<const uint8_t> blob);

 private:
  // --- advancing (cuda_stream.cu) ---
  void plan_memory(const stream_detail::StreamLayout& layout);
  void allocate();
  void upload_tables();
  // Bars [from, to) (their indicator values already in rows_) staged for the device.
  void stage_bars(size_t from, size_t to);
  void enqueue_copies(size_t count);
  void enqueue_roll(size_t count);
  // rows_ up to the newest bar of bars_, every combo's caches rolled to it, then the release
  // of what no run or query reads any more.
  void extend();
  void release();
  // Appends `bars` (checked) in batches of at most batch_ bars, extending after each.
  void take(std::span<const Bar> bars);
  void plan_run(size_t end);
  void enqueue_steady();
  void enqueue_run(bool step_copied);
  void enqueue_rank(bool roll);
  SweepResult finish(const WindowSpec& w, std::chrono::steady_clock::time_point start);
  size_t fallback_cap() const { return std::min<size_t>(std::max<size_t>(n_, 1), 1u << 16); }
  size_t rows_kept_from() const;
  size_t bars_kept_from(size_t end) const;
  // Records that a roll starts at bar `from` (roll_starts_).
  void note_roll(size_t from);

  // --- host replays (cuda_stream_queries.cu) ---
  // The grid id of `combo`; std::invalid_argument unless it is a valid point of the grid.
  uint64_t combo_id(const Combo& combo) const;
  void check_range(size_t first, size_t end, size_t oldest) const;
  WindowSpec current_window() const;
  // The start states of every combo id entering ring chunk `chunk` (one download), or of one.
  std::vector<PositionState> chunk_states(size_t chunk) const;
  PositionState chunk_state(uint64_t id, size_t chunk) const;
  // p_t of `combo` for t in [s - 2, end) from `start`, the state entering s = chunk * C, the
  // first bar of the ring chunk (s >= horizon()); index i is p_{s-2+i}. `end_state`, when
  // given, receives the state entering max(end, s).
  std::vector<int8_t> replay(const Combo& combo, size_t chunk, PositionState start, size_t end,
                             detail::ComboState* end_state = nullptr) const;
  std::pair<size_t, std::vector<int8_t>> replay_from_ring(
      const Combo& combo, size_t first, size_t end, detail::ComboState* end_state = nullptr) const;
  // Metrics of `combo` over [first, end) with the literal drawdown (SPEC §6): the fallback for
  // windows whose equity reaches zero. `p` from replay() of chunk `s / C`.
  Metrics sequential(std::span<const int8_t> p, size_t s, size_t first, size_t end) const;
  // Metrics of the window [first, end) as Backend::evaluate gives them: the Summary of its
  // bars folded left to right (finalize), or sequential() where its equity reaches zero.
  Metrics window_metrics(std::span<const int8_t> p, size_t s, size_t first, size_t end) const;
  // s_t over [first, end) from replayed positions `p` (index i is p_{s-2+i}).
  std::vector<double> segment_values(std::span<const int8_t> p, size_t s, size_t first,
                                     size_t end) const;

  // --- checkpoints (cuda_stream_checkpoint.cu) ---
  void load(std::span<const uint8_t> blob);
  // The ring's columns of the kept bars, the chunk Summaries a later run reads and the head
  // chunk's sub-chunk cache, recomputed on the device after load() set rolled_, the host
  // tails, the roll starts and the chunk start states of the kept chunks.
  void rebuild(size_t bars);
  // The kept chunks [horizon() / C, rolled_ / C]: those whose start states the ring holds.
  std::pair<size_t, size_t> kept_chunks() const;

  StreamSpec spec_;
  detail::StreamBars bars_;  // from bars_kept_from(newest) on
  detail::RollingIndicators rows_;
  std::vector<KernelKind> kinds_;
  DeviceGridTables tables_;
  size_t chunk_ = 0, sub_ = 1, ring_len_ = 0, batch_ = 0, lookback_ = 1;
  int ring_slots_ = 0, subs_ = 1, rows_count_ = 0, top_k_ = 1, final_count_ = 0;
  int threads_ = 1;  // host replays of the queries
  unsigned long long n_ = 0, blocks_ = 0;
  size_t rolled_ = 1;  // every combo's state is the one entering this bar (bar 0 is flat)
  // The first bar of every roll since the horizon, ascending (one per bar in the steady
  // state; released with the bars): where the rolls cut each chunk, which sets how its
  // Summary was combined, so that a restore recombines it bit for bit.
  std::vector<size_t> roll_starts_;
  detail::WindowSchedule schedule_{1, 1, 1};  // set in the constructor
  size_t device_bytes_ = 0;
  double open_seconds_ = 0;
  std::chrono::steady_clock::time_point launched_;
  double last_prepare_ms_ = 0, last_wait_ms_ = 0;
  bool use_graph_ = true, fused_ = false;

  GpuStream stream_;
  stream_detail::Graph graph_;
  DeviceBuffer<PositionState> state_, chunk_start_, head_start_;
  DeviceBuffer<unsigned long long> tail_, back_, chunk_sum_, head_suffix_, window_;  // columns
  DeviceBuffer<Summary> final_summaries_;
  DeviceBuffer<double> ring_m_, ring_bars_, staged_cols_, staged_bars_;
  DeviceBuffer<StreamStep> step_;
  DeviceBuffer<Candidate> candidates_, reduce_[2];
  std::vector<std::pair<unsigned long long, int>> passes_;  // (candidates in, output buffer)
  DeviceBuffer<Counters> counters_;
  DeviceBuffer<unsigned long long> fallback_;
  PinnedBuffer<double> host_cols_, host_bars_;
  PinnedBuffer<StreamStep> host_step_;
  PinnedBuffer<Candidate> host_candidates_;
  PinnedBuffer<Summary> host_summaries_;
  PinnedBuffer<Counters> host_counters_;
  RingView ring_{};
  StreamArrays arrays_{};
};

}  // namespace wfod::cuda
