// The fast CPU backend: groups combos of one kind into lanes, evaluates each group over the
// whole window (many combos) or over time chunks joined with combine() (few combos, long
// windows), ranks per thread and merges. Exact per SPEC §9 against cpu_ref.
#include "cpu/cpu_backend.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>

#include "cpu/cpu_blocks.hpp"
#include "cpu/cpu_stream.hpp"
#include "cpu/indicator_cache.hpp"
#include "cpu/lane_kernel.hpp"
#include "cpu/lane_setup.hpp"
#include "cpu/thread_count.hpp"
#include "wfod/segments.hpp"

namespace wfod::cpu {
namespace {

// Exit gap and body return of every bar (SPEC §2), shared by all combos of a sweep.
struct BarReturns {
  std::vector<double> gap, body;
  BarReturns(const HistoryView& h, Fill fill) { bar_returns(h, fill, h.size(), gap, body); }
};

Metrics evaluate_sequential(const IndicatorCache& cache, const SweepRequest& req, const Combo& c) {
  return evaluate_sequential(cache, req.history, req.strategy.fill, req.strategy.costs.per_unit(),
                             req.strategy.bars_per_year, c, req.window.first(), req.window.end);
}

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }

  SweepResult sweep(const SweepRequest& req) override {
    const auto start = std::chrono::steady_clock::now();
    check_window(req);
    const Grid& grid = req.strategy.grid;
    SweepResult result;
    result.backend = "cpu";
    std::vector<Group> groups;
    {
      Group open[6];
      const uint64_t total = grid.size();
      for (uint64_t id = 0; id < total; ++id) {
        const Combo c = grid.decode(id);
        if (!c.valid()) {
          ++result.skipped;
          continue;
        }
        ++result.evaluated;
        Group& g = open[kind_of(c)];
        g.kind = kind_of(c);
        g.ids[g.lanes++] = id;
        if (g.lanes == kLanes) {
          groups.push_back(g);
          g.lanes = 0;
        }
      }
      for (auto& g : open)
        if (g.lanes) groups.push_back(g);
    }

    const int threads = resolve_threads(req.threads);
    std::vector<TopK> tops(static_cast<size_t>(threads), TopK(req.rank.top));
    std::vector<uint64_t> ranked(static_cast<size_t>(threads), 0);
    run_groups(req, groups, threads, [&](int worker, const Combo& c, const Metrics& m) {
      if (!passes_constraints(m, req.rank)) return;
      ++ranked[static_cast<size_t>(worker)];
      tops[static_cast<size_t>(worker)].offer({c, m, objective_value(m, req.rank.objective)});
    });
    TopK top(req.rank.top);
    for (const auto& t : tops) top.merge(t);
    for (auto r : ranked) result.ranked += r;
    result.top = top.sorted();
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  std::vector<Metrics> evaluate(const SweepRequest& req, std::span<const uint64_t> ids) override {
    check_window(req);
    const IdGroups g = group_ids(req.strategy.grid, ids);
    std::vector<Metrics> out(ids.size());
    run_groups(
        req, g.groups, resolve_threads(req.threads), [&](int, const Combo&, const Metrics&) {},
        [&](size_t gi, int lane, const Metrics& m) {
          out[g.slot_of[g.group_base[gi] + static_cast<size_t>(lane)]] = m;
        });
    return out;
  }

  std::vector<Summary> block_summaries(const SweepRequest& req,
                                       std::span<const size_t> cuts) override {
    return cpu::block_summaries(req, cuts);  // cpu_blocks.cpp
  }

  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec&,
                                const Combo& c) override {
    IndicatorCache cache(h, c);
    return forward_positions(cache, h, c, h.size());
  }

  std::unique_ptr<Stream> open_stream(const StreamSpec& spec, const HistoryView& h) override {
    return make_cpu_stream(spec, h);
  }

  std::unique_ptr<Stream> restore_stream(const StreamSpec& spec,
                                         std::span<const uint8_t> blob) override {
    return restore_cpu_stream(spec, blob);
  }

 private:
  using OnMetrics = std::function<void(int worker, const Combo&, const Metrics&)>;
  using OnSlot = std::function<void(size_t group, int lane, const Metrics&)>;

  // Evaluates every lane of every group; calls on_metrics from worker threads (each worker
  // with its own index) and, when given, on_slot with the group and lane.
  void run_groups(const SweepRequest& req, const std::vector<Group>& groups, int threads,
                  const OnMetrics& on_metrics, const OnSlot& on_slot = {}) {
    if (groups.empty()) return;
    const auto& h = req.history;
    const auto& w = req.window;
    const Grid& grid = req.strategy.grid;
    IndicatorCache cache(h, grid, threads);
    BarReturns returns(h, req.strategy.fill);
    const BarTables tables{returns.gap.data(), returns.body.data(), h.close.data(),
                           req.strategy.costs.per_unit()};

    // Few groups and a long window: split time too, so every thread has work.
    const size_t chunks = time_chunks(groups.size(), threads, w.bars);
    const size_t items = groups.size() * chunks;
    std::vector<Summary> summaries(chunks > 1 ? items * kLanes : 0);

    auto finish_group = [&](int worker, size_t gi, const Summary* lane_summaries) {
      const Group& g = groups[gi];
      for (int j = 0; j < g.lanes; ++j) {
        const Combo c = grid.decode(g.ids[j]);
        const Summary& s = lane_summaries[j];
        const Metrics m = s.nonpositive ? evaluate_sequential(cache, req, c)
                                        : finalize(s, req.strategy.bars_per_year);
        on_metrics(worker, c, m);
        if (on_slot) on_slot(gi, j, m);
      }
    };

    std::atomic<size_t> next{0}, done{0};
    auto worker = [&](int index) {
      Summary local[kLanes];
      LaneInput in[kLanes];
      for (size_t item; (item = next.fetch_add(1)) < items;) {
        const size_t gi = item / chunks, ci = item % chunks;
        const Group& g = groups[gi];
        for (int j = 0; j < g.lanes; ++j) in[j] = lane_input(cache, grid.decode(g.ids[j]));
        const size_t lo = w.first() + w.bars * ci / chunks;
        const size_t hi = w.first() + w.bars * (ci + 1) / chunks;
        const int kind = g.kind;
        Summary* out = chunks > 1 ? &summaries[item * kLanes] : local;
        run_lanes(kind >= 4 ? Family::channel_breakout : Family::ma_cross, (kind & 2) != 0,
                  (kind & 1) != 0, tables, cache.matrix(), in, g.lanes, lo, hi, out);
        if (chunks == 1) finish_group(index, gi, local);
        done.fetch_add(1, std::memory_order_relaxed);
      }
    };

    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i) pool.emplace_back(worker, i);
    if (req.progress) {
      // The calling thread reports progress while the pool works, then joins in.
      std::thread last(worker, 0);
      while (done.load() < items) {
        req.progress(static_cast<double>(done.load()) / static_cast<double>(items));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      last.join();
      req.progress(1.0);
    } else {
      worker(0);
    }
    for (auto& t : pool) t.join();

    if (chunks > 1) {
      // Join each group's chunks left to right (SPEC §6: any cut gives the same result).
      for (size_t gi = 0; gi < groups.size(); ++gi) {
        Summary joined[kLanes];
        for (size_t ci = 0; ci < chunks; ++ci)
          for (int j = 0; j < groups[gi].lanes; ++j)
            joined[j] =
                combine(joined[j], summaries[(gi * chunks + ci) * kLanes + static_cast<size_t>(j)]);
        finish_group(0, gi, joined);
      }
    }
  }
};

}  // namespace
}  // namespace wfod::cpu

namespace wfod {
std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }
}  // namespace wfod
