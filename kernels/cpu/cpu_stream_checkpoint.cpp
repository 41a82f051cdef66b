// CPU stream checkpoints (Stream::checkpoint, Backend::restore_stream): what a stream holds
// that its spec does not determine and that it cannot recompute exactly from the bars it
// keeps, so that a restored stream's every later advance and query is bit-identical to the
// uninterrupted stream's. Layout (host byte order, recorded; docs/engine.md "Checkpoints"):
//   "WFODSTRM", u32 version, u32 byte-order mark, string backend ("cpu"),
//   u64 spec fingerprint, string spec text (what the fingerprint hashes),
//   u64 bars, i64 last ts, u64 window, chunk, ring, sub-chunks, combo slots, rows, look-back,
//   u64 schedule split, cached head,
//   bar tail (StreamBars::save), indicator rows (RollingIndicators::save),
//   per combo slot: state, [its stop state,] tail Summary, back Summary,
//   per combo slot: the start states of the kept chunks [horizon / C, rolled / C],
//   [per combo slot: the stop states of those chunks,]
//   u64 checksum of all the bytes before it (blob_checksum).
// The [stop states] are there when some combo's stops act (SPEC §5b; the spec text names the
// stop axes): r_{t-1}, the stopped side, the trade's entry price and extreme (18 bytes).
// Version 3 leaves out the ring's chunk Summaries and the head chunk's sub-chunk cache (~60
// of the ~62 Summaries a combo held at W = 20,000: 9.5 kB a combo, 1.3 GB for 138K combos,
// which a stop wrote and synced; issue 43 item 6). A completed chunk's Summary is its
// one-pass summary from its start state (cpu_stream.cpp, roll_group), so the restore replays
// the window's chunks and the head chunk from their stored start states and the kept bars,
// rebuilds the two-stack aggregate's suffix combines as the flip made them, and gets every
// value to the bit: a restore costs about one pass over the window (W + C bars per combo).
// Version 4 adds the stop states. Other versions are refused (the daemon then replays from the
// bar log).
// Restore builds the stream from the spec, then reads the blob over it, checking every size
// against the spec and every value that could steer a later read.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#include "cpu_stream.hpp"
#include "cpu_stream_impl.hpp"
#include "src/blob_io.hpp"
#include "src/stream_blob.hpp"
#include "src/stream_spec_text.hpp"
#include "src/thread_count.hpp"
#include "wfod/detail/summary_fields.hpp"

namespace wfod::cpu {
namespace {

// Version 2: Summary carries head_abs, tail_abs (SPEC v1.2 §6). 3: chunk start states instead
// of chunk Summaries and the head cache (recomputed on restore). 4: the stop states (§5b).
constexpr detail::StreamBlobFormat kFormat{"WFODSTRM", 4, "cpu",
                                           "grid, fill, costs, window or chunk"};
constexpr uint64_t kMaxBars = uint64_t{1} << 48;  // far beyond any history, far from overflow

// Summaries as fixed records in the order of summary_fields.hpp: the counts, the reals, then
// the flags a byte each (no padding bytes; booleans and positions checked on load).
constexpr size_t kSummaryBytes =
    8 * (detail::kSummaryCounts + detail::kSummaryReals) + detail::kSummaryFlags;

void put_summary(uint8_t* out, const Summary& s) {
  size_t o = 0;
  auto put = [&](const auto& v) {
    std::memcpy(out + o, &v, sizeof v);
    o += sizeof v;
  };
  detail::for_each_summary_count(s, put);
  detail::for_each_summary_real(s, put);
  detail::for_each_summary_flag(s, [&](auto v) { put(static_cast<uint8_t>(v)); });
}

bool is_position(int8_t p) { return p >= -1 && p <= 1; }

Summary get_summary(const uint8_t* in, const detail::BlobReader& r) {
  Summary s;
  size_t o = 0;
  auto get = [&](auto& v) {
    std::memcpy(&v, in + o, sizeof v);
    o += sizeof v;
  };
  detail::for_each_summary_count(s, get);
  detail::for_each_summary_real(s, get);
  bool flags_ok = true;
  detail::for_each_summary_flag(s, [&](auto& v) {
    uint8_t byte;
    get(byte);
    if constexpr (std::is_same_v<std::remove_reference_t<decltype(v)>, bool>) {
      flags_ok = flags_ok && byte <= 1;
      v = byte == 1;
    } else {
      v = static_cast<int8_t>(byte);
      flags_ok = flags_ok && is_position(v);
    }
  });
  // Counts are bar counts: bounded like the stream's bars, so joins cannot overflow.
  bool counts_ok = true;
  detail::for_each_summary_count(s, [&](int64_t v) {
    counts_ok = counts_ok && v >= 0 && static_cast<uint64_t>(v) <= kMaxBars;
  });
  if (!flags_ok || !counts_ok)
    r.fail("a chunk summary holds impossible counts, flags or positions");
  return s;
}

void put_summaries(detail::BlobWriter& w, const std::vector<Summary>& v) {
  std::vector<uint8_t> buf(v.size() * kSummaryBytes);
  for (size_t i = 0; i < v.size(); ++i) put_summary(buf.data() + i * kSummaryBytes, v[i]);
  w.put_array(std::span<const uint8_t>(buf));
}

void get_summaries(detail::BlobReader& r, std::vector<Summary>& v, const char* what) {
  const std::span<const uint8_t> in = r.get_bytes(v.size() * kSummaryBytes, what);
  for (size_t i = 0; i < v.size(); ++i) v[i] = get_summary(in.data() + i * kSummaryBytes, r);
}

void put_states(detail::BlobWriter& w, const std::vector<LaneState>& v) {
  std::vector<int8_t> buf(2 * v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    buf[2 * i] = v[i].p2;
    buf[2 * i + 1] = v[i].p1;
  }
  w.put_array(std::span<const int8_t>(buf));
}

void get_states(detail::BlobReader& r, std::vector<LaneState>& v, const char* what) {
  const std::span<const uint8_t> in = r.get_bytes(2 * v.size(), what);
  for (size_t i = 0; i < v.size(); ++i) {
    const auto p2 = static_cast<int8_t>(in[2 * i]), p1 = static_cast<int8_t>(in[2 * i + 1]);
    if (!is_position(p2) || !is_position(p1))
      r.fail(std::string(what) + " holds a position outside {-1, 0, 1}");
    v[i] = {p2, p1};
  }
}

// Stop states as 18-byte records: r_{t-1}, the stopped side, then the entry price and the
// extreme by their bits.
constexpr size_t kStopStateBytes = 2 + 2 * sizeof(double);

void put_stop_states(detail::BlobWriter& w, const std::vector<StopState>& v) {
  std::vector<uint8_t> buf(v.size() * kStopStateBytes);
  for (size_t i = 0; i < v.size(); ++i) {
    uint8_t* out = buf.data() + i * kStopStateBytes;
    out[0] = static_cast<uint8_t>(v[i].r1);
    out[1] = static_cast<uint8_t>(v[i].stopped);
    std::memcpy(out + 2, &v[i].entry, sizeof(double));
    std::memcpy(out + 2 + sizeof(double), &v[i].extreme, sizeof(double));
  }
  w.put_array(std::span<const uint8_t>(buf));
}

void get_stop_states(detail::BlobReader& r, std::vector<StopState>& v, const char* what) {
  const std::span<const uint8_t> in = r.get_bytes(v.size() * kStopStateBytes, what);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint8_t* at = in.data() + i * kStopStateBytes;
    StopState st;
    st.r1 = static_cast<int8_t>(at[0]);
    st.stopped = static_cast<int8_t>(at[1]);
    std::memcpy(&st.entry, at + 2, sizeof(double));
    std::memcpy(&st.extreme, at + 2 + sizeof(double), sizeof(double));
    v[i] = st;
  }
}

// Whether a stop state fits the lane state beside it (SPEC §5b): r_{t-1} and the stopped side
// are positions, a stop holds p_{t-1} = 0 with r_{t-1} on the stopped side, and otherwise
// p_{t-1} = r_{t-1}; the prices are finite. A lane whose stops do not act (or no combo's)
// holds the zero state.
bool stop_state_fits(const StopState& st, const LaneState& ls, bool stop_lane) {
  if (!stop_lane) {
    const StopState zero;
    return std::memcmp(&st.entry, &zero.entry, sizeof(double)) == 0 &&
           std::memcmp(&st.extreme, &zero.extreme, sizeof(double)) == 0 && st.r1 == 0 &&
           st.stopped == 0;
  }
  if (!is_position(st.r1) || !is_position(st.stopped)) return false;
  if (!std::isfinite(st.entry) || !std::isfinite(st.extreme)) return false;
  return st.stopped != 0 ? st.r1 == st.stopped && ls.p1 == 0 : ls.p1 == st.r1;
}

}  // namespace

// Whether combo slot c holds a combo whose stops act (a lane of a stop group, not padding).
bool CpuStream::stop_lane(size_t c) const {
  const Group& g = groups_[c / kLanes];
  return g.stops && static_cast<int>(c % kLanes) < g.lanes;
}

// The kept chunks [horizon / C, rolled / C]: the ring's, whose start states are valid.
std::pair<size_t, size_t> CpuStream::kept_chunks() const {
  return {horizon() / chunk_, rolled_ / chunk_ + 1};
}

std::vector<uint8_t> CpuStream::checkpoint() const {
  detail::BlobWriter w;
  const size_t slots = combos();
  const auto [first, end] = kept_chunks();
  w.reserve(256 + (bars_.end() - bars_.kept_from()) * 56 +
            (rows_.bars() - rows_kept_from() + 64) * rows_.row_count() * 8 +
            slots * (2 * kSummaryBytes + 2 * (end - first) + 2) +
            (stops_ ? slots * (end - first + 1) * kStopStateBytes : 0));
  const std::string text = detail::stream_spec_text(spec_, chunk_);
  detail::put_stream_blob_header(w, kFormat, text);
  w.put(static_cast<uint64_t>(bars_.end()));
  w.put(bars_.last_ts());
  for (size_t v : {spec_.window, chunk_, ring_, subs_, slots, rows_.row_count(), rows_.lookback()})
    w.put(static_cast<uint64_t>(v));
  w.put(static_cast<uint64_t>(schedule_.split()));
  w.put(static_cast<uint64_t>(schedule_.cached_head()));
  bars_.save(w);
  rows_.save(w, rows_kept_from());
  put_states(w, state_);
  if (stops_) put_stop_states(w, stop_state_);
  put_summaries(w, tail_);
  put_summaries(w, back_);
  std::vector<LaneState> starts;
  starts.reserve(slots * (end - first));
  for (size_t c = 0; c < slots; ++c)
    for (size_t j = first; j < end; ++j) starts.push_back(chunk_start_[slot(c, j)]);
  put_states(w, starts);
  if (stops_) {
    std::vector<StopState> stops;
    stops.reserve(slots * (end - first));
    for (size_t c = 0; c < slots; ++c)
      for (size_t j = first; j < end; ++j) stops.push_back(chunk_stop_[slot(c, j)]);
    put_stop_states(w, stops);
  }
  w.put(detail::blob_checksum(w.bytes()));
  return std::move(w.bytes());
}

// What the checkpoint leaves out, from the chunk start states and the kept bars, exactly as
// the uninterrupted stream holds it wherever a later run reads it:
//  - the one-pass Summary of every completed chunk a window can still take as its middle,
//    (head, rolled / C) for the newest window's head chunk (older ones are never read);
//  - the front stack's suffix combines below the schedule's split, folded right to left from
//    the split as flip() did (flip's range started at the head + 1 of its window, and every
//    later read is at a later head + 1, so the fold from `lo` gives every value it reads);
//  - the cached head chunk's sub-chunk states and suffixes, when a later window can use it.
void CpuStream::rebuild() {
  const auto [first, end] = kept_chunks();
  const size_t cur = end - 1, bars = bars_.end();
  const size_t head = bars >= spec_.window ? (bars - spec_.window) / chunk_ : 0;
  const size_t lo = std::max(first, head + 1), split = schedule_.split();
  const BarTables tables = bars_.tables(spec_.strategy.costs.per_unit());
  parallel_for(groups_.size(), threads_, [&](int, size_t g) {
    const size_t base = g * kLanes;
    const int lanes = groups_[g].lanes;
    Summary part[kLanes];
    for (size_t j = lo; j < cur; ++j) {
      whole_chunk(tables, g, j, part);
      for (int i = 0; i < lanes; ++i) chunk_sum_[sum_slot(base + size_t(i), j)] = part[i];
    }
    for (int i = 0; i < lanes; ++i) {
      Summary acc;
      for (size_t j = std::min(split, cur); j-- > lo;) {
        acc = combine(chunk_sum_[sum_slot(base + size_t(i), j)], acc);
        chunk_sum_[sum_slot(base + size_t(i), j)] = acc;
      }
    }
  });
  const size_t cached = schedule_.cached_head();
  if (cached != detail::WindowSchedule::kNoHead && cached >= std::max(first, head) && cached < cur)
    cache_head(tables, cached);
}

void CpuStream::load(std::span<const uint8_t> blob) {
  detail::BlobReader r(blob);
  detail::check_stream_blob_header(r, blob, kFormat, detail::stream_spec_text(spec_, chunk_));
  const uint64_t bars = r.get<uint64_t>("bar count");
  const int64_t last_ts = r.get<int64_t>("last ts");
  const size_t want[] = {spec_.window,      chunk_,          ring_, subs_, combos(),
                         rows_.row_count(), rows_.lookback()};
  const char* names[] = {"window",      "chunk", "ring",     "sub-chunks",
                         "combo slots", "rows",  "look-back"};
  detail::read_stream_layout(r, want, names, bars, chunk_, schedule_);

  // The kept ranges are functions of the bar count: the bars a stream of that many bars holds.
  rolled_ = std::max<size_t>(static_cast<size_t>(bars), 1);
  bars_.load(r, static_cast<size_t>(bars), bars_kept_from(static_cast<size_t>(bars)));
  if (bars_.last_ts() != last_ts) r.fail("the last kept bar's ts is not the header's last ts");
  rows_.load(r, static_cast<size_t>(bars), rows_kept_from());
  reserve_memory();  // load() replaced the bar columns
  refresh_inputs();
  get_states(r, state_, "combo states");
  if (stops_) {
    get_stop_states(r, stop_state_, "combo stop states");
    for (size_t c = 0; c < combos(); ++c)
      if (!stop_state_fits(stop_state_[c], state_[c], stop_lane(c)))
        r.fail("combo slot " + std::to_string(c) + "'s stop state does not fit its positions");
  }
  get_summaries(r, tail_, "tail summaries");
  get_summaries(r, back_, "back summaries");
  const auto [first, end] = kept_chunks();
  std::vector<LaneState> starts(combos() * (end - first));
  get_states(r, starts, "chunk start states");
  for (size_t c = 0, k = 0; c < combos(); ++c)
    for (size_t j = first; j < end; ++j) chunk_start_[slot(c, j)] = starts[k++];
  if (stops_) {
    std::vector<StopState> stops(combos() * (end - first));
    get_stop_states(r, stops, "chunk stop states");
    for (size_t c = 0, k = 0; c < combos(); ++c) {
      for (size_t j = first; j < end; ++j, ++k) {
        if (!stop_state_fits(stops[k], starts[k], stop_lane(c)))
          r.fail("combo slot " + std::to_string(c) + "'s stop state entering chunk " +
                 std::to_string(j) + " does not fit its positions");
        chunk_stop_[slot(c, j)] = stops[k];
      }
    }
  }
  if (r.left() != 8)
    r.fail(std::to_string(r.left() - 8) + " bytes left over after the last section");
  rebuild();
}

std::unique_ptr<CpuStream> CpuStream::restore(const StreamSpec& spec, std::span<const uint8_t> blob,
                                              size_t slice) {
  const auto start = std::chrono::steady_clock::now();
  auto stream = std::make_unique<CpuStream>(spec, HistoryView{}, slice);
  stream->load(blob);
  stream->open_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stream;
}

std::unique_ptr<Stream> restore_cpu_stream(const StreamSpec& spec, std::span<const uint8_t> blob) {
  return CpuStream::restore(spec, blob);
}

}  // namespace wfod::cpu
