// Incremental re-optimisation on the CPU (open_stream; SPEC §3, §6). Bars are cut into chunks
// of C bars at fixed multiples of C from the anchor. Per combo the stream keeps its state
// (p_{t-2}, p_{t-1}) entering the newest bar, the Summary of the unfinished tail chunk, and
// a ring of the last ~W/C completed chunks: each chunk's state entering its first bar and
// its Summary. A window [T-W, T) is then
//   head  : the chunk holding T-W, cut in sub-chunks of c bars: once per chunk (when the
//           window's start enters it) the chunk is replayed from its start state, keeping
//           each sub-chunk's start state and the suffix combines of its sub-chunks; a run
//           then replays only the sub-chunk holding T-W (decisions up to T-W, summarised
//           from there, at most c bars) and joins the cached suffix after it;
//   middle: the completed chunks after it, as one Summary in O(1) amortised through a
//           two-stack sliding aggregate (suffix combines of the front, a running combine of
//           the back), because combine is associative but has no inverse (drawdown);
//   tail  : the running tail Summary.
// Positions never change once emitted (SPEC §2), so this equals a from-scratch sweep: the
// same trades, wins and bar counts, sums equal up to rounding (SPEC §6, §9). A combo whose
// stops act (SPEC §5b) carries its stop state (src/stop_rules.hpp) beside each stored
// state: a chunk replayed from its start state then takes every stop decision it took.
// Memory is bounded by the window, not by the bars advanced through: the ring's oldest
// chunk start is the horizon() a combo can be replayed from, and the bars (StreamBars) and
// indicator values (RollingIndicators) older than it, or than the indicators' look-back,
// are released. Long histories (open, or a large advance) go through in slices, so the
// transient storage stays bounded too.
#include "cpu_stream.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cpu_stream_impl.hpp"
#include "src/growth_refine.hpp"
#include "src/thread_count.hpp"
#include "wfod/segments.hpp"

namespace wfod::cpu {

namespace {

constexpr size_t kSubChunks = 16;  // a run replays at most chunk / kSubChunks bars per combo

template <typename T>
size_t bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

// Per indicator row, beside its state (RollingIndicators::most_state_bytes): its map node.
constexpr size_t kRowNodeBytes = 64;

}  // namespace

CpuStream::Layout CpuStream::layout_of(const StreamSpec& spec) {
  Layout l;
  l.chunk = spec.chunk ? spec.chunk : default_stream_chunk(spec.window);
  l.ring = (spec.window + l.chunk - 1) / l.chunk + 3;  // head chunk, middle, tail, slack
  // A window's middle is at most floor(W / C) chunks, and between two runs only the chunks
  // after the window's head are read or written (flip, roll, rebuild), so their Summaries need
  // a ring of floor(W / C) slots (one fewer fails the stream parity tests); one of slack. The
  // start states' ring reaches back to the horizon: 2 or 3 slots more.
  l.sums = spec.window / l.chunk + 1;
  l.sub = std::max<size_t>(1, l.chunk / kSubChunks);
  l.subs = (l.chunk + l.sub - 1) / l.sub;
  // Long histories (an open, a large advance) are extended in slices of W + 2C bars rounded up
  // to whole chunks, cut at multiples of the slice from the anchor (so at chunk boundaries: a
  // chunk is never cut by a slice, and the stream's state does not depend on the slice). The
  // indicator rows hold the ring's bars plus a slice; a slice at least as long as what the
  // ring keeps means a re-layout (which copies the kept bars) comes at most once a slice:
  // < 2 copied values per row and bar. Until issue 47 the slice was at least 4,096 bars
  // whatever the window, and the rows held twice (ring + 1) C + slice + look-back bars: at
  // W = 1,000 (C = 64) 12,774 bars a row where 3,521 now do, the same speed (bench/RESULTS.md).
  l.slice = (spec.window + 2 * l.chunk + l.chunk - 1) / l.chunk * l.chunk;
  return l;
}

// The most bars the indicator rows ever hold: the ring's chunks (from horizon() - 1, what
// extend() keeps) and a slice being added; plus a slice of room, so that re-layouts (which
// drop the released bars) come at most once a slice.
size_t CpuStream::Layout::row_span() const { return ring * chunk + 1 + 2 * slice; }

// The most the bar columns ever hold: the ring's chunks, the chunk being rolled, a slice being
// added and the indicators' look-back (reserve_memory() reserves twice that, StreamBars
// dropping its released bars in bulk once they outnumber the kept ones).
size_t CpuStream::Layout::most_bars(size_t lookback) const {
  return (ring + 1) * chunk + slice + lookback + 1;
}

// The size query (Backend::stream_memory): every vector the constructor sizes, at the size it
// gives it. Lane groups: the valid combos packed kLanes at a time, plus at most one partly
// filled group per kernel kind.
StreamMemory CpuStream::memory(const StreamSpec& spec) {
  if (spec.window < 1) throw std::invalid_argument("stream window must hold at least 1 bar");
  const Grid& grid = spec.strategy.grid;
  grid.validate();
  const Layout l = layout_of(spec);
  const ComboCount count = count_combos(grid);
  // A partly filled group per kind, and per kind with stops (LaneGrouper).
  const double groups = std::ceil(static_cast<double>(count.valid) / kLanes) + 2 * kFamilyKindCount;
  const double lanes = groups * kLanes;
  const double states = static_cast<double>(1 + l.ring + l.subs);
  const double summaries = static_cast<double>(2 + l.sums + (l.subs - 1));
  const double per_lane = sizeof(LaneState) * states +
                          (grid.has_stops() ? sizeof(StopState) * states : 0.0) +
                          sizeof(Summary) * summaries + sizeof(LaneInput);
  const RollingIndicators rows(grid);
  const double most = static_cast<double>(2 * l.most_bars(rows.lookback()));
  const double span = static_cast<double>(l.row_span());
  const double row_states = static_cast<double>(rows.most_state_bytes()) +
                            static_cast<double>(rows.row_count() * kRowNodeBytes);
  const double host = sizeof(CpuStream) + lanes * per_lane + groups * sizeof(Group) +
                      static_cast<double>(grid.size()) * sizeof(uint32_t) +
                      static_cast<double>(rows.row_count()) * span * sizeof(double) + row_states +
                      (most + 1024) * (sizeof(int64_t) + 6 * sizeof(double));
  StreamMemory m;
  m.host_bytes = host >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(host);
  return m;
}

CpuStream::CpuStream(const StreamSpec& spec, const HistoryView& history)
    : CpuStream(spec, history, 0) {}

CpuStream::CpuStream(const StreamSpec& spec, const HistoryView& history, size_t slice)
    : spec_(spec), bars_(spec.strategy.fill), rows_(spec.strategy.grid) {
  const auto start = std::chrono::steady_clock::now();
  if (spec_.window < 1) throw std::invalid_argument("stream window must hold at least 1 bar");
  spec_.strategy.grid.validate();
  const Layout layout = layout_of(spec_);
  chunk_ = layout.chunk;
  ring_ = layout.ring;
  sums_ = layout.sums;
  sub_ = layout.sub;
  subs_ = layout.subs;
  schedule_ = detail::WindowSchedule(chunk_, sub_, subs_);
  slice_ = slice ? slice : layout.slice;
  if (slice_ % chunk_) throw std::invalid_argument("a stream's slice must be whole chunks");
  threads_ = resolve_threads(spec_.threads);
  make_groups();
  const size_t combos = groups_.size() * kLanes;
  state_.assign(combos, LaneState{});
  tail_.assign(combos, Summary{});
  back_.assign(combos, Summary{});
  chunk_sum_.assign(combos * sums_, Summary{});
  chunk_start_.assign(combos * ring_, LaneState{});      // chunk 0 starts flat (p_{-1} = p_0 = 0)
  head_suffix_.assign(combos * (subs_ - 1), Summary{});  // sub-chunk 0's is never read
  head_start_.assign(combos * subs_, LaneState{});
  if (stops_) {
    stop_state_.assign(combos, StopState{});
    chunk_stop_.assign(combos * ring_, StopState{});
    head_stop_.assign(combos * subs_, StopState{});
  }
  reserve_memory();
  for (size_t from = 0; from < history.size(); from += slice_) {
    bars_.append(history, from, std::min(history.size(), from + slice_));
    extend();
  }
  open_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

SweepResult CpuStream::advance(std::span<const Bar> bars) {
  const auto start = std::chrono::steady_clock::now();
  bars_.check_order(bars);
  for (size_t i = 0, n = 0; i < bars.size(); i += n) {  // cut where the open's slices are
    n = std::min(slice_ - bars_.end() % slice_, bars.size() - i);
    bars_.append(bars.subspan(i, n));
    extend();
  }
  SweepResult result = optimise();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

StreamStats CpuStream::stats() const {
  StreamStats s;
  s.bars = bars_.end();
  s.chunk = chunk_;
  s.footprint_bytes = sizeof(*this) + bytes(state_) + bytes(tail_) + bytes(back_) +
                      bytes(chunk_sum_) + bytes(chunk_start_) + bytes(head_suffix_) +
                      bytes(head_start_) + bytes(stop_state_) + bytes(chunk_stop_) +
                      bytes(head_stop_) + bytes(groups_) + bytes(index_of_) + bytes(inputs_) +
                      rows_.footprint_bytes() + bars_.footprint_bytes();
  s.open_seconds = open_seconds_;
  return s;
}

// The ring holds the start states of chunks (cur - ring_, cur], cur the chunk of the next bar
// to roll: any combo can be replayed from the oldest of them.
size_t CpuStream::horizon() const {
  const size_t cur = rolled_ / chunk_;
  return (cur + 1 > ring_ ? cur + 1 - ring_ : 0) * chunk_;
}

// Layout::row_span and Layout::most_bars (twice), reserved once: the stream's memory is set
// by its window from the first bar instead of creeping up with the largest advance it has seen.
void CpuStream::reserve_memory() {
  Layout l = layout_of(spec_);
  l.slice = slice_;
  rows_.reserve_span(l.row_span());
  bars_.reserve(2 * l.most_bars(rows_.lookback()) + 1024);
  inputs_.reserve(groups_.size() * kLanes);  // filled at the first bar (refresh_inputs)
}

void CpuStream::make_groups() {
  const Grid& grid = spec_.strategy.grid;
  groups_ = group_valid_combos(grid);
  for (const Group& g : groups_) {
    evaluated_ += static_cast<uint64_t>(g.lanes);
    stops_ = stops_ || g.stops;
  }
  skipped_ = grid.size() - evaluated_;
  if (groups_.size() * kLanes > UINT32_MAX)
    throw std::invalid_argument("a stream holds at most 2^32 combos");
  index_of_.assign(grid.size(), UINT32_MAX);
  for (size_t g = 0; g < groups_.size(); ++g)
    for (int j = 0; j < groups_[g].lanes; ++j)
      index_of_[groups_[g].ids[j]] = static_cast<uint32_t>(g * kLanes + static_cast<size_t>(j));
}

// Lane inputs hold row offsets, which move when the indicator matrix is re-laid out.
void CpuStream::refresh_inputs() {
  if (!inputs_.empty() && inputs_version_ == rows_.layout_version()) return;
  inputs_.assign(groups_.size() * kLanes, LaneInput{});
  for (size_t g = 0; g < groups_.size(); ++g)
    for (int j = 0; j < groups_[g].lanes; ++j)
      inputs_[g * kLanes + static_cast<size_t>(j)] =
          lane_input(rows_, spec_.strategy.grid.decode(groups_[g].ids[j]));
  inputs_version_ = rows_.layout_version();
}

// Indicators and every combo's chunk summaries up to the newest bar, then the release of what
// no run or query reads any more.
void CpuStream::extend() {
  const size_t end = bars_.end();
  if (end > rows_.bars()) {
    rows_.append(bars_.view(), bars_.kept_from());
    refresh_inputs();
  }
  if (end > rolled_) {
    const BarTables tables = bars_.tables(spec_.strategy.costs.per_unit());
    parallel_for(groups_.size(), threads_, [&](int, size_t g) { roll_group(tables, g, end); });
    rolled_ = end;
  }
  rows_.release_before(rows_kept_from());
  bars_.release_before(bars_kept_from(end));
}

// Decisions from the horizon on read the rows from the bar before it (cross entries look one
// bar back) and the segments read its close; the indicator states read back lookback() bars
// of input. The window's head chunk lies after the horizon.
size_t CpuStream::rows_kept_from() const {
  const size_t h = horizon();
  return h ? h - 1 : 0;
}

size_t CpuStream::bars_kept_from(size_t end) const {
  const size_t lookback = rows_.lookback();
  return std::min(rows_kept_from(), end > lookback ? end - lookback : 0);
}

// One group's lanes from rolled_ to `end`, closing chunks at multiples of C.
// A completed chunk's Summary is its one-pass summary (run_lanes over the whole chunk from
// its start state), whatever advances it arrived in: the tail's running combine depends on
// where advances cut the chunk (combine rounds differently from the lanes' running sums),
// the one-pass summary does not, so a restore recomputes it from the chunk's start state and
// bars to the bit instead of reading it from the checkpoint (cpu_stream_checkpoint.cpp).
// A chunk that came in one piece is already that; one cut by advances is replayed once at
// its end (C bars per combo per C bars rolled: a live stream's roll costs twice as many
// bars, still far below a run's replay and combines).
void CpuStream::roll_group(const BarTables& tables, size_t g, size_t end) {
  const Group& grp = groups_[g];
  const size_t base = g * kLanes;
  Summary part[kLanes];
  StopState* stops = stop_at(stop_state_, base);
  for (size_t t = rolled_; t < end;) {
    const size_t stop = std::min(end, (t / chunk_ + 1) * chunk_);
    const LaneRange range{t, t, stop, &state_[base], &state_[base], stops, stops};
    run_lanes(grp.kind, grp.stops, tables, rows_.matrix(), &inputs_[base], grp.lanes, range, part);
    const size_t chunk = t / chunk_, from = std::max<size_t>(chunk * chunk_, 1);
    if (stop % chunk_ == 0 && t != from)
      whole_chunk(tables, g, chunk, part);  // the tail's combine is replaced by the one pass
    for (int j = 0; j < grp.lanes; ++j) {
      const size_t c = base + static_cast<size_t>(j);
      tail_[c] = stop % chunk_ == 0 && t != from ? part[j] : combine(tail_[c], part[j]);
      if (stop % chunk_ == 0) {
        chunk_sum_[sum_slot(c, chunk)] = tail_[c];
        back_[c] = combine(back_[c], tail_[c]);
        tail_[c] = Summary{};
        chunk_start_[slot(c, chunk + 1)] = state_[c];
        if (stops_) chunk_stop_[slot(c, chunk + 1)] = stop_state_[c];
      }
    }
    t = stop;
  }
}

// The one-pass Summary of chunk `chunk` (complete, its bars kept) for group g's lanes, from
// the chunk's stored start states.
void CpuStream::whole_chunk(const BarTables& tables, size_t g, size_t chunk, Summary* out) const {
  const Group& grp = groups_[g];
  const size_t base = g * kLanes;
  LaneStarts start = group_chunk_start(g, chunk);
  const size_t from = std::max<size_t>(chunk * chunk_, 1);
  run_lanes(grp.kind, grp.stops, tables, rows_.matrix(), &inputs_[base], grp.lanes,
            LaneRange{from, from, (chunk + 1) * chunk_, start.state, nullptr, start.stops, nullptr},
            out);
}

// Front stack exhausted: the chunks [from, to) become suffix combines, the back empties.
void CpuStream::flip(size_t from, size_t to) {
  parallel_for(state_.size(), threads_, [&](int, size_t c) {
    Summary acc;
    for (size_t j = to; j-- > from;) {
      acc = combine(chunk_sum_[sum_slot(c, j)], acc);
      chunk_sum_[sum_slot(c, j)] = acc;
    }
    back_[c] = Summary{};
  });
}

// The window's start entered chunk `head`: replay it once, keeping per sub-chunk the
// state entering it and the suffix combine from it to the chunk's end.
void CpuStream::cache_head(const BarTables& tables, size_t head) {
  parallel_for(groups_.size(), threads_, [&](int, size_t g) {
    const Group& grp = groups_[g];
    const size_t base = g * kLanes;
    LaneStarts s = group_chunk_start(g, head);  // carried through the sub-chunks
    Summary part[kLanes];
    for (size_t i = 0; i < subs_; ++i) {
      const size_t a = head * chunk_ + i * sub_, b = std::min(a + sub_, (head + 1) * chunk_);
      for (int j = 0; j < grp.lanes; ++j) {
        head_start_[(base + size_t(j)) * subs_ + i] = s.state[j];
        if (stops_) head_stop_[(base + size_t(j)) * subs_ + i] = s.stops[j];
      }
      const size_t from = std::max<size_t>(a, 1);
      run_lanes(grp.kind, grp.stops, tables, rows_.matrix(), &inputs_[base], grp.lanes,
                LaneRange{from, from, b, s.state, s.state, s.stops, s.stops}, part);
      if (i > 0)
        for (int j = 0; j < grp.lanes; ++j) head_suffix_[suffix_at(base + size_t(j), i)] = part[j];
    }
    for (int j = 0; j < grp.lanes && subs_ > 2; ++j) {
      Summary* suffix = &head_suffix_[suffix_at(base + size_t(j), 1)];  // [k]: sub-chunk k + 1
      for (size_t k = subs_ - 2; k-- > 0;) suffix[k] = combine(suffix[k], suffix[k + 1]);
    }
  });
}

SweepResult CpuStream::optimise() {
  const size_t end = bars_.end();
  check_window(WindowSpec{end, spec_.window, spec_.warmup}, end, spec_.strategy);
  const detail::WindowPlan p = schedule_.plan(end, spec_.window);
  if (p.do_flip) flip(p.head + 1, p.tail);
  const BarTables tables = bars_.tables(spec_.strategy.costs.per_unit());
  if (p.do_cache_head) cache_head(tables, p.head);
  const size_t first = p.first, head = p.head, sub = p.sub;
  std::vector<TopK> tops(static_cast<size_t>(threads_), TopK(spec_.rank.top));
  std::vector<uint64_t> ranked(static_cast<size_t>(threads_), 0);
  parallel_for(groups_.size(), threads_, [&](int worker, size_t g) {
    const Group& grp = groups_[g];
    const size_t base = g * kLanes;
    LaneState start[kLanes];
    StopState stops[kLanes];
    for (int j = 0; j < grp.lanes; ++j) {
      const size_t c = base + static_cast<size_t>(j);
      const size_t at = p.in_one_chunk ? slot(c, head) : c * subs_ + sub;
      start[j] = p.in_one_chunk ? chunk_start_[at] : head_start_[at];
      if (stops_) stops[j] = p.in_one_chunk ? chunk_stop_[at] : head_stop_[at];
    }
    const LaneRange range{
        std::max<size_t>(p.sub_start, 1), first, p.sub_end, start, nullptr, stops, nullptr};
    Summary window[kLanes];
    run_lanes(grp.kind, grp.stops, tables, rows_.matrix(), &inputs_[base], grp.lanes, range,
              window);
    for (int j = 0; j < grp.lanes; ++j) {
      const size_t c = base + static_cast<size_t>(j);
      if (p.has_suffix) window[j] = combine(window[j], head_suffix_[suffix_at(c, sub + 1)]);
      if (!p.in_one_chunk) {
        if (p.has_middle)
          window[j] = combine(window[j], combine(chunk_sum_[sum_slot(c, head + 1)], back_[c]));
        window[j] = combine(window[j], tail_[c]);
      }
      const Combo combo = spec_.strategy.grid.decode(grp.ids[j]);
      const Metrics m = window[j].nonpositive ? sequential(c, first, end)
                                              : finalize(window[j], spec_.strategy.bars_per_year);
      if (!passes_constraints(m, spec_.rank)) continue;
      ++ranked[static_cast<size_t>(worker)];
      tops[static_cast<size_t>(worker)].offer({combo, m, objective_value(m, spec_.rank.objective)});
    }
  });
  SweepResult result;
  result.backend = "cpu";
  result.evaluated = evaluated_;
  result.skipped = skipped_;
  TopK top(spec_.rank.top);
  for (const auto& t : tops) top.merge(t);
  for (auto r : ranked) result.ranked += r;
  result.top = top.sorted();
  // The reported combos' growth metrics from exact total returns (src/growth_refine.hpp).
  detail::refine_growth(result.top, spec_.rank, spec_.strategy.bars_per_year,
                        [&](const Combo& c) { return returns(c, first, end); });
  return result;
}

ComboState CpuStream::chunk_state(size_t c, size_t chunk) const {
  const LaneState st = chunk_start_[slot(c, chunk)];
  return {st.p2, st.p1, stops_ ? chunk_stop_[slot(c, chunk)] : StopState{}};
}

CpuStream::LaneStarts CpuStream::group_chunk_start(size_t g, size_t chunk) const {
  LaneStarts s;
  for (int j = 0; j < groups_[g].lanes; ++j) {
    const ComboState st = chunk_state(g * kLanes + size_t(j), chunk);
    s.state[j] = {st.p2, st.p1};
    s.stops[j] = st.stop;
  }
  return s;
}

std::pair<size_t, std::vector<int8_t>> CpuStream::replay(size_t c, size_t first, size_t end,
                                                         ComboState* end_state) const {
  const size_t chunk = first / chunk_, s = chunk * chunk_;
  ComboState state = chunk_state(c, chunk);
  std::vector<int8_t> p{state.p2, state.p1};
  replay_positions(inputs_[c], kind_of_combo(c), rows_.matrix(), bars_.tables(0), s,
                   std::max(end, s), state, p);
  if (end_state) *end_state = state;
  return {s, std::move(p)};
}

Metrics CpuStream::sequential(size_t c, size_t first, size_t end) const {
  const auto [s, p] = replay(c, first, end - 1);  // p_{t-2} and p_{t-1} for t < end
  const HistoryView v = bars_.view();
  const size_t vb = bars_.kept_from();
  const double cost = spec_.strategy.costs.per_unit();
  SequentialMetrics m;
  for (size_t t = first; t < end; ++t)
    m.add(bar_segments(v, spec_.strategy.fill, cost, t - vb, p[t - s], p[t - s + 1]));
  return m.finish(spec_.strategy.bars_per_year);
}

std::unique_ptr<Stream> make_cpu_stream(const StreamSpec& spec, const HistoryView& history) {
  return std::make_unique<CpuStream>(spec, history);
}

StreamMemory cpu_stream_memory(const StreamSpec& spec) { return CpuStream::memory(spec); }

}  // namespace wfod::cpu
