// Incremental re-optimisation on the CPU (issue 5; SPEC §3, §6). Bars are cut into chunks
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
// same trades, wins and bar counts, sums equal up to rounding (SPEC §6, §9).
#include "cpu/cpu_stream.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>

#include "cpu/lane_setup.hpp"
#include "cpu/rolling_indicators.hpp"
#include "cpu/thread_count.hpp"
#include "src/stream_history.hpp"
#include "src/window_schedule.hpp"
#include "src/worker_pool.hpp"

namespace wfod::cpu {

size_t default_stream_chunk(size_t window) {
  const size_t want = static_cast<size_t>(2.0 * std::sqrt(static_cast<double>(window)));
  return std::clamp<size_t>(std::bit_ceil(std::max<size_t>(want, 1)), 16, 4096);
}

namespace {

constexpr size_t kSubChunks = 16;  // a run replays at most chunk / kSubChunks bars per combo

// Runs job(worker, item) for items [0, count) on `threads` threads (the caller is one).
template <typename Job>
void parallel_for(size_t count, int threads, const Job& job) {
  std::atomic<size_t> next{0};
  auto work = [&](int worker) {
    for (size_t i; (i = next.fetch_add(1)) < count;) job(worker, i);
  };
  const int n = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), count));
  wfod::detail::run_workers(n, work);
}

class CpuStream final : public Stream {
 public:
  CpuStream(const StreamSpec& spec, const HistoryView& history)
      : spec_(spec), history_(history), rows_(spec.strategy.grid) {
    const auto start = std::chrono::steady_clock::now();
    if (spec_.window < 1) throw std::invalid_argument("stream window must hold at least 1 bar");
    spec_.strategy.grid.validate();
    chunk_ = spec_.chunk ? spec_.chunk : default_stream_chunk(spec_.window);
    ring_ = (spec_.window + chunk_ - 1) / chunk_ + 3;  // head chunk, middle, tail, slack
    sub_ = std::max<size_t>(1, chunk_ / kSubChunks);
    subs_ = (chunk_ + sub_ - 1) / sub_;
    schedule_ = detail::WindowSchedule(chunk_, sub_, subs_);
    threads_ = resolve_threads(spec_.threads);
    make_groups();
    const size_t combos = groups_.size() * kLanes;
    state_.assign(combos, LaneState{});
    tail_.assign(combos, Summary{});
    back_.assign(combos, Summary{});
    chunk_sum_.assign(combos * ring_, Summary{});
    chunk_start_.assign(combos * ring_, LaneState{});  // chunk 0 starts flat (p_{-1} = p_0 = 0)
    head_suffix_.assign(combos * subs_, Summary{});
    head_start_.assign(combos * subs_, LaneState{});
    extend();
    open_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  SweepResult advance(std::span<const Bar> bars) override {
    const auto start = std::chrono::steady_clock::now();
    history_.append(bars);
    extend();
    SweepResult result = optimise();
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  StreamStats stats() const override {
    StreamStats s;
    s.bars = history_.size();
    s.chunk = chunk_;
    s.footprint_bytes = (chunk_sum_.size() + head_suffix_.size()) * sizeof(Summary) +
                        (chunk_start_.size() + head_start_.size()) * sizeof(LaneState) +
                        (state_.size()) * (sizeof(LaneState) + 2 * sizeof(Summary)) +
                        rows_.footprint_bytes() + history_.footprint_bytes() +
                        (gap_.capacity() + body_.capacity()) * sizeof(double);
    s.open_seconds = open_seconds_;
    return s;
  }

 private:
  size_t slot(size_t combo, size_t chunk) const { return combo * ring_ + chunk % ring_; }

  void make_groups() {
    const Grid& grid = spec_.strategy.grid;
    Group open[6];
    for (uint64_t id = 0; id < grid.size(); ++id) {
      const Combo c = grid.decode(id);
      if (!c.valid()) {
        ++skipped_;
        continue;
      }
      ++evaluated_;
      Group& g = open[kind_of(c)];
      g.kind = kind_of(c);
      g.ids[g.lanes++] = id;
      if (g.lanes == kLanes) {
        groups_.push_back(g);
        g.lanes = 0;
      }
    }
    for (auto& g : open)
      if (g.lanes) groups_.push_back(g);
  }

  // Lane inputs hold row offsets, which move when the indicator matrix is re-laid out.
  void refresh_inputs() {
    if (!inputs_.empty() && inputs_version_ == rows_.layout_version()) return;
    inputs_.assign(groups_.size() * kLanes, LaneInput{});
    for (size_t g = 0; g < groups_.size(); ++g)
      for (int j = 0; j < groups_[g].lanes; ++j)
        inputs_[g * kLanes + static_cast<size_t>(j)] =
            lane_input(rows_, spec_.strategy.grid.decode(groups_[g].ids[j]));
    inputs_version_ = rows_.layout_version();
  }

  // Indicators, bar returns and every combo's chunk summaries up to the history's end.
  void extend() {
    const HistoryView h = history_.view();
    const size_t end = h.size();
    if (end <= rolled_) return;
    // Rows are read from bar rolled_ - 1 on (rolling; cross entries look one bar back) and
    // from the replayed head chunk's start - 1 >= end - W - C on; older ones can go.
    const size_t oldest_head = end > spec_.window + chunk_ ? end - spec_.window - chunk_ : 0;
    rows_.release_before(std::min(rolled_ - 1, oldest_head));
    rows_.append(h);
    refresh_inputs();
    const size_t from = gap_.size();
    gap_.resize(end, 0.0);
    body_.resize(end, 0.0);
    for (size_t t = std::max<size_t>(from, 1); t < end; ++t) {
      const double prev = h.close[t - 1];
      const double x = spec_.strategy.fill == Fill::close ? prev : h.open[t];
      gap_[t] = (x - prev) / prev;
      body_[t] = (h.close[t] - x) / prev;
    }
    const BarTables tables = bar_tables(h);
    parallel_for(groups_.size(), threads_, [&](int, size_t g) { roll_group(tables, g, end); });
    rolled_ = end;
  }

  BarTables bar_tables(const HistoryView& h) const {
    return {gap_.data(), body_.data(), h.close.data(), spec_.strategy.costs.per_unit()};
  }

  // One group's lanes from rolled_ to `end`, closing chunks at multiples of C.
  void roll_group(const BarTables& tables, size_t g, size_t end) {
    const Group& grp = groups_[g];
    const size_t base = g * kLanes;
    Summary part[kLanes];
    for (size_t t = rolled_; t < end;) {
      const size_t stop = std::min(end, (t / chunk_ + 1) * chunk_);
      const LaneRange range{t, t, stop, &state_[base], &state_[base]};
      run_lanes(family_of_kind(grp.kind), cross_of_kind(grp.kind), vol_of_kind(grp.kind), tables,
                rows_.matrix(), &inputs_[base], grp.lanes, range, part);
      for (int j = 0; j < grp.lanes; ++j) {
        const size_t c = base + static_cast<size_t>(j);
        tail_[c] = combine(tail_[c], part[j]);
        if (stop % chunk_ == 0) {
          const size_t done = stop / chunk_ - 1;  // the chunk just completed
          chunk_sum_[slot(c, done)] = tail_[c];
          back_[c] = combine(back_[c], tail_[c]);
          tail_[c] = Summary{};
          chunk_start_[slot(c, done + 1)] = state_[c];
        }
      }
      t = stop;
    }
  }

  // Front stack exhausted: the chunks [from, to) become suffix combines, the back empties.
  void flip(size_t from, size_t to) {
    parallel_for(state_.size(), threads_, [&](int, size_t c) {
      Summary acc;
      for (size_t j = to; j-- > from;) {
        acc = combine(chunk_sum_[slot(c, j)], acc);
        chunk_sum_[slot(c, j)] = acc;
      }
      back_[c] = Summary{};
    });
  }

  // The window's start entered chunk `head`: replay it once, keeping per sub-chunk the
  // state entering it and the suffix combine from it to the chunk's end.
  void cache_head(const BarTables& tables, size_t head) {
    parallel_for(groups_.size(), threads_, [&](int, size_t g) {
      const Group& grp = groups_[g];
      const size_t base = g * kLanes;
      LaneState state[kLanes];
      for (int j = 0; j < grp.lanes; ++j) state[j] = chunk_start_[slot(base + size_t(j), head)];
      Summary part[kLanes];
      for (size_t i = 0; i < subs_; ++i) {
        const size_t a = head * chunk_ + i * sub_, b = std::min(a + sub_, (head + 1) * chunk_);
        for (int j = 0; j < grp.lanes; ++j) head_start_[(base + size_t(j)) * subs_ + i] = state[j];
        const size_t from = std::max<size_t>(a, 1);
        run_lanes(family_of_kind(grp.kind), cross_of_kind(grp.kind), vol_of_kind(grp.kind), tables,
                  rows_.matrix(), &inputs_[base], grp.lanes, LaneRange{from, from, b, state, state},
                  part);
        for (int j = 0; j < grp.lanes; ++j) head_suffix_[(base + size_t(j)) * subs_ + i] = part[j];
      }
      for (int j = 0; j < grp.lanes; ++j) {
        Summary* suffix = &head_suffix_[(base + size_t(j)) * subs_];
        for (size_t i = subs_ - 1; i-- > 0;) suffix[i] = combine(suffix[i], suffix[i + 1]);
      }
    });
  }

  SweepResult optimise() {
    const HistoryView h = history_.view();
    SweepRequest req;
    req.history = h;
    req.strategy = spec_.strategy;
    req.window = WindowSpec{h.size(), spec_.window, spec_.warmup};
    req.rank = spec_.rank;
    check_window(req);

    const size_t end = h.size();
    const detail::WindowPlan p = schedule_.plan(end, spec_.window);
    if (p.do_flip) flip(p.head + 1, p.tail);
    const BarTables tables = bar_tables(h);
    if (p.do_cache_head) cache_head(tables, p.head);
    const size_t first = p.first, head = p.head, sub = p.sub;
    std::vector<TopK> tops(static_cast<size_t>(threads_), TopK(spec_.rank.top));
    std::vector<uint64_t> ranked(static_cast<size_t>(threads_), 0);
    parallel_for(groups_.size(), threads_, [&](int worker, size_t g) {
      const Group& grp = groups_[g];
      const size_t base = g * kLanes;
      LaneState start[kLanes];
      for (int j = 0; j < grp.lanes; ++j) {
        const size_t c = base + static_cast<size_t>(j);
        start[j] = p.in_one_chunk ? chunk_start_[slot(c, head)] : head_start_[c * subs_ + sub];
      }
      const LaneRange range{std::max<size_t>(p.sub_start, 1), first, p.sub_end, start, nullptr};
      Summary window[kLanes];
      run_lanes(family_of_kind(grp.kind), cross_of_kind(grp.kind), vol_of_kind(grp.kind), tables,
                rows_.matrix(), &inputs_[base], grp.lanes, range, window);
      for (int j = 0; j < grp.lanes; ++j) {
        const size_t c = base + static_cast<size_t>(j);
        if (p.has_suffix) window[j] = combine(window[j], head_suffix_[c * subs_ + sub + 1]);
        if (!p.in_one_chunk) {
          if (p.has_middle)
            window[j] = combine(window[j], combine(chunk_sum_[slot(c, head + 1)], back_[c]));
          window[j] = combine(window[j], tail_[c]);
        }
        const Combo combo = spec_.strategy.grid.decode(grp.ids[j]);
        const Metrics m = window[j].nonpositive ? sequential(h, combo, first, end)
                                                : finalize(window[j], spec_.strategy.bars_per_year);
        if (!passes_constraints(m, spec_.rank)) continue;
        ++ranked[static_cast<size_t>(worker)];
        tops[static_cast<size_t>(worker)].offer(
            {combo, m, objective_value(m, spec_.rank.objective)});
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
    return result;
  }

  // Equity reached zero inside the window: the exact literal drawdown, from the anchor.
  Metrics sequential(const HistoryView& h, const Combo& c, size_t first, size_t end) const {
    const IndicatorCache cache(h, c);
    return evaluate_sequential(cache, h, spec_.strategy.fill, spec_.strategy.costs.per_unit(),
                               spec_.strategy.bars_per_year, c, first, end);
  }

  StreamSpec spec_;
  detail::StreamHistory history_;
  RollingIndicators rows_;
  std::vector<Group> groups_;
  std::vector<LaneInput> inputs_;
  uint64_t inputs_version_ = 0;
  std::vector<double> gap_, body_;
  uint64_t evaluated_ = 0, skipped_ = 0;
  size_t chunk_ = 0, ring_ = 0;
  size_t sub_ = 1, subs_ = 1;                 // sub-chunk bars, sub-chunks per chunk
  detail::WindowSchedule schedule_{1, 1, 1};  // set in the constructor
  int threads_ = 1;
  size_t rolled_ = 1;  // every combo's state is the one entering this bar (bar 0 is flat)
  // Per combo (group * kLanes + lane):
  std::vector<LaneState> state_;  // entering bar rolled_
  std::vector<Summary> tail_;     // bars [max(1, floor(rolled_/C) C), rolled_)
  std::vector<Summary> back_;     // chunks [split, floor(rolled_/C)) (split: schedule_)
  // Per combo and ring slot (chunk j at slot j mod ring_): the chunk's Summary (raw, or the
  // suffix combine up to the schedule's split below it) and the state entering its first bar.
  std::vector<Summary> chunk_sum_;
  std::vector<LaneState> chunk_start_;
  // Per combo and sub-chunk of the schedule's head chunk: the state entering the sub-chunk and the
  // suffix combine from it to the chunk's end.
  std::vector<Summary> head_suffix_;
  std::vector<LaneState> head_start_;
  double open_seconds_ = 0;
};

}  // namespace

std::unique_ptr<Stream> make_cpu_stream(const StreamSpec& spec, const HistoryView& history) {
  return std::make_unique<CpuStream>(spec, history);
}

}  // namespace wfod::cpu
