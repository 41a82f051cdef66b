// CUDA stream checkpoints (Stream::checkpoint, Backend::restore_stream): everything the stream
// holds that its spec does not determine, so that a restored stream's every later advance and
// query is bit-identical to the uninterrupted stream's. Unlike the cpu stream's version 3+
// (which recomputes the chunk Summaries from the start states), this writes the device's
// caches as they are: the device's combine order is its own, and copying the words back is
// the simplest restore that is exact by construction. Layout (host byte order, recorded;
// docs/engine.md "Checkpoints"):
//   "WFODSTRM", u32 version, u32 byte-order mark, string backend ("cuda"),
//   u64 spec fingerprint, string spec text (src/stream_spec_text.hpp),
//   u64 bars, i64 last ts, u64 window, chunk, ring slots, sub-chunks, combo ids, rows,
//   look-back, ring bars, u64 schedule split, cached head,
//   bar tail (StreamBars::save), indicator rows (RollingIndicators::save),
//   device arrays, raw: state (n), tail, back (n Summaries as columns), chunk Summaries
//   (ring slots x n), chunk start states (ring slots x n), head sub-chunk suffixes and start
//   states (sub-chunks x n), the ring's indicator columns and bar tables,
//   u64 checksum of all the bytes before it (blob_checksum).
// Restore builds the stream from the spec (allocating as open does), then reads the blob over
// it, checking every size against the spec and every position state.
#include <chrono>
#include <cstring>
#include <string>

#include "cuda_stream_impl.cuh"
#include "src/blob_io.hpp"
#include "src/stream_blob.hpp"
#include "src/stream_spec_text.hpp"

namespace wfod::cuda {
namespace {

// Version 1: the cuda stream's own numbering (backend "cuda").
constexpr detail::StreamBlobFormat kFormat{"WFODSTRM", 1, "cuda",
                                           "grid, fill, costs, window or chunk"};

template <typename T>
void put_device(detail::BlobWriter& w, const DeviceBuffer<T>& buf, size_t count) {
  const std::vector<T> host = buf.download(count);
  w.put_array(std::span<const T>(host));
}

template <typename T>
void get_device(detail::BlobReader& r, DeviceBuffer<T>& buf, size_t count, const char* what) {
  const std::span<const uint8_t> in = r.get_bytes(count * sizeof(T), what);
  std::vector<T> host(count);
  if (count) std::memcpy(host.data(), in.data(), count * sizeof(T));
  if (count)
    WFOD_CUDA_CHECK(cudaMemcpy(buf.data(), host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
}

bool is_position(int8_t p) { return p >= -1 && p <= 1; }

void get_states(detail::BlobReader& r, DeviceBuffer<PositionState>& buf, size_t count,
                const char* what) {
  const std::span<const uint8_t> in = r.get_bytes(count * sizeof(PositionState), what);
  std::vector<PositionState> host(count);
  for (size_t i = 0; i < count; ++i) {
    host[i].p2 = static_cast<int8_t>(in[2 * i]);
    host[i].p1 = static_cast<int8_t>(in[2 * i + 1]);
    if (!is_position(host[i].p2) || !is_position(host[i].p1))
      r.fail(std::string(what) + " holds a position outside {-1, 0, 1}");
  }
  if (count)
    WFOD_CUDA_CHECK(
        cudaMemcpy(buf.data(), host.data(), count * sizeof(PositionState), cudaMemcpyHostToDevice));
}

}  // namespace

static_assert(sizeof(PositionState) == 2, "checkpoints store a position state as two bytes");

std::vector<uint8_t> CudaStream::checkpoint() const {
  WFOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  constexpr size_t W = SummaryColumns::kWords;
  const size_t n = n_, R = static_cast<size_t>(ring_slots_), S = static_cast<size_t>(subs_);
  detail::BlobWriter w;
  w.reserve(256 + (bars_.end() - bars_.kept_from()) * 56 +
            (rows_.bars() - rows_kept_from() + 64) * rows_.row_count() * 8 +
            n * (2 * (1 + R + S) + 8 * W * (2 + R + S)) +
            ((ring_len_ + 1) * static_cast<size_t>(rows_count_) + 3 * ring_len_) * 8);
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
  put_device(w, state_, n);
  put_device(w, tail_, W * n);
  put_device(w, back_, W * n);
  put_device(w, chunk_sum_, W * n * R);
  put_device(w, chunk_start_, n * R);
  put_device(w, head_suffix_, W * n * S);
  put_device(w, head_start_, n * S);
  put_device(w, ring_m_, (ring_len_ + 1) * static_cast<size_t>(rows_count_));
  put_device(w, ring_bars_, 3 * ring_len_);
  w.put(detail::blob_checksum(w.bytes()));
  return std::move(w.bytes());
}

void CudaStream::load(std::span<const uint8_t> blob) {
  detail::BlobReader r(blob);
  detail::check_stream_blob_header(r, blob, kFormat, detail::stream_spec_text(spec_, chunk_));
  const uint64_t bars = r.get<uint64_t>("bar count");
  const int64_t last_ts = r.get<int64_t>("last ts");
  constexpr size_t W = SummaryColumns::kWords;
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
  get_states(r, state_, n, "combo states");
  get_device(r, tail_, W * n, "tail summaries");
  get_device(r, back_, W * n, "back summaries");
  get_device(r, chunk_sum_, W * n * R, "chunk summaries");
  get_states(r, chunk_start_, n * R, "chunk start states");
  get_device(r, head_suffix_, W * n * S, "head sub-chunk suffixes");
  get_states(r, head_start_, n * S, "head sub-chunk start states");
  get_device(r, ring_m_, (ring_len_ + 1) * static_cast<size_t>(rows_count_), "ring columns");
  get_device(r, ring_bars_, 3 * ring_len_, "ring bar tables");
  if (r.left() != 8)
    r.fail(std::to_string(r.left() - 8) + " bytes left over after the last section");
  WFOD_CUDA_CHECK(cudaDeviceSynchronize());
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
