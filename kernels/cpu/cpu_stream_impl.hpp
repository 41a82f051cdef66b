// The CPU backend's incremental stream: what it keeps per combo and per bar (cpu_stream.cpp
// says how a run uses it). Split over cpu_stream.cpp (advancing and optimising),
// cpu_stream_queries.cpp (positions, returns, trackers and the window's metrics and block
// summaries, all from the stored states) and cpu_stream_checkpoint.cpp (checkpoints).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "lane_groups.hpp"
#include "lane_kernel.hpp"
#include "src/lane_setup.hpp"
#include "src/rolling_indicators.hpp"
#include "src/stream_bars.hpp"
#include "src/window_schedule.hpp"
#include "wfod/backend.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod::cpu {

class CpuStream final : public Stream {
 public:
  CpuStream(const StreamSpec& spec, const HistoryView& history);
  // The same, extending long histories in slices of `slice` bars (whole chunks; 0: the
  // layout's): tests show that results and checkpoints do not depend on it.
  CpuStream(const StreamSpec& spec, const HistoryView& history, size_t slice);
  // The size query (Backend::stream_memory): what a stream of `spec` holds at most.
  static StreamMemory memory(const StreamSpec& spec);

  SweepResult advance(std::span<const Bar> bars) override;
  StreamStats stats() const override;
  size_t horizon() const override;
  bool bounded() const override { return true; }

  // Bar queries (cpu_stream_queries.cpp).
  std::vector<int8_t> positions(const Combo& combo, size_t first, size_t end) const override;
  std::vector<double> returns(const Combo& combo, size_t first, size_t end) const override;
  PositionTracker tracker(const Combo& combo, size_t keep) const override;
  std::vector<Metrics> evaluate(std::span<const uint64_t> ids) const override;
  std::vector<Summary> block_summaries(std::span<const size_t> cuts) const override;

  // Checkpoints (cpu_stream_checkpoint.cpp).
  std::vector<uint8_t> checkpoint() const override;
  static std::unique_ptr<CpuStream> restore(const StreamSpec& spec, std::span<const uint8_t> blob,
                                            size_t slice = 0);

 private:
  // Chunk sizes of a spec: one function for the constructor and the size query.
  struct Layout {
    size_t chunk = 1, ring = 1;  // bars per chunk, ring slots (chunk start states)
    size_t sums = 1;             // ring slots of chunk Summaries
    size_t sub = 1, subs = 1;    // sub-chunk bars, sub-chunks per chunk
    size_t slice = 1;            // most bars extended at once (whole chunks)
    size_t row_span() const;     // bars a row of the indicator matrix holds
    size_t most_bars(size_t lookback) const;
  };
  static Layout layout_of(const StreamSpec& spec);

  size_t slot(size_t combo, size_t chunk) const { return combo * ring_ + chunk % ring_; }
  size_t sum_slot(size_t combo, size_t chunk) const { return combo * sums_ + chunk % sums_; }
  // Sub-chunk i >= 1's suffix in the head cache (sub-chunk 0's is never read).
  size_t suffix_at(size_t combo, size_t i) const { return combo * (subs_ - 1) + (i - 1); }
  size_t combos() const { return state_.size(); }
  int kind_of_combo(size_t c) const { return groups_[c / kLanes].kind; }

  void make_groups();
  void reserve_memory();
  void refresh_inputs();
  void extend();
  void roll_group(const BarTables& tables, size_t g, size_t end);
  void whole_chunk(const BarTables& tables, size_t g, size_t chunk, Summary* out) const;
  void flip(size_t from, size_t to);
  void cache_head(const BarTables& tables, size_t head);
  SweepResult optimise();

  // The stream's index of `combo` (group * kLanes + lane); std::invalid_argument unless it is
  // a valid point of the grid.
  size_t combo_index(const Combo& combo) const;
  // std::invalid_argument unless oldest <= first <= end <= bars.
  void check_range(size_t first, size_t end, size_t oldest) const;
  // The window ending at the newest bar, checked as a sweep checks its request (SPEC §3).
  WindowSpec current_window() const;
  // The first bar whose indicator values, and whose bars, are kept (what extend() releases
  // before): functions of the bar count alone, so a checkpoint can be checked against them.
  size_t rows_kept_from() const;
  size_t bars_kept_from(size_t bars) const;
  void load(std::span<const uint8_t> blob);
  // The chunks whose start states the ring holds, [first, end): checkpoints store them.
  std::pair<size_t, size_t> kept_chunks() const;
  // After load(): the chunk Summaries and head cache a checkpoint leaves out, recomputed.
  void rebuild();
  // Whether combo slot c holds a combo whose stops act (not a padding lane).
  bool stop_lane(size_t c) const;

  // p_t of combo `c` for t in [s - 2, end), from the stored state entering s, the first bar
  // of the ring chunk holding `first` (first >= horizon()): returns s and those positions
  // (index i is p_{s-2+i}); `end_state`, when given, receives the state entering max(end, s).
  std::pair<size_t, std::vector<int8_t>> replay(size_t c, size_t first, size_t end,
                                                ComboState* end_state = nullptr) const;
  // Combo c's state entering the first bar of ring chunk `chunk` (its stops' with it).
  ComboState chunk_state(size_t c, size_t chunk) const;
  // The state each lane of group g enters ring chunk `chunk` with (chunk_state's, lane by
  // lane; a lane past the group's own is flat): what the lane kernel starts a replay of that
  // chunk from, and carries on in place.
  struct LaneStarts {
    LaneState state[kLanes];
    StopState stops[kLanes];
  };
  LaneStarts group_chunk_start(size_t g, size_t chunk) const;
  // Entry i of a stop-state array, or nullptr where the stream keeps none (no group's stops
  // act): what LaneRange takes.
  template <typename T>
  static auto stop_at(T& states, size_t i) -> decltype(&states[i]) {
    return states.empty() ? nullptr : &states[i];
  }
  // Metrics of combo `c` over [first, end) with the literal drawdown (SPEC §6), from
  // replayed positions: for windows whose equity reaches zero.
  Metrics sequential(size_t c, size_t first, size_t end) const;

  StreamSpec spec_;
  StreamBars bars_;  // from min(horizon() - 1, newest - the indicators' look-back) on
  RollingIndicators rows_;
  std::vector<Group> groups_;
  std::vector<uint32_t> index_of_;  // combo id -> group * kLanes + lane (valid combos)
  std::vector<LaneInput> inputs_;
  uint64_t inputs_version_ = 0;
  uint64_t evaluated_ = 0, skipped_ = 0;
  size_t chunk_ = 0, ring_ = 0, sums_ = 1;
  size_t sub_ = 1, subs_ = 1;                 // sub-chunk bars, sub-chunks per chunk
  detail::WindowSchedule schedule_{1, 1, 1};  // set in the constructor
  size_t slice_ = 0;                          // most bars extended at once
  int threads_ = 1;
  size_t rolled_ = 1;  // every combo's state is the one entering this bar (bar 0 is flat)
  // Per combo (group * kLanes + lane):
  std::vector<LaneState> state_;  // entering bar rolled_
  // The stop states (SPEC §5b) beside state_, chunk_start_ and head_start_, kept only when
  // some group's stops act (stops_; empty otherwise): the same layout, one per combo slot.
  bool stops_ = false;
  std::vector<StopState> stop_state_, chunk_stop_, head_stop_;
  std::vector<Summary> tail_;  // bars [max(1, floor(rolled_/C) C), rolled_)
  std::vector<Summary> back_;  // chunks [split, floor(rolled_/C)) (split: schedule_)
  // Per combo and ring slot: the chunk's Summary (chunk j at slot j mod sums_; raw, or the
  // suffix combine up to the schedule's split below it) and the state entering its first bar
  // (chunk j at slot j mod ring_).
  std::vector<Summary> chunk_sum_;
  std::vector<LaneState> chunk_start_;
  // Per combo and sub-chunk of the schedule's head chunk: the state entering the sub-chunk and
  // (from sub-chunk 1 on: suffix_at) the suffix combine from it to the chunk's end.
  std::vector<Summary> head_suffix_;
  std::vector<LaneState> head_start_;
  double open_seconds_ = 0;
};

}  // namespace wfod::cpu
