// CUDA stream kernels: per combo, the same per-bar evaluation as the sweep's plain evaluator
// (SPEC §2 segments, §6 statistics), but from an explicit state instead of a backward scan,
// over the history ring; chunk bookkeeping as in kernels/cpu/cpu_stream.cpp.
#include <type_traits>

#include "cuda_check.cuh"
#include "rank_device.cuh"
#include "stream_kernels.cuh"
#include "tally.cuh"
#include "wfod/detail/summary_fields.hpp"
#include "wfod/detail/summary_math.hpp"

namespace wfod::cuda {

// Word order: the counts, the reals, then the flags packed a byte each into one word (the
// lists of summary_fields.hpp).
__device__ Summary SummaryColumns::get(unsigned long long id) const {
  const unsigned long long* w = words + id;
  unsigned long long f = 0;
  auto next = [&] { return w[f++ * n]; };
  Summary s;
  detail::for_each_summary_count(s, [&](int64_t& v) { v = static_cast<int64_t>(next()); });
  detail::for_each_summary_real(
      s, [&](double& v) { v = __longlong_as_double(static_cast<long long>(next())); });
  const unsigned long long flags = next();
  int shift = 0;
  detail::for_each_summary_flag(s, [&](auto& v) {
    v = static_cast<std::remove_reference_t<decltype(v)>>(static_cast<uint8_t>(flags >> shift));
    shift += 8;
  });
  return s;
}

__device__ void SummaryColumns::set(unsigned long long id, const Summary& s) const {
  unsigned long long* w = words + id;
  unsigned long long f = 0;
  auto put = [&](unsigned long long v) { w[f++ * n] = v; };
  detail::for_each_summary_count(s, [&](int64_t v) { put(static_cast<unsigned long long>(v)); });
  detail::for_each_summary_real(
      s, [&](double v) { put(static_cast<unsigned long long>(__double_as_longlong(v))); });
  unsigned long long flags = 0;
  int shift = 0;
  detail::for_each_summary_flag(s, [&](auto v) {
    flags |= static_cast<unsigned long long>(static_cast<uint8_t>(v)) << shift;
    shift += 8;
  });
  put(flags);
}

namespace {

template <int Family, bool Cross, bool Vol>
__device__ inline double decide_ring(const DeviceCombo& c, const RingView& r, long long t,
                                     double held) {
  const long long slot = t & r.mask;
  return next_at<Family, Cross, Vol>(c, r.m + slot * r.rows, r.rows, r.close[slot], t, held);
}

// Decisions only over [start, first) from `st` (entering start), then the Summary of
// [first, last); `st` ends as the state entering `last`. 1 <= start <= first <= last.
template <int Family, bool Cross, bool Vol>
__device__ Summary run_from(const DeviceCombo& c, const RingView& r, PositionState& st,
                            long long start, long long first, long long last) {
  double p2 = st.p2, p1 = st.p1;
  for (long long t = start; t < first; ++t) {
    const double next = decide_ring<Family, Cross, Vol>(c, r, t, p1);
    p2 = p1;
    p1 = next;
  }
  const double head_pos = p2;
  RangeWalk<false> walk;
  for (long long t = first; t < last; ++t) {
    const long long slot = t & r.mask;
    const double b = p1;
    walk.bar(p2, b, r.gap[slot], r.body[slot], r.cost);
    p2 = b;
    p1 = decide_ring<Family, Cross, Vol>(c, r, t, b);
  }
  st.p2 = static_cast<int8_t>(p2);
  st.p1 = static_cast<int8_t>(p1);
  return walk.summary(first, last, head_pos, p2);
}

__device__ inline unsigned long long thread_id() {
  return static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

template <int Family, bool Cross>
__device__ inline bool mine(const DeviceCombo& c) {
  return c.valid && (Family != kMaCross || c.cross == Cross);
}

__global__ void scatter_kernel(const StreamStep* step, const double* columns, const double* bars,
                               long long count, RingView r) {
  const unsigned long long i = thread_id();
  const unsigned long long cells = static_cast<unsigned long long>(count) * r.rows;
  if (i < cells) {
    const long long col = static_cast<long long>(i / r.rows);
    const int row = static_cast<int>(i % r.rows);
    const long long slot = (step->rolled + col) & r.mask;
    const double v = columns[i];
    r.m[slot * r.rows + row] = v;
    if (slot == r.mask) r.m[-r.rows + row] = v;  // the mirror before slot 0
  }
  if (i < static_cast<unsigned long long>(count)) {
    const long long slot = (step->rolled + static_cast<long long>(i)) & r.mask;
    r.gap[slot] = bars[3 * i];
    r.body[slot] = bars[3 * i + 1];
    r.close[slot] = bars[3 * i + 2];
  }
}

// Bars [step.rolled, step.end) of one combo: state and tail advance, chunks close at
// multiples of C (their Summary and the next chunk's start state stored, back extended).
// `back` is read and written (in memory) only when a chunk closes: rare at k = 1.
template <int Family, bool Cross, bool Vol>
__device__ void roll_one(const DeviceCombo& c, const RingView& r, const StreamArrays& a,
                         unsigned long long id, const StreamStep& step, PositionState& st,
                         Summary& tail) {
  const long long C = a.chunk;
  for (long long t = step.rolled; t < step.end;) {
    const long long stop = min(step.end, (t / C + 1) * C);
    tail = detail::combine_hd(tail, run_from<Family, Cross, Vol>(c, r, st, t, t, stop));
    if (stop % C == 0) {
      const long long done = stop / C - 1;
      a.chunk_sum.slot(done % a.ring).set(id, tail);
      a.back.set(id, detail::combine_hd(a.back.get(id), tail));
      tail = Summary{};
      a.chunk_start[((done + 1) % a.ring) * a.n + id] = st;
    }
    t = stop;
  }
}

// The window [step.first, step.end) of one combo from its caches (tail and back given).
template <int Family, bool Cross, bool Vol>
__device__ Summary window_one(const DeviceCombo& c, const RingView& r, const StreamArrays& a,
                              unsigned long long id, const StreamStep& step, const Summary& tail) {
  const long long head = step.head;
  PositionState st = step.in_one_chunk ? a.chunk_start[(head % a.ring) * a.n + id]
                                       : a.head_start[step.sub_index * a.n + id];
  Summary w =
      run_from<Family, Cross, Vol>(c, r, st, max(step.sub_start, 1ll), step.first, step.sub_end);
  if (step.in_one_chunk) return w;
  if (step.has_suffix) w = detail::combine_hd(w, a.head_suffix.slot(step.sub_index + 1).get(id));
  if (step.has_middle)
    w = detail::combine_hd(
        w, detail::combine_hd(a.chunk_sum.slot((head + 1) % a.ring).get(id), a.back.get(id)));
  return detail::combine_hd(w, tail);
}

template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kBlock)
    roll_kernel(GridTables g, RingView r, StreamArrays a, const StreamStep* step_ptr) {
  const unsigned long long id = thread_id();
  if (id >= a.n) return;
  const DeviceCombo c = decode_combo(g, id);
  if (!mine<Family, Cross>(c)) return;
  const StreamStep step = *step_ptr;
  PositionState st = a.state[id];
  Summary tail = a.tail.get(id);
  roll_one<Family, Cross, Vol>(c, r, a, id, step, st, tail);
  a.state[id] = st;
  a.tail.set(id, tail);
}

// A restore's chunk Summaries (cuda_stream_checkpoint.cu): bars [bounds[0], bounds[pieces]) of
// one combo replayed from the start state of bounds[0]'s chunk, piece by piece as the advance's
// rolls took them (each piece [bounds[k], bounds[k + 1]) within one chunk), through roll_one:
// each completed chunk's Summary (the tail's running combine at its close) and the next
// chunk's start state are stored as the roll stored them, bit for bit. The state and tail
// stay local, and back is written as the roll writes it: the caller sets the three after.
template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kBlock)
    rebuild_kernel(GridTables g, RingView r, StreamArrays a, const long long* bounds,
                   long long pieces) {
  const unsigned long long id = thread_id();
  if (id >= a.n || pieces < 1) return;
  const DeviceCombo c = decode_combo(g, id);
  if (!mine<Family, Cross>(c)) return;
  PositionState st = a.chunk_start[((bounds[0] / a.chunk) % a.ring) * a.n + id];
  Summary tail{};
  StreamStep step{};
  for (long long k = 0; k < pieces; ++k) {
    step.rolled = bounds[k];
    step.end = bounds[k + 1];
    roll_one<Family, Cross, Vol>(c, r, a, id, step, st, tail);
  }
}

// Block Summaries of the window (robust selection on a bounded stream, Stream::block_summaries):
// ids [id0, id0 + count) of one kind, each from the start state of the chunk holding
// edges[0] (the window's head chunk, which the ring holds from its first bar), decisions only
// up to edges[0], then the Summary of every block [edges[b], edges[b + 1]) in turn, carrying
// the state across: out[(id - id0) * blocks + b]. Invalid ids get identity Summaries.
template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kBlock)
    blocks_kernel(GridTables g, RingView r, StreamArrays a, const long long* edges, int blocks,
                  unsigned long long id0, unsigned long long count, Summary* out) {
  const unsigned long long i = thread_id();
  if (i >= count) return;
  const unsigned long long id = id0 + i;
  const DeviceCombo c = decode_combo(g, id);
  Summary* mine_out = out + i * static_cast<unsigned long long>(blocks);
  if (!c.valid) {
    for (int b = 0; b < blocks; ++b) mine_out[b] = Summary{};
    return;
  }
  if (!mine<Family, Cross>(c)) return;
  const long long head = edges[0] / a.chunk;
  PositionState st = a.chunk_start[(head % a.ring) * a.n + id];
  // Bar 0 has no return: a window cannot start before bar 1 (run_from's precondition).
  long long from = max(head * a.chunk, 1ll);
  for (int b = 0; b < blocks; ++b) {
    const long long first = max(edges[b], from);
    mine_out[b] = run_from<Family, Cross, Vol>(c, r, st, from, first, edges[b + 1]);
    from = edges[b + 1];
  }
}

__global__ void __launch_bounds__(kBlock)
    flip_kernel(GridTables g, StreamArrays a, const StreamStep* step) {
  const unsigned long long id = thread_id();
  if (!step->do_flip || id >= a.n || !decode_combo(g, id).valid) return;
  Summary acc;
  for (long long j = step->flip_to; j-- > step->flip_from;) {
    const SummaryColumns slot = a.chunk_sum.slot(j % a.ring);
    acc = detail::combine_hd(slot.get(id), acc);
    slot.set(id, acc);
  }
  a.back.set(id, Summary{});
}

template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kBlock)
    cache_head_kernel(GridTables g, RingView r, StreamArrays a, const StreamStep* step) {
  const unsigned long long id = thread_id();
  if (!step->do_cache_head || id >= a.n) return;
  const DeviceCombo c = decode_combo(g, id);
  if (!mine<Family, Cross>(c)) return;
  const long long head = step->head, C = a.chunk;
  PositionState st = a.chunk_start[(head % a.ring) * a.n + id];
  for (int i = 0; i < a.subs; ++i) {
    const long long from = head * C + i * a.sub;
    const long long to = min(from + a.sub, (head + 1) * C);
    a.head_start[i * a.n + id] = st;
    const long long start = max(from, 1ll);
    a.head_suffix.slot(i).set(id, run_from<Family, Cross, Vol>(c, r, st, start, start, to));
  }
  Summary acc = a.head_suffix.slot(a.subs - 1).get(id);
  for (int i = a.subs - 2; i >= 0; --i) {
    acc = detail::combine_hd(a.head_suffix.slot(i).get(id), acc);
    a.head_suffix.slot(i).set(id, acc);
  }
}

// The run, part 1 (per kernel kind): roll the new bars when `roll` (the steady state fuses
// the roll here), then each combo's window Summary into a.window.
template <int Family, bool Cross, bool Vol>
__global__ void __launch_bounds__(kBlock)
    window_kernel(GridTables g, RingView r, StreamArrays a, const StreamStep* step_ptr, int roll) {
  const unsigned long long id = thread_id();
  if (id >= a.n) return;
  const DeviceCombo c = decode_combo(g, id);
  if (!mine<Family, Cross>(c)) return;
  const StreamStep step = *step_ptr;
  Summary tail = a.tail.get(id);
  if (roll) {
    PositionState st = a.state[id];
    roll_one<Family, Cross, Vol>(c, r, a, id, step, st, tail);
    a.state[id] = st;
    a.tail.set(id, tail);
  }
  a.window.set(id, window_one<Family, Cross, Vol>(c, r, a, id, step, tail));
}

// The run, part 2 (all kinds at once): each valid combo's window ranked (SPEC §7), k
// candidates per block, counters and non-positive-equity fallbacks as the sweep's finalize.
__global__ void __launch_bounds__(kBlock)
    rank_kernel(GridTables g, SummaryColumns window, RankParams rp, int k, Candidate* block_out,
                Counters* counters, unsigned long long* fallback, unsigned int fallback_cap) {
  const unsigned long long id = thread_id();
  Candidate cand{0.0, kEmptyId};
  bool valid = false, ranked = false;
  const bool in_range = id < window.n;
  if (in_range) {
    valid = decode_combo(g, id).valid;
    if (valid) cand = rank_one(window.get(id), id, rp, fallback, fallback_cap, counters, &ranked);
  }
  count_block(in_range && valid, in_range && !valid, ranked, counters);
  block_topk(cand, k, block_out + static_cast<size_t>(blockIdx.x) * k);
}

__global__ void gather_kernel(const Candidate* candidates, int count, SummaryColumns window,
                              Summary* out) {
  const int i = static_cast<int>(thread_id());
  if (i >= count) return;
  const unsigned long long id = candidates[i].id;
  out[i] = id == kEmptyId ? Summary{} : window.get(id);
}

__global__ void fill_identity_kernel(SummaryColumns cols, int slots) {
  const unsigned long long id = thread_id();
  if (id >= cols.n) return;
  for (int i = 0; i < slots; ++i) cols.slot(i).set(id, Summary{});
}

unsigned blocks_for(unsigned long long threads) {
  return static_cast<unsigned>((threads + kBlock - 1) / kBlock);
}

}  // namespace

void launch_stream_scatter(const StreamStep* step, const double* staged_columns,
                           const double* staged_bars, long long count, RingView ring,
                           cudaStream_t stream) {
  const unsigned long long cells = static_cast<unsigned long long>(count) * ring.rows;
  scatter_kernel<<<blocks_for(cells > 0 ? cells : 1), kBlock, 0, stream>>>(
      step, staged_columns, staged_bars, count, ring);
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_stream_roll(const KernelKind& kind, const GridTables& g, RingView ring, StreamArrays a,
                        const StreamStep* step, cudaStream_t stream) {
  dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
    roll_kernel<decltype(fam)::value, decltype(cross)::value, decltype(vol)::value>
        <<<blocks_for(a.n), kBlock, 0, stream>>>(g, ring, a, step);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_stream_rebuild(const KernelKind& kind, const GridTables& g, RingView ring,
                           StreamArrays a, const long long* bounds, long long pieces,
                           cudaStream_t stream) {
  dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
    rebuild_kernel<decltype(fam)::value, decltype(cross)::value, decltype(vol)::value>
        <<<blocks_for(a.n > 0 ? a.n : 1), kBlock, 0, stream>>>(g, ring, a, bounds, pieces);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_stream_blocks(const KernelKind& kind, const GridTables& g, RingView ring,
                          StreamArrays a, const long long* edges, int blocks,
                          unsigned long long id0, unsigned long long count, Summary* out,
                          cudaStream_t stream) {
  dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
    blocks_kernel<decltype(fam)::value, decltype(cross)::value, decltype(vol)::value>
        <<<blocks_for(count > 0 ? count : 1), kBlock, 0, stream>>>(g, ring, a, edges, blocks, id0,
                                                                   count, out);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_stream_flip(const GridTables& g, StreamArrays a, const StreamStep* step,
                        cudaStream_t stream) {
  flip_kernel<<<blocks_for(a.n), kBlock, 0, stream>>>(g, a, step);
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_stream_cache_head(const KernelKind& kind, const GridTables& g, RingView ring,
                              StreamArrays a, const StreamStep* step, cudaStream_t stream) {
  dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
    cache_head_kernel<decltype(fam)::value, decltype(cross)::value, decltype(vol)::value>
        <<<blocks_for(a.n), kBlock, 0, stream>>>(g, ring, a, step);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_stream_window(const KernelKind& kind, const GridTables& g, RingView ring,
                          StreamArrays a, const StreamStep* step, bool roll, cudaStream_t stream) {
  dispatch_family(kind, [&](auto fam, auto cross, auto vol) {
    window_kernel<decltype(fam)::value, decltype(cross)::value, decltype(vol)::value>
        <<<blocks_for(a.n), kBlock, 0, stream>>>(g, ring, a, step, roll ? 1 : 0);
  });
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_stream_rank(const GridTables& g, SummaryColumns window, const RankParams& rp, int k,
                        Candidate* block_out, Counters* counters, unsigned long long* fallback,
                        unsigned int fallback_cap, cudaStream_t stream) {
  rank_kernel<<<blocks_for(window.n), kBlock, 0, stream>>>(g, window, rp, k, block_out, counters,
                                                           fallback, fallback_cap);
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_stream_fill_identity(SummaryColumns cols, int slots, cudaStream_t stream) {
  fill_identity_kernel<<<blocks_for(cols.n > 0 ? cols.n : 1), kBlock, 0, stream>>>(cols, slots);
  WFOD_CUDA_CHECK_LAUNCH();
}

void launch_stream_gather(const Candidate* candidates, int count, SummaryColumns window,
                          Summary* out, cudaStream_t stream) {
  gather_kernel<<<blocks_for(count > 0 ? count : 1), kBlock, 0, stream>>>(candidates, count, window,
                                                                          out);
  WFOD_CUDA_CHECK_LAUNCH();
}

}  // namespace wfod::cuda
