// The CUDA backend's incremental stream (Backend::open_stream): the chunk-summary scheme of
// kernels/cpu/cpu_stream.cpp with every per-combo cache on the device. The host keeps the
// indicator states (RollingIndicators, the code the CPU paths run, O(1) per bar per series)
// and a bounded tail of bars and indicator values (cuda_stream_impl.cuh says how far back),
// and copies only each new bar's column (one value per series, plus its gap/body/close)
// through pinned memory into a device ring of the last L bars. One advance of one bar is a
// fixed launch sequence whose scalars sit in a device StreamStep, captured once as a CUDA
// graph and replayed (WFOD_CUDA_STREAM_GRAPH=0 launches directly, for comparison).
#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

#include "cuda_stream_impl.cuh"
#include "fault_injection.cuh"
#include "src/growth_refine.hpp"
#include "src/thread_count.hpp"
#include "wfod/env_knobs.hpp"
#include "wfod/segments.hpp"
#include "wfod/support.hpp"

namespace wfod::cuda {
namespace {

using stream_detail::StreamLayout;

// RollingIndicators gains RSI rows (and bollinger's SMA and STD rows) with the cpu backend's
// level-family streams; a build whose rolling indicators have no rsi() refuses the level
// families' streams instead of reading rows that were never built.
template <typename Rows>
concept RollingRsiRows = requires(const Rows& rows) {
  rows.rsi(2).index;
};

template <typename Rows>
int rsi_row_index(const Rows& rows, int period) {
  if constexpr (RollingRsiRows<Rows>) {
    return static_cast<int>(rows.rsi(period).index);
  } else {
    throw Unsupported("the cuda stream does not run the rsi_reversion family");
  }
}

}  // namespace

namespace stream_detail {

std::vector<KernelKind> kinds_of(const Grid& g) {
  const bool vol = g.has_vol_filter();
  if (g.family == Family::bollinger) return {{kBollinger, false, vol, false}};
  if (g.family == Family::rsi_reversion) return {{kRsi, false, vol, false}};
  if (g.family == Family::channel_breakout) return {{kChannel, false, vol, false}};
  std::vector<KernelKind> kinds;
  for (bool cross : {false, true})
    if (std::find(g.entry.begin(), g.entry.end(), cross ? Entry::cross : Entry::state) !=
        g.entry.end())
      kinds.push_back({kMaCross, cross, vol, false});
  return kinds;
}

StreamLayout::StreamLayout(const StreamSpec& spec, const detail::RollingIndicators& row_set) {
  chunk = spec.chunk ? spec.chunk : detail::default_stream_chunk(spec.window);
  ring_slots = static_cast<int>((spec.window + chunk - 1) / chunk + 3);
  const CudaTuning& tune = cuda_tuning();
  sub = std::max<size_t>(1, chunk / tune.stream_sub_chunks);
  subs = static_cast<int>((chunk + sub - 1) / sub);
  batch = tune.stream_max_batch_bars;
  // Bars the ring must hold: the replayed head chunk's start - 1 .. end, plus one batch.
  ring_len = std::bit_ceil(spec.window + 2 * chunk + batch + 8);
  rows = static_cast<int>(row_set.row_count());
  lookback = row_set.lookback();
  n = spec.strategy.grid.size();
  top_k = static_cast<int>(std::min<size_t>(std::max<size_t>(spec.rank.top, 1), kBlock));
  kinds = kinds_of(spec.strategy.grid).size();
}

// The host keeps bars from min(horizon() - 1, newest - lookback) on: fewer than ring_slots
// chunks back to the horizon, plus one, the batch appended before a release, and the look-back.
size_t StreamLayout::most_host_bars() const {
  return (static_cast<size_t>(ring_slots) + 1) * chunk + batch + lookback + 1;
}

// Every device allocation of the stream (in doubles for sums of many terms: a 2.56e9-combo
// grid's size must not wrap).
double StreamLayout::device_bytes() const {
  const double per_combo = sizeof(PositionState) * double(1 + ring_slots + subs) +
                           sizeof(Summary) * double(3 + ring_slots + subs);
  const double ring = double(ring_len + 1) * rows * sizeof(double) + 3.0 * ring_len * 8;
  const double staging = double(batch) * (rows + 3) * sizeof(double);
  const double blocks = std::ceil(double(n) / kBlock);
  const double rank =
      double(kinds) * blocks * top_k * sizeof(Candidate) * 2 + double(fallback_cap()) * 8;
  return double(n) * per_combo + ring + staging + rank;
}

// Per-row indicator state beyond its values (as the cpu stream's size query counts it): at
// most two values and an index per bar of the row's look-back. The roll starts: at most one
// per bar since the horizon (reserved at most_host_bars()).
double StreamLayout::host_bytes() const {
  const double most = 2.0 * double(most_host_bars());
  const double row_states = double(rows) * (256.0 + 24.0 * double(lookback + 1));
  return double(batch) * (rows + 3) * sizeof(double) + double(kBlock) * top_k * 64 + 4096 +
         most * rows * sizeof(double) + row_states + (most + 1024) * 7 * 8 + most * sizeof(size_t);
}

}  // namespace stream_detail

namespace {

std::string gb(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(bytes) / 1e9);
  return buf;
}

}  // namespace

CudaStream::CudaStream(const StreamSpec& spec, const HistoryView& history)
    : spec_(spec), bars_(spec.strategy.fill), rows_(spec.strategy.grid) {
  const auto start = std::chrono::steady_clock::now();
  if (spec_.window < 1) throw std::invalid_argument("stream window must hold at least 1 bar");
  const Grid& grid = spec_.strategy.grid;
  grid.validate();
  const StreamLayout layout(spec_, rows_);
  chunk_ = layout.chunk;
  ring_slots_ = layout.ring_slots;
  sub_ = layout.sub;
  subs_ = layout.subs;
  schedule_ = detail::WindowSchedule(chunk_, sub_, static_cast<size_t>(subs_));
  ring_len_ = layout.ring_len;
  batch_ = layout.batch;
  lookback_ = layout.lookback;
  rows_count_ = layout.rows;
  n_ = layout.n;
  top_k_ = layout.top_k;
  threads_ = detail::resolve_threads(spec_.threads);
  kinds_ = stream_detail::kinds_of(grid);
  // The host tail's most, reserved once (twice, so re-layouts amortise): host memory is set
  // by the window from the first bar instead of creeping up with the largest advance.
  const size_t most = layout.most_host_bars();
  rows_.reserve_span(2 * most);
  bars_.reserve(2 * most + 1024);
  roll_starts_.reserve(most);
  plan_memory(layout);
  allocate();
  upload_tables();
  const char* g = wfod::env_value(wfod::Env::cuda_stream_graph);
  use_graph_ = !(g && std::string_view(g) == "0");
  const char* f = wfod::env_value(wfod::Env::cuda_stream_fused);
  fused_ = f && std::string_view(f) == "1";
  // The history from the anchor goes through in batches: the host tail stays bounded.
  for (size_t from = 0; from < history.size(); from += batch_) {
    bars_.append(history, from, std::min(history.size(), from + batch_));
    extend();
  }
  WFOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  open_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

SweepResult CudaStream::advance(std::span<const Bar> bars) {
  const auto start = std::chrono::steady_clock::now();
  maybe_inject_fault();
  bars_.check_order(bars);
  const size_t end = bars_.end() + bars.size();
  const WindowSpec w{end, spec_.window, spec_.warmup};
  if (bars.size() == 1 && end == rolled_ + 1 && end >= spec_.window + spec_.warmup + 1) {
    // Kept and rolled even when the window is refused (Stream::advance), so that the caches
    // always end at the newest bar (what a checkpoint assumes).
    bars_.append(bars);
    rows_.append(bars_.view(), bars_.kept_from());
    try {
      check_window(w, end, spec_.strategy);
      check_tally_window(w.bars);
    } catch (...) {
      extend();
      throw;
    }
    note_roll(rolled_);
    stage_bars(rolled_, rolled_ + 1);
    plan_run(end);
    const StreamStep& st = host_step_[0];
    launched_ = std::chrono::steady_clock::now();
    if (!st.do_flip && !st.do_cache_head) {
      // The steady state: one bar in, one fused roll + window + rank launch per kind.
      if (use_graph_) {
        if (!graph_.ready()) graph_.capture(stream_.get(), [&] { enqueue_steady(); });
        graph_.launch(stream_.get());
      } else {
        enqueue_steady();
      }
    } else {
      enqueue_roll(1);
      enqueue_run(/*step_copied=*/true);
    }
    rolled_ += 1;
    release();
    return finish(w, start);
  }
  take(bars);  // kept even when the window is refused below (Stream::advance)
  check_window(w, end, spec_.strategy);
  check_tally_window(w.bars);
  plan_run(end);
  launched_ = std::chrono::steady_clock::now();
  enqueue_run(/*step_copied=*/false);
  return finish(w, start);
}

StreamStats CudaStream::stats() const {
  StreamStats s;
  s.bars = bars_.end();
  s.chunk = chunk_;
  s.footprint_bytes = device_bytes_ + rows_.footprint_bytes() + bars_.footprint_bytes() +
                      roll_starts_.capacity() * sizeof(size_t);
  s.open_seconds = open_seconds_;
  s.last_prepare_ms = last_prepare_ms_;
  s.last_wait_ms = last_wait_ms_;
  return s;
}

// The device ring holds the start states of chunks (cur - ring_slots, cur], cur the chunk of
// the next bar to roll (the roll writes chunk j + 1's start into slot (j + 1) mod ring_slots
// when chunk j completes): any combo can be replayed from the oldest of them.
size_t CudaStream::horizon() const {
  const size_t cur = rolled_ / chunk_, ring = static_cast<size_t>(ring_slots_);
  return (cur + 1 > ring ? cur + 1 - ring : 0) * chunk_;
}

// Replays from the horizon read the rows from the bar before it (cross entries look one bar
// back) and the segments read its close; the indicator states read back lookback() bars of
// input. The window's head chunk, every run's replay, lies after the horizon.
size_t CudaStream::rows_kept_from() const {
  const size_t h = horizon();
  return h ? h - 1 : 0;
}

size_t CudaStream::bars_kept_from(size_t end) const {
  return std::min(rows_kept_from(), end > lookback_ ? end - lookback_ : 0);
}

void CudaStream::release() {
  rows_.release_before(rows_kept_from());
  bars_.release_before(bars_kept_from(bars_.end()));
  const auto kept = std::lower_bound(roll_starts_.begin(), roll_starts_.end(), horizon());
  roll_starts_.erase(roll_starts_.begin(), kept);
}

// Once per bar: a roll retried after a failed launch starts where the failed one did.
void CudaStream::note_roll(size_t from) {
  if (roll_starts_.empty() || from > roll_starts_.back()) roll_starts_.push_back(from);
}

// SPEC: refuse plainly when the caches do not fit the device (the daemon falls back).
void CudaStream::plan_memory(const StreamLayout& layout) {
  const size_t n = n_;
  device_bytes_ = static_cast<size_t>(layout.device_bytes());
  size_t free_bytes = 0, total = 0;
  WFOD_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  const size_t reserve = 512ull << 20;
  if (device_bytes_ + reserve > free_bytes)
    throw Unsupported("cuda stream: " + std::to_string(n) + " combos x (" +
                      std::to_string(ring_slots_) + " chunk + " + std::to_string(subs_) +
                      " sub-chunk) summaries of " + std::to_string(chunk_) + "-bar chunks need " +
                      gb(device_bytes_) + " but the device has " + gb(free_bytes) + " free (of " +
                      gb(total) +
                      "); use a larger chunk, a smaller grid or window, or full sweeps");
}
void CudaStream::allocate() {
  const size_t n = n_, R = ring_slots_, S = subs_;
  state_.ensure(n);
  constexpr size_t W = SummaryColumns::kWords;
  tail_.ensure(W * n);
  back_.ensure(W * n);
  chunk_sum_.ensure(W * n * R);
  chunk_start_.ensure(n * R);
  head_suffix_.ensure(W * n * S);
  head_start_.ensure(n * S);
  window_.ensure(W * n);
  WFOD_CUDA_CHECK(cudaMemset(state_.data(), 0, n * sizeof(PositionState)));
  WFOD_CUDA_CHECK(cudaMemset(chunk_start_.data(), 0, n * R * sizeof(PositionState)));
  launch_stream_fill_identity({tail_.data(), n}, 1, nullptr);
  launch_stream_fill_identity({back_.data(), n}, 1, nullptr);
  ring_m_.ensure((ring_len_ + 1) * rows_count_);
  ring_bars_.ensure(3 * ring_len_);
  staged_cols_.ensure(batch_ * rows_count_);
  staged_bars_.ensure(3 * batch_);
  host_cols_ = PinnedBuffer<double>(batch_ * rows_count_);
  host_bars_ = PinnedBuffer<double>(3 * batch_);
  host_step_ = PinnedBuffer<StreamStep>(1);
  step_.ensure(1);
  // Rank buffers: block top-k, then reduction passes down to one block's worth.
  blocks_ = (n + kBlock - 1) / kBlock;
  candidates_.ensure(blocks_ * top_k_);
  unsigned long long m = blocks_ * top_k_;
  for (int pass = 0; m > static_cast<unsigned long long>(kBlock) && top_k_ <= kBlock / 2; ++pass) {
    const unsigned long long b = (m + kBlock - 1) / kBlock;
    reduce_[pass % 2].ensure(b * top_k_);
    passes_.push_back({m, pass % 2});
    m = b * top_k_;
  }
  final_count_ = static_cast<int>(m);
  counters_.ensure(1);
  fallback_.ensure(fallback_cap());
  final_summaries_.ensure(final_count_);
  host_candidates_ = PinnedBuffer<Candidate>(final_count_);
  host_summaries_ = PinnedBuffer<Summary>(final_count_);
  host_counters_ = PinnedBuffer<Counters>(1);
  ring_ = RingView{ring_m_.data() + rows_count_,          ring_bars_.data(),
                   ring_bars_.data() + ring_len_,         ring_bars_.data() + 2 * ring_len_,
                   static_cast<long long>(ring_len_ - 1), rows_count_,
                   spec_.strategy.costs.per_unit()};
  arrays_ = StreamArrays{state_.data(),
                         {tail_.data(), n},
                         {back_.data(), n},
                         {chunk_sum_.data(), n},
                         chunk_start_.data(),
                         {head_suffix_.data(), n},
                         head_start_.data(),
                         {window_.data(), n},
                         n,
                         static_cast<long long>(chunk_),
                         static_cast<long long>(sub_),
                         ring_slots_,
                         subs_};
  // The caches were set through the legacy default stream; the work stream does not
  // synchronise with it.
  WFOD_CUDA_CHECK(cudaDeviceSynchronize());
}
// Grid tables whose row indices are RollingIndicators' rows (the ring's column order).
void CudaStream::upload_tables() {
  const Grid& g = spec_.strategy.grid;
  DeviceIndicators ind;
  ind.rows = rows_count_;
  ind.first_defined.resize(rows_count_);
  for (int r = 0; r < rows_count_; ++r)
    ind.first_defined[r] = static_cast<int>(
        std::min<size_t>(rows_.row(static_cast<size_t>(r)).first_defined, INT_MAX));
  if (g.family == Family::ma_cross) {
    for (MaType m : g.ma) {
      for (int p : g.fast)
        ind.row_of[{row_kind_of(m), p, Source::close}] = static_cast<int>(rows_.ma(m, p).index);
      for (int p : g.slow)
        ind.row_of[{row_kind_of(m), p, Source::close}] = static_cast<int>(rows_.ma(m, p).index);
    }
  } else if (g.family == Family::bollinger) {  // rows as grid_tables.cu's rows_needed()
    for (int p : g.n) {
      ind.row_of[{RowKind::sma, p, Source::close}] =
          static_cast<int>(rows_.ma(MaType::sma, p).index);
      ind.row_of[{RowKind::vol, p, Source::close}] = static_cast<int>(rows_.vol(p).index);
    }
  } else if (g.family == Family::rsi_reversion) {
    for (int p : g.n) ind.row_of[{RowKind::rsi, p, Source::close}] = rsi_row_index(rows_, p);
  } else {
    for (Source s : g.source)
      for (int p : g.n) {
        ind.row_of[{RowKind::upper, p, s}] = static_cast<int>(rows_.upper(s, p).index);
        ind.row_of[{RowKind::lower, p, s}] = static_cast<int>(rows_.lower(s, p).index);
      }
  }
  for (const auto* axis : {&g.vol_short, &g.vol_long})
    for (int p : *axis)
      ind.row_of[{RowKind::vol, p, Source::close}] = static_cast<int>(rows_.vol(p).index);
  build_tables(g, ind, tables_);
}
// Indicator values (rows_, appended before) and gap/body/close of bars [from, to) into the
// pinned staging buffers, column per bar; the step's roll range.
void CudaStream::stage_bars(size_t from, size_t to) {
  const HistoryView v = bars_.view();
  const size_t kb = bars_.kept_from();
  for (int r = 0; r < rows_count_; ++r)
    for (size_t t = from; t < to; ++t)
      host_cols_[(t - from) * static_cast<size_t>(rows_count_) + static_cast<size_t>(r)] =
          rows_.value(static_cast<size_t>(r), t);
  const bool close_fill = spec_.strategy.fill == Fill::close;
  for (size_t t = from; t < to; ++t) {
    double* b = &host_bars_[3 * (t - from)];
    if (t == 0) {
      b[0] = b[1] = 0.0;
    } else {
      const double prev = v.close[t - 1 - kb], x = close_fill ? prev : v.open[t - kb];
      b[0] = (x - prev) / prev;
      b[1] = (v.close[t - kb] - x) / prev;
    }
    b[2] = v.close[t - kb];
  }
  host_step_[0].rolled = static_cast<long long>(from);
  host_step_[0].end = static_cast<long long>(to);
}

// H2D of the step and `count` staged columns and bars.
void CudaStream::enqueue_copies(size_t count) {
  cudaStream_t s = stream_.get();
  WFOD_CUDA_CHECK(cudaMemcpyAsync(step_.data(), host_step_.data(), sizeof(StreamStep),
                                  cudaMemcpyHostToDevice, s));
  WFOD_CUDA_CHECK(cudaMemcpyAsync(staged_cols_.data(), host_cols_.data(),
                                  count * rows_count_ * sizeof(double), cudaMemcpyHostToDevice, s));
  WFOD_CUDA_CHECK(cudaMemcpyAsync(staged_bars_.data(), host_bars_.data(),
                                  3 * count * sizeof(double), cudaMemcpyHostToDevice, s));
}
// The copies, the scatter into the ring, and the roll of every combo over the new bars.
void CudaStream::enqueue_roll(size_t count) {
  cudaStream_t s = stream_.get();
  enqueue_copies(count);
  launch_stream_scatter(step_.data(), staged_cols_.data(), staged_bars_.data(),
                        static_cast<long long>(count), ring_, s);
  for (const auto& kind : kinds_)
    launch_stream_roll(kind, tables_.view, ring_, arrays_, step_.data(), s);
}
void CudaStream::extend() {
  const size_t end = bars_.end();
  if (end > rows_.bars()) rows_.append(bars_.view(), bars_.kept_from());
  while (rolled_ < end) {
    const size_t to = std::min(end, rolled_ + batch_);
    note_roll(rolled_);
    stage_bars(rolled_, to);
    enqueue_roll(to - rolled_);
    // The pinned staging buffers are reused by the next batch: wait for the copies.
    WFOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    rolled_ = to;
  }
  release();
}

void CudaStream::take(std::span<const Bar> bars) {
  for (size_t i = 0; i < bars.size(); i += batch_) {
    bars_.append(bars.subspan(i, std::min(batch_, bars.size() - i)));
    extend();
  }
}

// The window's scalars for this run (host mirror of the flip / head-cache decisions).
void CudaStream::plan_run(size_t end) {
  const detail::WindowPlan p = schedule_.plan(end, spec_.window);
  StreamStep& st = host_step_[0];
  st.first = static_cast<long long>(p.first);
  st.head = static_cast<long long>(p.head);
  st.tail_chunk = static_cast<long long>(p.tail);
  st.has_middle = p.has_middle;
  st.do_flip = p.do_flip;
  st.flip_from = static_cast<long long>(p.head + 1);
  st.flip_to = static_cast<long long>(p.tail);
  st.in_one_chunk = p.in_one_chunk;
  st.do_cache_head = p.do_cache_head;
  st.sub_index = static_cast<long long>(p.sub);
  st.sub_start = static_cast<long long>(p.sub_start);
  st.sub_end = static_cast<long long>(p.sub_end);
  st.has_suffix = p.has_suffix;
}
// One new bar with no flip or head cache due: copies, scatter, roll, window + rank (the
// roll fused into the window kernel with WFOD_CUDA_STREAM_FUSED=1: fewer loads, more
// registers).
void CudaStream::enqueue_steady() {
  if (!fused_) {
    enqueue_roll(1);
    enqueue_rank(/*roll=*/false);
    return;
  }
  enqueue_copies(1);
  launch_stream_scatter(step_.data(), staged_cols_.data(), staged_bars_.data(), 1, ring_,
                        stream_.get());
  enqueue_rank(/*roll=*/true);
}
// After a separate roll: flip and head cache when due, then window + rank.
void CudaStream::enqueue_run(bool step_copied) {
  cudaStream_t s = stream_.get();
  if (!step_copied)
    WFOD_CUDA_CHECK(cudaMemcpyAsync(step_.data(), host_step_.data(), sizeof(StreamStep),
                                    cudaMemcpyHostToDevice, s));
  const StreamStep& st = host_step_[0];
  if (st.do_flip) launch_stream_flip(tables_.view, arrays_, step_.data(), s);
  if (st.do_cache_head)
    for (const auto& kind : kinds_)
      launch_stream_cache_head(kind, tables_.view, ring_, arrays_, step_.data(), s);
  enqueue_rank(/*roll=*/false);
}
// Window + block top-k per kind, reduction passes, winners' Summaries, results to host.
void CudaStream::enqueue_rank(bool roll) {
  cudaStream_t s = stream_.get();
  WFOD_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, sizeof(Counters), s));
  for (const auto& kind : kinds_)
    launch_stream_window(kind, tables_.view, ring_, arrays_, step_.data(), roll, s);
  launch_stream_rank(tables_.view, arrays_.window,
                     rank_params_of(spec_.rank, spec_.strategy.bars_per_year), top_k_,
                     candidates_.data(), counters_.data(), fallback_.data(),
                     static_cast<unsigned>(fallback_cap()), s);
  const Candidate* cur = candidates_.data();
  for (const auto& pass : passes_) {
    launch_topk_reduce(cur, pass.first, top_k_, reduce_[pass.second].data(), s);
    cur = reduce_[pass.second].data();
  }
  launch_stream_gather(cur, final_count_, arrays_.window, final_summaries_.data(), s);
  WFOD_CUDA_CHECK(cudaMemcpyAsync(host_candidates_.data(), cur, final_count_ * sizeof(Candidate),
                                  cudaMemcpyDeviceToHost, s));
  WFOD_CUDA_CHECK(cudaMemcpyAsync(host_summaries_.data(), final_summaries_.data(),
                                  final_count_ * sizeof(Summary), cudaMemcpyDeviceToHost, s));
  WFOD_CUDA_CHECK(cudaMemcpyAsync(host_counters_.data(), counters_.data(), sizeof(Counters),
                                  cudaMemcpyDeviceToHost, s));
}
// Waits for the run, then ranks its candidates on the host like every backend. The combos
// whose equity reaches zero and the reported combos' exact growth are replayed on the host
// from the window's head chunk start state (the host tail holds its bars and rows).
SweepResult CudaStream::finish(const WindowSpec& w, std::chrono::steady_clock::time_point start) {
  WFOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  const auto ms = [](auto a, auto b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  last_prepare_ms_ = ms(start, launched_);
  last_wait_ms_ = ms(launched_, std::chrono::steady_clock::now());
  const Counters c = host_counters_[0];
  SweepResult result;
  result.backend = "cuda";
  result.evaluated = c.evaluated;
  result.skipped = c.skipped;
  result.ranked = c.ranked;
  const Grid& grid = spec_.strategy.grid;
  TopK top(spec_.rank.top);
  for (int i = 0; i < final_count_; ++i) {
    const Candidate& cand = host_candidates_[i];
    if (cand.id == kEmptyId) continue;
    const Metrics m = finalize(host_summaries_[i], spec_.strategy.bars_per_year);
    top.offer({grid.decode(cand.id), m, objective_value(m, spec_.rank.objective)});
  }
  const size_t first = w.first(), end = w.end, head = first / chunk_, s = head * chunk_;
  if (c.fallback > 0) {
    if (c.fallback > fallback_cap())
      throw std::runtime_error("cuda stream: " + std::to_string(c.fallback) +
                               " combos reached non-positive equity; too many to re-evaluate");
    const auto ids = fallback_.download(c.fallback);
    const std::vector<PositionState> starts = chunk_states(head);
    for (unsigned long long id : ids) {
      const Combo combo = grid.decode(id);
      const std::vector<int8_t> p = replay(combo, head, starts[id], end - 1);
      const Metrics m = sequential(p, s, first, end);
      if (!passes_constraints(m, spec_.rank)) continue;
      ++result.ranked;
      top.offer({combo, m, objective_value(m, spec_.rank.objective)});
    }
  }
  result.top = top.sorted();
  // The reported combos' growth metrics from exact total returns (src/growth_refine.hpp, as
  // the cpu stream does).
  detail::refine_growth(
      result.top, spec_.rank, spec_.strategy.bars_per_year, [&](const Combo& combo) {
        const std::vector<int8_t> p = replay(combo, head, chunk_state(combo.id, head), end - 1);
        return segment_values(p, s, first, end);
      });
  result.precision = Precision::exact;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

bool streams_run_level_families() { return RollingRsiRows<detail::RollingIndicators>; }

StreamMemory cuda_stream_memory(const StreamSpec& spec) {
  if (spec.window < 1) throw std::invalid_argument("stream window must hold at least 1 bar");
  spec.strategy.grid.validate();
  const detail::RollingIndicators rows(spec.strategy.grid);
  const StreamLayout layout(spec, rows);
  auto clamp = [](double b) { return b >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(b); };
  return {clamp(layout.host_bytes()), clamp(layout.device_bytes())};
}

std::unique_ptr<Stream> make_cuda_stream(const StreamSpec& spec, const HistoryView& history) {
  return std::make_unique<CudaStream>(spec, history);
}

}  // namespace wfod::cuda
