// Rules strategies on the cpu backend: lane groups of rules combos (all of the given kind),
// each group's r_t rows evaluated by the worker that runs it, then the lane kernel over them.
// Every valid combo's metrics come from the same Summary arithmetic as the built-in families'
// (run_lanes), the rare combo whose equity reaches zero from its positions sequentially.
#include "rules_lanes.hpp"

#include <atomic>
#include <chrono>
#include <functional>

#include "lane_groups.hpp"
#include "lane_kernel.hpp"
#include "rules_eval.hpp"
#include "src/huge_pages.hpp"
#include "src/lane_setup.hpp"
#include "src/thread_count.hpp"
#include "src/worker_pool.hpp"
#include "sweep_ranking.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"

namespace wfod::cpu {
namespace {

// The per-bar columns every lane shares (SPEC §2), and the fill's entry prices (SPEC §5b).
struct Tables {
  std::vector<double> gap, body;
  BarTables bars;
  Tables(const SweepRequest& req) {
    const HistoryView& h = req.history;
    bar_returns(h, req.strategy.fill, h.size(), gap, body);
    bars = {gap.data(),
            body.data(),
            h.close.data(),
            req.strategy.costs.per_unit(),
            0,
            req.strategy.fill == Fill::next_open ? h.open.data() : nullptr};
  }
};

// One worker's lanes: the evaluator's scratch and kLanes rows of r_t over [0, end).
class Lanes {
 public:
  Lanes(const RulesRows& rows, const Grid& grid, const HistoryView& h, size_t end)
      : eval_(rows, *grid.program, h),
        grid_(grid),
        end_(end),
        matrix_(kLanes * end),
        codes_(kLanes * end) {}

  // Evaluates the group's combos into the rows (their conditions lane by lane, then their
  // transitions side by side); `combos` receives them.
  void load(const Group& g, Combo* combos) {
    const uint8_t* codes[kLanes];
    double* rows[kLanes];
    for (int j = 0; j < g.lanes; ++j) {
      combos[j] = grid_.decode(g.ids[j]);
      const size_t offset = static_cast<size_t>(j) * end_;
      eval_.codes(combos[j], end_, codes_.data() + offset);
      codes[j] = codes_.data() + offset;
      rows[j] = matrix_.data() + offset;
      in_[j] = rules_lane_input(combos[j], rows[j], static_cast<int64_t>(offset));
    }
    RulesEvaluator::transitions(codes, g.lanes, end_, rows);
  }
  const LaneInput* inputs() const { return in_; }
  const LaneInput& input(int j) const { return in_[j]; }
  const double* matrix() const { return matrix_.data(); }

 private:
  RulesEvaluator eval_;
  const Grid& grid_;
  size_t end_;
  std::vector<double> matrix_;
  std::vector<uint8_t> codes_;
  LaneInput in_[kLanes];
};

// Metrics of one lane whose equity reached zero: from its positions, bar by bar (SPEC §6's
// literal drawdown), as the built-in families' evaluate_sequential.
Metrics sequential(const SweepRequest& req, const LaneInput& in) {
  const HistoryView& h = req.history;
  const Fill fill = req.strategy.fill;
  const size_t first = req.window.first(), end = req.window.end;
  std::vector<int8_t> p;
  p.reserve(end);
  ComboState state;
  run_positions(in, kGivenKind, h.close.data(), fill == Fill::next_open ? h.open.data() : nullptr,
                0, end, state, p);
  SequentialMetrics seq;
  for_each_segment(h, fill, req.strategy.costs.per_unit(), p, first, end,
                   position_or_flat(p, first - 2),
                   [&](size_t, const BarSegments& s) { seq.add(s); });
  return seq.finish(req.strategy.bars_per_year);
}

// Runs every group over the window on `threads` workers: on_lane(worker, group, lane, combo,
// metrics) for each lane, from the worker's thread.
using OnLane = std::function<void(int, size_t, int, const Combo&, const Metrics&)>;
void run_groups(const SweepRequest& req, const RulesRows& rows, const std::vector<Group>& groups,
                int threads, const OnLane& on_lane) {
  if (groups.empty()) return;
  const Tables tables(req);
  const size_t first = req.window.first(), end = req.window.end;
  std::atomic<size_t> next{0}, done{0};
  auto worker = [&](int index) {
    Lanes lanes(rows, req.strategy.grid, req.history, end);
    Combo combos[kLanes];
    Summary out[kLanes];
    for (size_t gi; (gi = next.fetch_add(1)) < groups.size();) {
      const Group& g = groups[gi];
      lanes.load(g, combos);
      run_lanes(kGivenKind, g.stops, tables.bars, lanes.matrix(), lanes.inputs(), g.lanes, first,
                end, out);
      for (int j = 0; j < g.lanes; ++j) {
        const Metrics m = out[j].nonpositive ? sequential(req, lanes.input(j))
                                             : finalize(out[j], req.strategy.bars_per_year);
        on_lane(index, gi, j, combos[j], m);
      }
      done.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::function<void()> poll;
  if (req.progress) {
    poll = [&] {
      req.progress(static_cast<double>(done.load()) / static_cast<double>(groups.size()));
    };
  }
  wfod::detail::run_workers(threads, worker, poll);
  if (req.progress) req.progress(1.0);
}

}  // namespace

LaneInput rules_lane_input(const Combo& c, const double* row, int64_t offset) {
  LaneInput in;
  in.off_a = in.off_b = offset;
  in.a = in.b = row;
  in.stop_loss = c.stop_loss;
  in.take_profit = c.take_profit;
  in.trailing_stop = c.trailing_stop;
  return in;
}

SweepResult rules_sweep(Backend& self, const SweepRequest& req) {
  const auto start = std::chrono::steady_clock::now();
  check_window(req);
  const Grid& grid = req.strategy.grid;
  const int threads = resolve_threads(req.threads);
  const std::vector<Group> groups = group_valid_combos(grid);
  const RulesRows rows(req.history, grid, threads);
  SweepRanking ranking(req, count_combos(grid), threads);
  run_groups(req, rows, groups, threads,
             [&ranking](int worker, size_t, int, const Combo& c, const Metrics& m) {
               ranking.offer(worker, c, m);
             });
  return ranking.result(self, start);
}

std::vector<Metrics> rules_evaluate(const SweepRequest& req, std::span<const uint64_t> ids) {
  check_window(req);
  const Grid& grid = req.strategy.grid;
  const LaneGroups grouped = group_ids(grid, ids);  // throws on an unknown or invalid id
  std::vector<Combo> combos;
  combos.reserve(ids.size());
  for (uint64_t id : ids) combos.push_back(grid.decode(id));
  const int threads = resolve_threads(req.threads);
  const RulesRows rows(req.history, combos, threads);
  std::vector<Metrics> out(ids.size());
  run_groups(req, rows, grouped.groups, threads,
             [&](int, size_t g, int lane, const Combo&, const Metrics& m) {
               out[grouped.slot_of[grouped.group_base[g] + static_cast<size_t>(lane)]] = m;
             });
  return out;
}

std::vector<Summary> rules_block_summaries(const SweepRequest& req, std::span<const size_t> cuts) {
  check_window(req);
  selection::check_cuts(req, cuts);
  const Grid& grid = req.strategy.grid;
  const size_t blocks = cuts.size() + 1;
  std::vector<Summary> out;
  resize_on_huge_pages(out, grid.size() * blocks);
  const std::vector<Group> groups = group_valid_combos(grid);
  if (groups.empty()) return out;
  const int threads = resolve_threads(req.threads);
  const RulesRows rows(req.history, grid, threads);
  const Tables tables(req);
  auto edge = [&](size_t b) {
    return b == 0 ? req.window.first() : b == blocks ? req.window.end : cuts[b - 1];
  };
  // A group's blocks run left to right, each from the state the previous one left
  // (cpu_blocks.cpp's LaneRange chain), the first from the rows' scan back.
  std::atomic<size_t> next{0};
  wfod::detail::run_workers(threads, [&](int) {
    Lanes lanes(rows, grid, req.history, req.window.end);
    Combo combos[kLanes];
    LaneState state[2][kLanes];
    StopState stops[2][kLanes];
    Summary lane_out[kLanes];
    for (size_t gi; (gi = next.fetch_add(1)) < groups.size();) {
      const Group& g = groups[gi];
      lanes.load(g, combos);
      for (size_t b = 0; b < blocks; ++b) {
        const size_t in_state = (b + 1) % 2, out_state = b % 2;
        const LaneState* from = b == 0 ? nullptr : state[in_state];
        const LaneRange range{edge(b),          edge(b),         edge(b + 1),     from,
                              state[out_state], stops[in_state], stops[out_state]};
        run_lanes(kGivenKind, g.stops, tables.bars, lanes.matrix(), lanes.inputs(), g.lanes, range,
                  lane_out);
        for (int j = 0; j < g.lanes; ++j) out[g.ids[j] * blocks + b] = lane_out[j];
      }
    }
  });
  return out;
}

std::vector<int8_t> rules_positions(const HistoryView& h, const StrategySpec& spec,
                                    const Combo& c) {
  if (!c.valid()) throw std::invalid_argument("cpu: invalid combo");
  if (!c.program) throw std::invalid_argument("cpu: a rules combo without its program");
  const RulesRows rows(h, std::span<const Combo>(&c, 1), 1);
  RulesEvaluator eval(rows, *c.program, h);
  std::vector<double> r(h.size());
  eval.targets(c, h.size(), r.data());
  std::vector<int8_t> p;
  p.reserve(h.size());
  ComboState state;
  run_positions(rules_lane_input(c, r.data(), 0), kGivenKind, h.close.data(),
                spec.fill == Fill::next_open ? h.open.data() : nullptr, 0, h.size(), state, p);
  return p;
}

}  // namespace wfod::cpu
