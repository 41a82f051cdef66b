// RulesStream: a rules strategy's stream on the cpu backend, bounded. It keeps
//   - every distinct indicator row of the grid as an incremental state (RulesRowStates, the
//     states the batch rows and the rules tracker run, so values are bit-identical), shared by
//     the combos, and each row's values over the ring of bars [base, end);
//   - the bars of the ring (volumes included: a rule may read them);
//   - per combo its exact state entering bar `start` = max(0, end - W), the window's first bar:
//     r_{start-1} (§5a's transitions start from the target), p_{start-2}, p_{start-1} and its
//     stops' state (§5b);
// with base = max(start, 1) - 1 (a cross reads bar t - 1, a fresh trade's entry c_{t-1}). Each
// advance appends the bars to the states and the ring, moves the entering states to the new
// window's first bar (codes, r_t and the lane kernel's decisions over the bars that left the
// window) and summarises the window from them, in one pass; a long batch moves them each time
// the ring is full (ring_capacity: max(2W + 2, W + 1025) bars). Memory and checkpoint are set by
// the window, the rows' look-back and the grid, whatever the uptime. Every advance and query is
// bit-identical to a fresh cpu sweep of the window on the history from the anchor (the same rows,
// the same evaluator, the same lane kernel entered with the states its scan back finds).
//
// Checkpoint layout (host byte order, recorded):
//   "WFODRULE", u32 version (2), u32 byte-order mark, string backend ("cpu"),
//   u64 spec fingerprint, string spec text (what the fingerprint hashes: the compiled
//   program, the axes, stops, filter, fill, costs, window and warm-up, doubles by their bits),
//   u64 bars (end), u64 start, u64 ring bars (end - base), then the ring's columns ts, open,
//   high, low, close, volume; the rows' states (RulesRowStates::save) and each row's ring
//   values; u64 slots, then per slot r, p2, p1 (i8 each), stopped and r1 of the stops (i8),
//   entry and extreme (f64); u64 checksum of all the bytes before it (blob_checksum).
// Version 1 (every bar from the anchor) is refused: the caller replays from its bars.
#include "rules_stream.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lane_groups.hpp"
#include "lane_kernel.hpp"
#include "rules_eval.hpp"
#include "rules_lanes.hpp"
#include "src/blob_io.hpp"
#include "src/huge_pages.hpp"
#include "src/lane_setup.hpp"
#include "src/rules/transitions.hpp"
#include "src/rules_combo_rows.hpp"
#include "src/rules_rows.hpp"
#include "src/same_point.hpp"
#include "src/stream_blob.hpp"
#include "src/thread_count.hpp"
#include "src/tracker_seed.hpp"
#include "src/worker_pool.hpp"
#include "sweep_ranking.hpp"
#include "wfod/position_tracker.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/summary.hpp"
#include "wfod/support.hpp"

namespace wfod::cpu {
namespace {

constexpr detail::StreamBlobFormat kFormat{"WFODRULE", 2, "cpu",
                                           "program, grid, fill, costs or window"};

void bits(std::string& out, double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64 ",", b);
  out += buf;
}
void number(std::string& out, uint64_t v) { out += std::to_string(v) + ","; }
void axis(std::string& out, const char* name, const std::vector<double>& v) {
  out += name;
  out += "=";
  for (double x : v) bits(out, x);
  out += ";";
}
void axis(std::string& out, const char* name, const std::vector<int>& v) {
  out += name;
  out += "=";
  for (int x : v) number(out, static_cast<uint64_t>(static_cast<int64_t>(x)));
  out += ";";
}
void condition(std::string& out, const rules::Condition& c) {
  out += "[";
  for (const rules::Node& n : c.nodes) {
    number(out, static_cast<uint64_t>(n.op));
    number(out, n.exact ? 1 : 0);
    number(out, n.index);
    number(out, n.lhs_begin);
    number(out, n.rhs_begin);
    bits(out, n.value);
  }
  out += "]";
}
void argument(std::string& out, const rules::Arg& a) {
  number(out, a.is_param ? 1 : 0);
  number(out, a.param);
  bits(out, a.value);
}

// Everything that decides the stream's results, as text: two specs with the same text give
// the same stream on the same bars.
std::string spec_text(const StreamSpec& spec) {
  const Grid& g = spec.strategy.grid;
  const rules::Program& p = *g.program;
  std::string out = "rules;params=";
  for (const std::string& name : p.params) out += name + ",";
  out += ";indicators=";
  for (const rules::Indicator& ind : p.indicators) {
    out += ind.name + ":";
    number(out, static_cast<uint64_t>(ind.kind));
    argument(out, ind.period);
    if (ind.width) argument(out, *ind.width);
    number(out, ind.high_low ? 1 : 0);
    number(out, ind.used ? 1 : 0);
  }
  out += ";conditions=";
  for (const rules::Condition& c : p.conditions) condition(out, c);
  condition(out, p.valid);
  out += ";axes=";
  for (const std::vector<double>& a : g.rule_axes) axis(out, "", a);
  axis(out, "stop_loss", g.stop_loss);
  axis(out, "take_profit", g.take_profit);
  axis(out, "trailing_stop", g.trailing_stop);
  axis(out, "vol_short", g.vol_short);
  axis(out, "vol_long", g.vol_long);
  axis(out, "vol_threshold", g.vol_threshold);
  out += "fill=";
  number(out, static_cast<uint64_t>(spec.strategy.fill));
  out += "costs=";
  bits(out, spec.strategy.costs.commission_bps);
  bits(out, spec.strategy.costs.slippage_bps);
  out += "bars_per_year=";
  bits(out, spec.strategy.bars_per_year);
  out += "window=";
  number(out, spec.window);
  out += "warmup=";
  number(out, spec.warmup);
  return out;
}

// The ring's most bars: the window and the bar before it, twice, and at least 1,024 bars
// beyond them (a long batch moves the entering states each time the ring is full: every W + 1
// bars, or 1,024 for a short window, so a long history opens in few passes).
size_t ring_capacity(const StreamSpec& spec) {
  return std::max(2 * (spec.window + 1), spec.window + 1 + 1024);
}

// One worker's lanes over the stream's ring: the evaluator's scratch, the r_t rows of up to
// kLanes combos (ring-indexed) and their states entering the stream's start bar.
struct RulesStreamLanes {
  RulesStreamLanes(const RulesRows& rows, const rules::Program& program, const HistoryView& ring)
      : eval(rows, program, ring), size(ring.size()), matrix(kLanes * size), codes(kLanes * size) {}
  RulesEvaluator eval;
  size_t size;
  std::vector<double> matrix;
  std::vector<uint8_t> codes;
  int lanes = 0;
  Combo combos[kLanes];
  size_t slot[kLanes];
  LaneInput in[kLanes];
  LaneState start[kLanes];
  StopState stop[kLanes];
};

class RulesStream final : public Stream {
 public:
  explicit RulesStream(const StreamSpec& spec)
      : spec_(spec), threads_(detail::resolve_threads(spec.threads)), rows_(spec.strategy.grid) {
    const Grid& grid = spec_.strategy.grid;
    if (spec_.window < 1) throw std::invalid_argument("window must hold at least 1 bar");
    grid.validate();
    groups_ = group_valid_combos(grid);
    if (groups_.size() * kLanes > UINT32_MAX)
      throw std::invalid_argument("a stream holds at most 2^32 combos");
    slot_of_.assign(grid.size(), UINT32_MAX);
    for (size_t g = 0; g < groups_.size(); ++g) {
      for (int j = 0; j < groups_[g].lanes; ++j)
        slot_of_[groups_[g].ids[j]] = static_cast<uint32_t>(g * kLanes + static_cast<size_t>(j));
    }
    const size_t slots = groups_.size() * kLanes;
    r_.assign(slots, 0);
    lane_.assign(slots, LaneState{});
    stop_.assign(slots, StopState{});
    states_ = detail::RulesRowStates(rows_.keys(), rows_.vol_periods());
    // The ring at its largest, once: the footprint does not creep with uptime.
    cap_ = ring_capacity(spec_);
    ring_.reserve(cap_);
    gap_.reserve(cap_);
    body_.reserve(cap_);
    for (size_t i = 0; i < rows_.size(); ++i) rows_.row(i).values.reserve(cap_);
  }

  // The history's bars; its volumes where it has them (a program reading volume needs them).
  void take(const HistoryView& h) {
    if (spec_.strategy.grid.program->uses_volume && !h.close.empty() && h.volume.size() != h.size())
      throw std::invalid_argument(
          "a rules stream of a program that reads volume needs the history's volumes");
    for (size_t t = 0; t < h.size(); ++t)
      push(Bar{h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t],
               h.volume.empty() ? 0.0 : h.volume[t], 0});
    settle();
  }

  SweepResult advance(std::span<const Bar> new_bars) override {
    const auto t0 = std::chrono::steady_clock::now();
    int64_t last = ring_.size() ? ring_.ts_ns.back() : INT64_MIN;
    for (size_t i = 0; i < new_bars.size(); ++i) {
      if (new_bars[i].ts_ns <= last)
        throw std::invalid_argument("stream bar " + std::to_string(i) + " has ts " +
                                    std::to_string(new_bars[i].ts_ns) +
                                    " not after the previous bar's " + std::to_string(last));
      last = new_bars[i].ts_ns;
    }
    for (const Bar& b : new_bars) push(b);
    return sweep(t0);
  }

  StreamStats stats() const override {
    StreamStats s;
    s.bars = end_;
    size_t bytes = ring_.ts_ns.capacity() * 6 * 8 + (gap_.capacity() + body_.capacity()) * 8 +
                   states_.footprint_bytes() + slot_of_.capacity() * sizeof(uint32_t) +
                   groups_.capacity() * sizeof(Group) + r_.capacity() +
                   lane_.capacity() * sizeof(LaneState) + stop_.capacity() * sizeof(StopState);
    for (size_t i = 0; i < rows_.size(); ++i) bytes += rows_.row(i).values.capacity() * 8;
    s.footprint_bytes = bytes;
    s.open_seconds = open_seconds_;
    s.incremental = false;  // each advance still sweeps the window (from the kept states)
    return s;
  }
  size_t horizon() const override { return start_; }
  bool bounded() const override { return true; }

  std::vector<int8_t> positions(const Combo& combo, size_t first, size_t end) const override {
    const size_t slot = checked(combo);
    check_range(first, end, start_);
    if (first == end) return {};
    const std::vector<int8_t> p = replay(combo, slot, end, nullptr);
    return {p.begin() + static_cast<ptrdiff_t>(first + 2 - start_),
            p.begin() + static_cast<ptrdiff_t>(end + 2 - start_)};
  }
  std::vector<double> returns(const Combo& combo, size_t first, size_t end) const override {
    const size_t slot = checked(combo);
    check_range(first, end, std::max<size_t>(start_, 1));
    if (first == end) return {};
    return window_returns(combo, slot, first, end);
  }
  PositionTracker tracker(const Combo& combo, size_t keep) const override;

  std::vector<Metrics> evaluate(std::span<const uint64_t> ids) const override {
    check_window(window(), end_, spec_.strategy);
    const LaneGroups grouped = group_ids(spec_.strategy.grid, ids);  // throws on a bad id
    ready();
    std::vector<Metrics> out(ids.size());
    const size_t first = window().first();
    const BarTables tables = bar_tables();
    const HistoryView ring = ring_view();
    std::atomic<size_t> next{0};
    detail::run_workers(threads_, [&](int) {
      RulesStreamLanes lanes(rows_, *spec_.strategy.grid.program, ring);
      Summary sum[kLanes];
      for (size_t gi; (gi = next.fetch_add(1)) < grouped.groups.size();) {
        const Group& g = grouped.groups[gi];
        load(lanes, g);
        const LaneRange range{first, first, end_, lanes.start, nullptr, lanes.stop, nullptr};
        run_lanes(kGivenKind, g.stops, tables, lanes.matrix.data(), lanes.in, g.lanes, range, sum);
        for (int j = 0; j < g.lanes; ++j)
          out[grouped.slot_of[grouped.group_base[gi] + static_cast<size_t>(j)]] =
              metrics(lanes.combos[j], lanes.slot[j], sum[j]);
      }
    });
    return out;
  }

  std::vector<Summary> block_summaries(std::span<const size_t> cuts) const override {
    const WindowSpec w = window();
    check_window(w, end_, spec_.strategy);
    selection::check_cuts(w, cuts);
    const size_t blocks = cuts.size() + 1;
    std::vector<Summary> out;
    resize_on_huge_pages(out, spec_.strategy.grid.size() * blocks);
    auto edge = [&](size_t b) { return b == 0 ? w.first() : b == blocks ? w.end : cuts[b - 1]; };
    ready();
    const BarTables tables = bar_tables();
    const HistoryView ring = ring_view();
    // A group's blocks run left to right, each from the state the previous one left, the
    // first from the kept states entering the window (rules_block_summaries' chain).
    std::atomic<size_t> next{0};
    detail::run_workers(threads_, [&](int) {
      RulesStreamLanes lanes(rows_, *spec_.strategy.grid.program, ring);
      LaneState state[2][kLanes];
      StopState stops[2][kLanes];
      Summary sum[kLanes];
      for (size_t gi; (gi = next.fetch_add(1)) < groups_.size();) {
        const Group& g = groups_[gi];
        load(lanes, g);
        for (size_t b = 0; b < blocks; ++b) {
          const size_t in_state = (b + 1) % 2, out_state = b % 2;
          const LaneState* from = b == 0 ? lanes.start : state[in_state];
          const StopState* from_stop = b == 0 ? lanes.stop : stops[in_state];
          const LaneRange range{edge(b),          edge(b),   edge(b + 1),     from,
                                state[out_state], from_stop, stops[out_state]};
          run_lanes(kGivenKind, g.stops, tables, lanes.matrix.data(), lanes.in, g.lanes, range,
                    sum);
          for (int j = 0; j < g.lanes; ++j) out[g.ids[j] * blocks + b] = sum[j];
        }
      }
    });
    return out;
  }

  std::vector<uint8_t> checkpoint() const override {
    detail::BlobWriter w;
    const std::string text = spec_text(spec_);
    const size_t ring = ring_.size();
    w.reserve(text.size() + ring * 8 * (6 + rows_.size()) + r_.size() * 24 + 4096);
    detail::put_stream_blob_header(w, kFormat, text);
    w.put(static_cast<uint64_t>(end_));
    w.put(static_cast<uint64_t>(start_));
    w.put(static_cast<uint64_t>(ring));
    w.put_array(std::span<const int64_t>(ring_.ts_ns));
    for (const std::vector<double>* c :
         {&ring_.open, &ring_.high, &ring_.low, &ring_.close, &ring_.volume})
      w.put_array(std::span<const double>(*c));
    states_.save(w);
    for (size_t i = 0; i < rows_.size(); ++i)
      w.put_array(std::span<const double>(rows_.row(i).values));
    w.put(static_cast<uint64_t>(r_.size()));
    for (size_t c = 0; c < r_.size(); ++c) {
      w.put(r_[c]);
      w.put(lane_[c].p2);
      w.put(lane_[c].p1);
      w.put(stop_[c].stopped);
      w.put(stop_[c].r1);
      w.put(stop_[c].entry);
      w.put(stop_[c].extreme);
    }
    w.put(detail::blob_checksum(w.bytes()));
    return std::move(w.bytes());
  }

  void load(std::span<const uint8_t> blob) {
    detail::BlobReader r(blob);
    detail::check_stream_blob_header(r, blob, kFormat, spec_text(spec_));
    const uint64_t end = r.get<uint64_t>("bar count");
    if (end > detail::kBlobMaxBars) r.fail("bar count " + std::to_string(end) + " is absurd");
    end_ = static_cast<size_t>(end);
    const uint64_t start = r.get<uint64_t>("window start");
    if (start != start_of(end_))
      r.fail("window start " + std::to_string(start) + " after " + std::to_string(end_) +
             " bars, this spec makes it " + std::to_string(start_of(end_)));
    start_ = static_cast<size_t>(start);
    base_ = base_of(start_);
    const uint64_t ring = r.get<uint64_t>("ring bars");
    if (ring != end_ - base_)
      r.fail("the ring holds " + std::to_string(ring) + " bars, expected " +
             std::to_string(end_ - base_));
    const size_t n = static_cast<size_t>(ring);
    ring_.ts_ns = r.get_array<int64_t>(n, "bar times");
    ring_.open = r.get_array<double>(n, "opens");
    ring_.high = r.get_array<double>(n, "highs");
    ring_.low = r.get_array<double>(n, "lows");
    ring_.close = r.get_array<double>(n, "closes");
    ring_.volume = r.get_array<double>(n, "volumes");
    ring_.reserve(cap_);
    for (size_t t = 1; t < n; ++t)
      if (ring_.ts_ns[t] <= ring_.ts_ns[t - 1]) r.fail("bar times do not increase");
    states_.load(r);
    if (states_.bars() != end_)
      r.fail("the rows have seen " + std::to_string(states_.bars()) + " bars, the stream " +
             std::to_string(end_));
    for (size_t i = 0; i < rows_.size(); ++i) {
      rows_.row(i).values = r.get_array<double>(n, "row values");
      rows_.row(i).values.reserve(cap_);
    }
    dirty_ = true;
    const uint64_t slots = r.get<uint64_t>("combo slots");
    if (slots != r_.size())
      r.fail(std::to_string(slots) + " combo slots, this grid has " + std::to_string(r_.size()));
    auto position = [&r](const char* what) {
      const auto v = r.get<int8_t>(what);
      if (v < -1 || v > 1)
        r.fail(std::string(what) + " " + std::to_string(v) + " is not -1, 0 or 1");
      return v;
    };
    for (size_t c = 0; c < r_.size(); ++c) {
      r_[c] = position("target");
      lane_[c].p2 = position("position");
      lane_[c].p1 = position("position");
      stop_[c].stopped = position("stopped side");
      stop_[c].r1 = position("stop target");
      stop_[c].entry = r.get<double>("stop entry");
      stop_[c].extreme = r.get<double>("stop extreme");
    }
    if (r.left() != 8)
      r.fail(std::to_string(r.left() - 8) + " bytes left over after the last section");
  }

  double open_seconds_ = 0;

 private:
  size_t start_of(size_t end) const { return end > spec_.window ? end - spec_.window : 0; }
  static size_t base_of(size_t start) { return start > 0 ? start - 1 : 0; }
  WindowSpec window() const { return WindowSpec{end_, spec_.window, spec_.warmup}; }
  HistoryView ring_view() const { return HistoryView::of(ring_); }

  // The ring's bar columns for the lane kernel, bar-indexed from base_ (gap and body:
  // SPEC §2, zero at the ring's first bar, which no summary reads); after ready().
  BarTables bar_tables() const {
    return {gap_.data(),
            body_.data(),
            ring_.close.data(),
            spec_.strategy.costs.per_unit(),
            base_,
            spec_.strategy.fill == Fill::next_open ? ring_.open.data() : nullptr};
  }

  // One bar into the rows' states and the ring; a full ring first moves the entering states
  // to the window's first bar, so it holds at most cap_ bars.
  void push(const Bar& b) {
    if (ring_.size() == cap_) slide(start_of(end_));
    ring_.push_back(b);
    states_.next(b);
    for (size_t i = 0; i < rows_.size(); ++i) rows_.row(i).values.push_back(states_.value(i));
    ++end_;
    dirty_ = true;
  }

  void settle() { slide(start_of(end_)); }

  // Moves every combo's entering state from start_ to `to` (its decisions over the bars that
  // left the window), then drops the ring's bars before to - 1. With `offer` (an advance whose
  // window [to, end) is valid), each group's window is summarised from the moved states in
  // the same pass (one evaluation of the rules over the ring) and its combos' metrics offered.
  using Offer = std::function<void(int worker, const Combo&, const Metrics&)>;
  void slide(size_t to, const Offer* offer = nullptr) {
    if (to <= start_ && !offer) return;
    ready();
    const BarTables tables = bar_tables();
    const HistoryView ring = ring_view();
    std::atomic<size_t> next{0};
    detail::run_workers(threads_, [&](int worker) {
      RulesStreamLanes lanes(rows_, *spec_.strategy.grid.program, ring);
      LaneState state[kLanes];
      StopState stops[kLanes];
      int8_t r[kLanes];
      Summary sum[kLanes];
      for (size_t gi; (gi = next.fetch_add(1)) < groups_.size();) {
        const Group& g = groups_[gi];
        load(lanes, g);
        if (to > start_) {
          // From the anchor (start_ = 0): the kernel's scan back over the ring, which starts
          // there; else from the kept states.
          const bool anchor = start_ == 0;
          const LaneRange range{
              anchor ? to : start_,          to,   to, anchor ? nullptr : lanes.start, state,
              anchor ? nullptr : lanes.stop, stops};
          run_lanes(kGivenKind, g.stops, tables, lanes.matrix.data(), lanes.in, g.lanes, range,
                    sum);
          for (int j = 0; j < g.lanes; ++j)
            r[j] = static_cast<int8_t>(
                lanes.matrix[static_cast<size_t>(j) * lanes.size + (to - 1 - base_)]);
        } else {
          for (int j = 0; j < g.lanes; ++j) {
            state[j] = lanes.start[j];
            stops[j] = lanes.stop[j];
            r[j] = r_[lanes.slot[j]];
          }
        }
        if (offer) {
          const LaneRange range{to, to, end_, state, nullptr, stops, nullptr};
          run_lanes(kGivenKind, g.stops, tables, lanes.matrix.data(), lanes.in, g.lanes, range,
                    sum);
          // Before the group's states move: metrics() may replay a combo from start_.
          for (int j = 0; j < g.lanes; ++j)
            (*offer)(worker, lanes.combos[j], metrics(lanes.combos[j], lanes.slot[j], sum[j]));
        }
        for (int j = 0; j < g.lanes; ++j) {
          const size_t c = lanes.slot[j];
          lane_[c] = state[j];
          if (g.stops) stop_[c] = stops[j];
          r_[c] = r[j];
        }
      }
    });
    if (to <= start_) return;
    start_ = to;
    const size_t base = base_of(to), drop = base - base_;
    auto cut = [drop](auto& v) { v.erase(v.begin(), v.begin() + static_cast<ptrdiff_t>(drop)); };
    cut(ring_.ts_ns);
    for (std::vector<double>* c :
         {&ring_.open, &ring_.high, &ring_.low, &ring_.close, &ring_.volume})
      cut(*c);
    for (size_t i = 0; i < rows_.size(); ++i) cut(rows_.row(i).values);
    base_ = base;
    dirty_ = true;
  }

  // After the ring changed: the rows' first defined bar and gaps over it, its bar returns.
  // Called before any worker starts (the workers only read them).
  void ready() const {
    if (!dirty_) return;
    for (size_t i = 0; i < rows_.size(); ++i) rows_.refresh(i);
    bar_returns(ring_view(), spec_.strategy.fill, ring_.size(), gap_, body_);
    dirty_ = false;
  }

  // Group g's lanes: each combo's codes over the ring, its r_t from its kept r_{start-1}
  // (SPEC §5a's transitions), its lane input and kept state entering start_.
  void load(RulesStreamLanes& lanes, const Group& g) const {
    const Grid& grid = spec_.strategy.grid;
    const size_t n = lanes.size, from = start_ - base_;  // the ring's index of start_
    lanes.lanes = g.lanes;
    for (int j = 0; j < g.lanes; ++j) {
      const Combo c = grid.decode(g.ids[j]);
      const size_t slot = slot_of_[g.ids[j]];
      const size_t offset = static_cast<size_t>(j) * n;
      uint8_t* code = lanes.codes.data() + offset;
      double* row = lanes.matrix.data() + offset;
      lanes.eval.codes(c, n, code);
      int8_t r = r_[slot];
      std::fill(row, row + from, static_cast<double>(r));
      for (size_t u = from; u < n; ++u) {
        r = rules::next_target(r, code[u]);
        row[u] = r;
      }
      lanes.combos[j] = c;
      lanes.slot[j] = slot;
      lanes.in[j] =
          rules_lane_input(c, row, static_cast<int64_t>(offset) - static_cast<int64_t>(base_));
      lanes.start[j] = lane_[slot];
      lanes.stop[j] = stop_[slot];
    }
  }

  // p_{start-2}, p_{start-1}, then p_t for t in [start_, end) of one combo, replayed from its
  // kept state; `state` (optional) receives its state entering `end`.
  // `r_last` (optional) receives r_{end-1} (left as it is when end <= start_).
  std::vector<int8_t> replay(const Combo& c, size_t slot, size_t end, ComboState* state,
                             int8_t* r_last = nullptr) const {
    ready();  // a no-op inside the workers: their caller made the ring ready
    const HistoryView ring = ring_view();
    RulesStreamLanes lanes(rows_, *c.program, ring);
    Group g;
    g.ids[0] = c.id;
    g.lanes = 1;
    load(lanes, g);
    ComboState st{lane_[slot].p2, lane_[slot].p1, stop_[slot]};
    std::vector<int8_t> p{st.p2, st.p1};
    replay_positions(lanes.in[0], kGivenKind, lanes.matrix.data(), bar_tables(), start_,
                     std::max(end, start_), st, p);
    if (state) *state = st;
    if (r_last && end > start_) *r_last = static_cast<int8_t>(lanes.matrix[end - 1 - base_]);
    return p;
  }

  // s_t (SPEC §2) for t in [first, end), max(start_, 1) <= first.
  std::vector<double> window_returns(const Combo& c, size_t slot, size_t first, size_t end) const {
    const std::vector<int8_t> p = replay(c, slot, end - 1, nullptr);  // p_{t-2}, p_{t-1}
    const HistoryView ring = ring_view();
    const double cost = spec_.strategy.costs.per_unit();
    std::vector<double> out;
    out.reserve(end - first);
    for (size_t t = first; t < end; ++t) {
      const BarSegments b = bar_segments(ring, spec_.strategy.fill, cost, t - base_, p[t - start_],
                                         p[t - start_ + 1]);
      out.push_back(b.exit_value + b.body_value);
    }
    return out;
  }

  // A combo's window metrics from its Summary; from its positions bar by bar (SPEC §6's
  // literal drawdown) where its equity reached zero, as the backend's sequential().
  Metrics metrics(const Combo& c, size_t slot, const Summary& s) const {
    if (!s.nonpositive) return finalize(s, spec_.strategy.bars_per_year);
    const size_t first = window().first();
    const std::vector<int8_t> p = replay(c, slot, end_ - 1, nullptr);
    const HistoryView ring = ring_view();
    const double cost = spec_.strategy.costs.per_unit();
    SequentialMetrics m;
    for (size_t t = first; t < end_; ++t)
      m.add(bar_segments(ring, spec_.strategy.fill, cost, t - base_, p[t - start_],
                         p[t - start_ + 1]));
    return m.finish(spec_.strategy.bars_per_year);
  }

  // The window ending at the newest bar, ranked, its combos' states moved to its first bar
  // on the way; while the history is too short, the states move and SPEC §3's refusal is
  // thrown.
  SweepResult sweep(std::chrono::steady_clock::time_point t0) {
    SweepRequest req;
    req.strategy = spec_.strategy;
    req.window = window();
    req.rank = spec_.rank;
    req.precision = spec_.precision;
    req.threads = spec_.threads;
    try {
      check_window(req.window, end_, spec_.strategy);
    } catch (const std::invalid_argument&) {
      settle();  // the states still follow the bars: the stream stays bounded
      throw;
    }
    const size_t first = req.window.first();
    SweepRanking ranking(req, count_combos(spec_.strategy.grid), threads_);
    const Offer offer = [&ranking](int worker, const Combo& c, const Metrics& m) {
      ranking.offer(worker, c, m);
    };
    slide(first, &offer);
    return ranking.result(
        t0, [&](const Combo& c) { return window_returns(c, slot_of_[c.id], first, end_); });
  }

  void check_range(size_t first, size_t end, size_t oldest) const {
    if (first < oldest || first > end || end > end_)
      throw std::invalid_argument("bars [" + std::to_string(first) + ", " + std::to_string(end) +
                                  ") are not within what this stream can replay, [" +
                                  std::to_string(oldest) + ", " + std::to_string(end_) +
                                  ") (its horizon is " + std::to_string(start_) + ")");
  }

  // The slot of c, when c is that point of the stream's grid and valid.
  size_t checked(const Combo& c) const {
    const Grid& g = spec_.strategy.grid;
    if (c.id >= g.size()) throw std::invalid_argument("combo id outside the stream's grid");
    const Combo d = g.decode(c.id);
    if (!detail::same_point(d, c))
      throw std::invalid_argument("combo " + std::to_string(c.id) +
                                  " is not that point of the stream's grid");
    if (!d.valid()) throw std::invalid_argument("combo " + std::to_string(c.id) + " is invalid");
    return slot_of_[c.id];
  }

  StreamSpec spec_;
  int threads_;
  std::vector<Group> groups_;
  std::vector<uint32_t> slot_of_;  // combo id -> slot (group * kLanes + lane); UINT32_MAX: invalid
  // The grid's rows over the ring's bars [base_, end_) (first_defined and gaps refreshed
  // before use), and their incremental states at end_.
  mutable RulesRows rows_;
  mutable bool dirty_ = true;
  detail::RulesRowStates states_;
  Series ring_;                             // bars [base_, end_)
  mutable std::vector<double> gap_, body_;  // the ring's bar_returns, made when first read
  size_t base_ = 0, start_ = 0, end_ = 0, cap_ = 0;
  // Per slot, entering bar start_: r_{start-1}, p_{start-2}, p_{start-1}, the stops' state.
  std::vector<int8_t> r_;
  std::vector<LaneState> lane_;
  std::vector<StopState> stop_;
};

PositionTracker RulesStream::tracker(const Combo& combo, size_t keep) const {
  const size_t slot = checked(combo);
  const Combo c = spec_.strategy.grid.decode(combo.id);
  // The combo's rows: its keys' states among the grid's, in the order its own set holds them.
  std::vector<detail::RulesRowKey> keys;
  std::vector<int> vols;
  detail::RulesComboRows::keys_of(c, keys, vols);
  std::vector<size_t> which;
  const std::vector<detail::RulesRowKey>& grid_keys = rows_.keys();
  const std::vector<int>& grid_vols = rows_.vol_periods();
  for (const detail::RulesRowKey& k : keys)
    which.push_back(
        static_cast<size_t>(std::find(grid_keys.begin(), grid_keys.end(), k) - grid_keys.begin()));
  for (int n : vols)
    which.push_back(
        grid_keys.size() +
        static_cast<size_t>(std::find(grid_vols.begin(), grid_vols.end(), n) - grid_vols.begin()));
  detail::RulesComboRows rows(c, states_.subset(which));
  // At least the newest position, and the state its next decision starts from.
  const size_t kept = std::max<size_t>(keep, 1);
  const size_t first = std::max(start_, end_ > kept ? end_ - kept : 0);
  ComboState state;
  int8_t r1 = r_[slot];
  const std::vector<int8_t> p = replay(c, slot, end_, &state, &r1);
  std::vector<int8_t> positions(p.begin() + static_cast<ptrdiff_t>(first + 2 - start_),
                                p.begin() + static_cast<ptrdiff_t>(end_ + 2 - start_));
  rules::BarLeaves now;
  now.indicator.assign(c.program->indicators.size(), 0.0);
  double close1 = 0;
  int64_t last_ts = INT64_MIN;
  if (end_ > 0) {
    const size_t u = end_ - 1 - base_;
    now.field = {ring_.open[u], ring_.high[u], ring_.low[u], ring_.close[u], ring_.volume[u]};
    for (size_t i = 0; i < now.indicator.size(); ++i) now.indicator[i] = rows.indicator(i);
    close1 = ring_.close[u];
    last_ts = ring_.ts_ns[u];
  }
  return detail::TrackerSeed::make_rules(spec_.strategy, c, std::move(rows), now, r1, close1,
                                         last_ts, first, std::move(positions), state, keep);
}

// What RulesStream::stats().footprint_bytes can reach for `spec`, whatever the bars.
uint64_t rules_stream_bytes(const StreamSpec& spec) {
  const Grid& grid = spec.strategy.grid;
  const RulesRows rows(grid);
  const uint64_t ring = ring_capacity(spec);
  const std::vector<Group> groups = group_valid_combos(grid);
  const uint64_t slots = groups.size() * kLanes;
  return ring * 8 * (6 + 2 + rows.size()) +  // bars, gap and body, rows
         detail::RulesRowStates::most_bytes(rows.keys(), rows.vol_periods()) +
         grid.size() * sizeof(uint32_t) + groups.capacity() * sizeof(Group) +
         slots * (1 + sizeof(LaneState) + sizeof(StopState));
}

}  // namespace

std::unique_ptr<Stream> make_rules_stream([[maybe_unused]] Backend& backend, const StreamSpec& spec,
                                          const HistoryView& history) {
  const auto start = std::chrono::steady_clock::now();
  auto s = std::make_unique<RulesStream>(spec);
  s->take(history);
  s->open_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

std::unique_ptr<Stream> restore_rules_stream([[maybe_unused]] Backend& backend,
                                             const StreamSpec& spec,
                                             std::span<const uint8_t> blob) {
  const auto start = std::chrono::steady_clock::now();
  auto s = std::make_unique<RulesStream>(spec);
  s->load(blob);
  s->open_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

StreamMemory rules_stream_memory(const StreamSpec& spec) {
  StreamMemory m;
  m.host_bytes = rules_stream_bytes(spec);
  return m;
}

}  // namespace wfod::cpu
