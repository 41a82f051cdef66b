// CUDA stream checkpoints (Stream::checkpoint, Backend::restore_stream): what the stream holds
// that its spec does not determine and that it cannot recompute exactly from the bars it
// keeps, so that a restored stream's every later advance and query is bit-identical to the
// uninterrupted stream's. Layout (host byte order, recorded; docs/engine.md "Checkpoints"):
//   "WFODSTRM", u32 version, u32 byte-order mark, string backend ("cuda"),
//   u64 spec fingerprint, string spec text (src/stream_spec_text.hpp),
//   u64 bars, i64 last ts, u64 window, chunk, ring slots, sub-chunks, combo ids, rows,
//   look-back, ring bars, u64 schedule split, cached head,
//   bar tail (StreamBars::save), indicator rows (RollingIndicators::save),
//   u64 count, then u64 each: the bars where the rolls since the horizon started, ascending,
//   per combo id: state (2 bytes), then the tail and the back Summaries (as the device's
//   columns: word f of id at f * n + id),
//   the start states of the kept chunks [horizon / C, rolled / C], chunk by chunk (n each),
//   u64 checksum of all the bytes before it (blob_checksum).
// Version 2 (issue 43 item 6) leaves out the ring's chunk Summaries, the head chunk's
// sub-chunk cache and the ring's indicator columns and bar tables (version 1 wrote them raw:
// (R + S + 2) x 160 bytes a combo, 1.7 GB for 138K combos at W = 20,000, which a stop wrote
// and synced). They are recomputed on the device by the advance's own code:
//  - the ring's columns of the kept bars are staged from the host tails (bars, indicator
//    rows) as the advance stages them;
//  - a completed chunk's Summary is the tail's running combine at its close: roll_one
//    combined one run_from Summary per piece of the chunk, the pieces cut where the rolls
//    started (one per bar in the steady state, batches while catching up). The positions are
//    integers, so the replay from the chunk's stored start state meets every piece's start
//    in the same state, and the rebuild kernel runs the same roll_one over the same pieces
//    (the roll starts are in the blob): every Summary comes out bit for bit, and so does the
//    next chunk's start state, which the restore checks against the stored one;
//  - the two-stack aggregate's suffix combines below the schedule's split, folded by the
//    flip kernel right to left from the split (every later read is at a later head + 1);
//  - the cached head chunk's sub-chunk start states and suffixes, by the cache_head kernel
//    (its start state is stored, its bars are in the ring).
// The state, tail and back are written: the tail and back are running combines whose start
// may lie before the horizon (back before the first flip). A restore costs about one roll
// over the window (W + C bars per combo). Other versions are refused (the daemon then replays
// from the bar log).
// Restore builds the stream from the spec (allocating as open does), then reads the blob over
// it, checking every size against the spec and every value that could steer a later read.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <type_traits>

#include "cuda_stream_impl.cuh"
#include "src/blob_io.hpp"
#include "src/stream_blob.hpp"
#include "src/stream_spec_text.hpp"
#include "wfod/detail/summary_fields.hpp"

namespace wfod::cuda {
namespace {

// The cuda stream's own numbering (backend "cuda"). 1: the device caches raw. 2: the state,
// not the caches (recomputed on restore).
constexpr detail::StreamBlobFormat kFormat{"WFODSTRM", 2, "cuda",
                                           "grid, fill, costs, window or chunk"};

bool is_position(int8_t p) { return p >= -1 && p <= 1; }

std::vector<PositionState> get_states(detail::BlobReader& r, size_t count, const char* what) {
  const std::span<const uint8_t> in = r.get_bytes(count * sizeof(PositionState), what);
  std::vector<PositionState> host(count);
  for (size_t i = 0; i < count; ++i) {
    host[i].p2 = static_cast<int8_t>(in[2 * i]);
    host[i].p1 = static_cast<int8_t>(in[2 * i + 1]);
    if (!is_position(host[i].p2) || !is_position(host[i].p1))
      r.fail(std::string(what) + " holds a position outside {-1, 0, 1}");
  }
  return host;
}

// Whether the flags word of a Summary column holds one byte per flag of summary_fields.hpp
// (a boolean or a position) and nothing above them.
bool flags_fit(unsigned long long word) {
  Summary s;
  int shift = 0;
  bool ok = true;
  detail::for_each_summary_flag(s, [&](auto& v) {
    const auto byte = static_cast<uint8_t>(word >> shift);
    shift += 8;
    if constexpr (std::is_same_v<std::remove_reference_t<decltype(v)>, bool>)
      ok = ok && byte <= 1;
    else
      ok = ok && is_position(static_cast<int8_t>(byte));
  });
  return ok && (shift >= 64 || (word >> shift) == 0);
}

// n Summaries as the device's columns; their counts bounded like the stream's bars, their
// flags booleans and positions.
std::vector<unsigned long long> get_summaries(detail::BlobReader& r, size_t n, const char* what) {
  constexpr size_t W = SummaryColumns::kWords;
  std::vector<unsigned long long> words = r.get_array<unsigned long long>(W * n, what);
  for (size_t f = 0; f < static_cast<size_t>(detail::kSummaryCounts); ++f)
    for (size_t id = 0; id < n; ++id)
      if (words[f * n + id] > detail::kBlobMaxBars)
        r.fail(std::string(what) + " hold an impossible count");
  for (size_t id = 0; id < n; ++id)
    if (!flags_fit(words[(W - 1) * n + id]))
      r.fail(std::string(what) + " hold impossible flags or positions");
  return words;
}

template <typename T>
void upload(cudaStream_t s, T* device, const std::vector<T>& host) {
  if (!host.empty())
    WFOD_CUDA_CHECK(
        cudaMemcpyAsync(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, s));
}

}  // namespace

static_assert(sizeof(PositionState) == 2, "checkpoints store a position state as two bytes");
static_assert(sizeof(Summary) == 8 * SummaryColumns::kWords, "a Summary is its column words");

std::pair<size_t, size_t> CudaStream::kept_chunks() const {
  return {horizon() / chunk_, rolled_ / chunk_ + 1};
}

std::vector<uint8_t> CudaStream::checkpoint() const {
  WFOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  constexpr size_t W = SummaryColumns::kWords;
  const size_t n = n_, R = static_cast<size_t>(ring_slots_), S = static_cast<size_t>(subs_);
  const auto [first, end] = kept_chunks();
  const auto from = std::lower_bound(roll_starts_.begin(), roll_starts_.end(), horizon());
  const auto to = std::lower_bound(from, roll_starts_.end(), rolled_);
  detail::BlobWriter w;
  w.reserve(256 + (bars_.end() - bars_.kept_from()) * 56 +
            (rows_.bars() - rows_kept_from() + 64) * rows_.row_count() * 8 +
            static_cast<size_t>(to - from) * 8 + n * (2 + 16 * W + 2 * (end - first)));
  const std::string text = detail::stream_spec_text(spec_, chunk_);
  detail::put_stream_blob_header(w, kFormat, text);
  w.put(static_cast<uint64_t>(bars_.end()));
  w.put(bars_.last_ts());
  for (size_t v : {spec_.window, chunk_, R, S, n, rows_.row_count(), rows_.lookback(), ring_len_})
    w.put(static_cast<uint64_t>(v));
  w.put(static_cast<uint64_t>(schedule_.split()));
  w.put(static_cast<uint64_t>(schedule_.cached_head()));
  bars_.save(w);
  rows_.save(w, rows_kept_from());
  w.put(static_cast<uint64_t>(to - from));
  for (auto it = from; it != to; ++it) w.put(static_cast<uint64_t>(*it));
  w.put_array(std::span<const PositionState>(state_.download(n)));
  w.put_array(std::span<const unsigned long long>(tail_.download(W * n)));
  w.put_array(std::span<const unsigned long long>(back_.download(W * n)));
  std::vector<PositionState> starts((end - first) * n);
  for (size_t j = first; j < end; ++j)
    if (n)
      WFOD_CUDA_CHECK(cudaMemcpy(starts.data() + (j - first) * n, chunk_start_.data() + (j % R) * n,
                                 n * sizeof(PositionState), cudaMemcpyDeviceToHost));
  w.put_array(std::span<const PositionState>(starts));
  w.put(detail::blob_checksum(w.bytes()));
  return std::move(w.bytes());
}

void CudaStream::load(std::span<const uint8_t> blob) {
  detail::BlobReader r(blob);
  detail::check_stream_blob_header(r, blob, kFormat, detail::stream_spec_text(spec_, chunk_));
  const uint64_t bars = r.get<uint64_t>("bar count");
  const int64_t last_ts = r.get<int64_t>("last ts");
  const size_t n = n_, R = static_cast<size_t>(ring_slots_), S = static_cast<size_t>(subs_);
  const size_t want[] = {spec_.window,      chunk_,           R,        S, n,
                         rows_.row_count(), rows_.lookback(), ring_len_};
  const char* names[] = {"window",    "chunk", "ring slots", "sub-chunks",
                         "combo ids", "rows",  "look-back",  "ring bars"};
  detail::read_stream_layout(r, want, names, bars, chunk_, schedule_);

  // The kept ranges are functions of the bar count: the bars a stream of that many bars holds.
  rolled_ = std::max<size_t>(static_cast<size_t>(bars), 1);
  bars_.load(r, static_cast<size_t>(bars), bars_kept_from(static_cast<size_t>(bars)));
  if (bars_.last_ts() != last_ts) r.fail("the last kept bar's ts is not the header's last ts");
  rows_.load(r, static_cast<size_t>(bars), rows_kept_from());
  bars_.reserve(2 * stream_detail::StreamLayout(spec_, rows_).most_host_bars() + 1024);
  // The roll starts: ascending, in [horizon, rolled), so at most one a bar.
  const size_t horizon_bar = horizon();
  const uint64_t starts_count = r.get<uint64_t>("roll start count");
  if (starts_count > rolled_ - std::min(horizon_bar, rolled_))
    r.fail("roll start count " + std::to_string(starts_count) + " is more than the " +
           std::to_string(rolled_ - std::min(horizon_bar, rolled_)) + " bars since the horizon");
  const std::vector<uint64_t> starts =
      r.get_array<uint64_t>(static_cast<size_t>(starts_count), "roll starts");
  roll_starts_.clear();
  for (uint64_t t : starts) {
    if (t < horizon_bar || t >= rolled_ || t < 1 ||
        (!roll_starts_.empty() && t <= roll_starts_.back()))
      r.fail("roll start " + std::to_string(t) + " is not ascending within [" +
             std::to_string(horizon_bar) + ", " + std::to_string(rolled_) + ")");
    roll_starts_.push_back(static_cast<size_t>(t));
  }
  const std::vector<PositionState> state = get_states(r, n, "combo states");
  const std::vector<unsigned long long> tail = get_summaries(r, n, "tail summaries");
  const std::vector<unsigned long long> back = get_summaries(r, n, "back summaries");
  const auto [first, end] = kept_chunks();
  const std::vector<PositionState> chunk_starts =
      get_states(r, (end - first) * n, "chunk start states");
  if (r.left() != 8)
    r.fail(std::to_string(r.left() - 8) + " bytes left over after the last section");

  cudaStream_t s = stream_.get();
  for (size_t j = first; j < end; ++j)
    if (n)
      WFOD_CUDA_CHECK(cudaMemcpyAsync(chunk_start_.data() + (j % R) * n,
                                      chunk_starts.data() + (j - first) * n,
                                      n * sizeof(PositionState), cudaMemcpyHostToDevice, s));
  rebuild(static_cast<size_t>(bars));
  // After the rebuild, which writes back through the roll.
  upload(s, state_.data(), state);
  upload(s, tail_.data(), tail);
  upload(s, back_.data(), back);
  WFOD_CUDA_CHECK(cudaStreamSynchronize(s));
  // The replay met every kept chunk after the first rebuilt one in its stored start state:
  // the ring and the roll starts are the ones the stream ran on.
  for (size_t j = first; j < end; ++j) {
    std::vector<PositionState> got(n);
    if (n)
      WFOD_CUDA_CHECK(cudaMemcpy(got.data(), chunk_start_.data() + (j % R) * n,
                                 n * sizeof(PositionState), cudaMemcpyDeviceToHost));
    if (std::memcmp(got.data(), chunk_starts.data() + (j - first) * n, n * sizeof(PositionState)) !=
        0)
      r.fail("the replay of the kept bars does not reach chunk " + std::to_string(j) +
             "'s stored start states");
  }
}

// What the checkpoint leaves out, recomputed on the device exactly as the uninterrupted stream
// holds it wherever a later run reads it (the file header says why each is exact):
//  - the ring's indicator columns and bar tables of the bars a later run or the rebuild reads,
//    from the head chunk's bar before on (staged from the host tails);
//  - the Summary of every completed chunk a window can still take as its middle, (head,
//    rolled / C) for the newest window's head chunk (older ones are never read again);
//  - the front stack's suffix combines below the schedule's split, folded right to left from
//    the split as the flip kernel made them (that flip's range started at its window's
//    head + 1 <= lo, and every later read is at a later head + 1);
//  - the cached head chunk's sub-chunk states and suffixes, when a later window can use it.
// The caller sets state, tail and back after it (the roll writes back).
void CudaStream::rebuild(size_t bars) {
  const size_t C = chunk_;
  const auto [first, end] = kept_chunks();
  const size_t cur = end - 1;
  const size_t head = bars >= spec_.window ? (bars - spec_.window) / C : 0;
  const size_t lo = std::max(first, head + 1), split = schedule_.split();
  cudaStream_t s = stream_.get();
  // The ring: bars from the horizon's bar before (what the host tails hold), none older than
  // the ring holds, none whose gap and body read a close before the bar tail, never bar 0
  // (the advance starts at bar 1). A run and this rebuild read from bar head C - 1 on.
  size_t from = std::max<size_t>(rows_kept_from(), 1);
  if (bars_.kept_from() > 0) from = std::max(from, bars_.kept_from() + 1);
  if (rolled_ > ring_len_) from = std::max(from, rolled_ - ring_len_);
  for (size_t t = from; t < rolled_;) {
    const size_t to = std::min(rolled_, t + batch_);
    stage_bars(t, to);
    enqueue_copies(to - t);
    launch_stream_scatter(step_.data(), staged_cols_.data(), staged_bars_.data(),
                          static_cast<long long>(to - t), ring_, s);
    WFOD_CUDA_CHECK(cudaStreamSynchronize(s));  // the pinned staging is reused
    t = to;
  }
  // The completed chunks [lo, cur), in the pieces the rolls cut them in.
  if (lo < cur) {
    std::vector<long long> bounds{static_cast<long long>(std::max<size_t>(lo * C, 1))};
    auto it = std::upper_bound(roll_starts_.begin(), roll_starts_.end(),
                               static_cast<size_t>(bounds.back()));
    for (size_t j = lo; j < cur; ++j) {
      const size_t close = (j + 1) * C;
      for (; it != roll_starts_.end() && *it < close; ++it)
        if (static_cast<long long>(*it) > bounds.back())
          bounds.push_back(static_cast<long long>(*it));
      bounds.push_back(static_cast<long long>(close));
    }
    DeviceBuffer<long long> device_bounds(bounds.size());
    WFOD_CUDA_CHECK(cudaMemcpyAsync(device_bounds.data(), bounds.data(),
                                    bounds.size() * sizeof(long long), cudaMemcpyHostToDevice, s));
    for (const auto& kind : kinds_)
      launch_stream_rebuild(kind, tables_.view, ring_, arrays_, device_bounds.data(),
                            static_cast<long long>(bounds.size() - 1), s);
    WFOD_CUDA_CHECK(cudaStreamSynchronize(s));  // before device_bounds goes
  }
  // The suffix combines of [lo, split) and the head chunk's cache, by the advance's kernels.
  StreamStep& st = host_step_[0];
  st = StreamStep{};
  const size_t fold_to = std::min(split, cur);
  st.do_flip = fold_to > lo;
  st.flip_from = static_cast<long long>(lo);
  st.flip_to = static_cast<long long>(fold_to);
  const size_t cached = schedule_.cached_head();
  st.do_cache_head =
      cached != detail::WindowSchedule::kNoHead && cached >= std::max(first, head) && cached < cur;
  st.head = st.do_cache_head ? static_cast<long long>(cached) : 0;
  WFOD_CUDA_CHECK(cudaMemcpyAsync(step_.data(), host_step_.data(), sizeof(StreamStep),
                                  cudaMemcpyHostToDevice, s));
  if (st.do_flip) launch_stream_flip(tables_.view, arrays_, step_.data(), s);
  if (st.do_cache_head)
    for (const auto& kind : kinds_)
      launch_stream_cache_head(kind, tables_.view, ring_, arrays_, step_.data(), s);
  WFOD_CUDA_CHECK(cudaStreamSynchronize(s));  // host_step_ is pinned and reused
}

std::unique_ptr<CudaStream> CudaStream::restore(const StreamSpec& spec,
                                                std::span<const uint8_t> blob) {
  const auto start = std::chrono::steady_clock::now();
  auto stream = std::make_unique<CudaStream>(spec, HistoryView{});
  stream->load(blob);
  stream->open_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stream;
}

std::unique_ptr<Stream> restore_cuda_stream(const StreamSpec& spec, std::span<const uint8_t> blob) {
  return CudaStream::restore(spec, blob);
}

}  // namespace wfod::cuda
