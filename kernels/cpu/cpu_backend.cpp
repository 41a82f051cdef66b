// The fast CPU backend: groups combos of one kind into lanes, evaluates each group over the
// whole window (many combos) or over time chunks joined with combine() (few combos, long
// windows), ranks per thread and merges. Exact per SPEC §9 against cpu_ref. Grids whose
// indicator rows exceed the request's memory budget run tile by tile (sweep_tiles.hpp),
// evaluate() lists batch by batch, each with only its own rows: the same results, bit for
// bit, in bounded memory.
#include "cpu_backend.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "cpu_blocks.hpp"
#include "cpu_prepared.hpp"
#include "cpu_stream.hpp"
#include "lane_groups.hpp"
#include "lane_kernel.hpp"
#include "rules_lanes.hpp"
#include "rules_stream.hpp"
#include "src/huge_pages.hpp"
#include "src/indicator_cache.hpp"
#include "src/lane_setup.hpp"
#include "src/thread_count.hpp"
#include "src/worker_pool.hpp"
#include "sweep_ranking.hpp"
#include "sweep_tiles.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"

namespace wfod::cpu {
namespace {

// Exit gap and body return of every bar (SPEC §2), shared by all combos of a sweep.
struct BarReturns {
  std::vector<double> gap, body;
  BarReturns(const HistoryView& h, Fill fill) { bar_returns(h, fill, h.size(), gap, body); }
  static size_t bytes(size_t bars) { return 2 * bars * sizeof(double); }
};

// The lane kernel's columns over the request's history (its opens too with fill next_open: a
// trade's entry price for its stops).
BarTables tables_of(const BarReturns& returns, const SweepRequest& req) {
  const HistoryView& h = req.history;
  return {returns.gap.data(),
          returns.body.data(),
          h.close.data(),
          req.strategy.costs.per_unit(),
          0,
          req.strategy.fill == Fill::next_open ? h.open.data() : nullptr};
}

Metrics evaluate_sequential(const IndicatorCache& cache, const SweepRequest& req, const Combo& c) {
  return evaluate_sequential(cache, req.history, req.strategy.fill, req.strategy.costs.per_unit(),
                             req.strategy.bars_per_year, c, req.window.first(), req.window.end);
}

size_t budget_of(const SweepRequest& req) {
  return req.memory_budget ? req.memory_budget : kDefaultMemoryBudget;
}

// The budget left for indicator rows and lane groups once the bar tables are counted.
size_t rows_budget(const SweepRequest& req) {
  const size_t budget = budget_of(req), tables = BarReturns::bytes(req.history.size());
  if (budget <= tables) {
    throw std::invalid_argument(
        "memory budget of " + std::to_string(budget) + " bytes is too small: the bar tables of " +
        std::to_string(req.history.size()) + " bars alone need " + std::to_string(tables));
  }
  return budget - tables;
}

// Lane groups one pass over all valid combos of the grid forms: one run of groups per kind.
size_t sweep_groups(const Grid& grid, uint64_t valid) {
  // ma_cross's entry and bollinger's style split kinds; neither affects validity.
  const uint64_t kinds = grid.family == Family::ma_cross    ? grid.entry.size()
                         : grid.family == Family::bollinger ? grid.style.size()
                                                            : 1;
  const uint64_t per_kind = valid / kinds;
  return static_cast<size_t>(kinds * ((per_kind + kLanes - 1) / kLanes));
}

// A combo's indicator series as keys (what evaluate() batches by); a channel key stands for
// its two rows (upper and lower). Bollinger reads SMA(n) (an ma key) and STD(n) (a vol key).
int row_keys(const Combo& c, uint64_t out[4]) {
  auto key = [](uint64_t what, uint64_t sub, int period) {
    return what << 40 | sub << 32 | static_cast<uint32_t>(period);
  };
  int n = 0;
  switch (c.family) {
    case Family::ma_cross:
      out[n++] = key(0, static_cast<uint64_t>(c.ma), c.fast);
      out[n++] = key(0, static_cast<uint64_t>(c.ma), c.slow);
      break;
    case Family::channel_breakout:
      out[n++] = key(1, static_cast<uint64_t>(c.source), c.n);
      break;
    case Family::bollinger:
      out[n++] = key(0, static_cast<uint64_t>(MaType::sma), c.n);
      out[n++] = key(2, 0, c.n);
      break;
    case Family::rsi_reversion:
      out[n++] = key(3, 0, c.n);
      break;
    case Family::rules:  // rules grids run through rules_lanes.hpp, never here
      throw Unsupported("the cpu backend's built-in rows do not cover rules strategies");
  }
  if (c.has_vol) {
    out[n++] = key(2, 0, c.vol_short);
    out[n++] = key(2, 0, c.vol_long);
  }
  return n;
}
size_t rows_of_key(uint64_t key) { return (key >> 40) == 1 ? 2 : 1; }

// The block Summaries a sweep computes in its own pass (PrepareSpec::pbo_blocks): the
// window's cuts and where each combo's blocks go (combo-major, as block_summaries).
struct SweepBlocks {
  std::vector<size_t> cuts;
  std::vector<Summary> out;
  size_t count() const { return cuts.size() + 1; }
};

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }

  // Every built-in family, its filter and its stops (SPEC §5b: a group of combos whose stops
  // act runs the lane kernel with their state), for every kind of work; SPEC §5a's rules too
  // (rules_lanes.hpp; their streams re-sweep the window, rules_stream.hpp).
  Support supports(Work, const StrategySpec&) const override { return Support::yes(); }

  // A preparation that may keep a sweep's block Summaries (PrepareSpec::pbo_blocks; the base,
  // holding nothing, otherwise).
  std::shared_ptr<PreparedHistory> prepare(const HistoryView& history, const StrategySpec& strategy,
                                           const PrepareSpec& spec) override {
    if (spec.pbo_blocks == 0) return Backend::prepare(history, strategy, spec);
    PrepareSpec resolved = spec;
    resolved.bars = prepared_bars(spec.bars, history.size());
    return std::make_shared<CpuPreparedHistory>(resolved, this);
  }

  SweepResult sweep(const SweepRequest& req) override {
    require(supports(Work::sweep, req.strategy));
    ++epoch_;  // spends any kept blocks
    if (req.strategy.grid.family == Family::rules) return rules_sweep(*this, req);
    const auto start = std::chrono::steady_clock::now();
    check_window(req);
    const Grid& grid = req.strategy.grid;
    const HistoryView& h = req.history;
    const ComboCount count = count_combos(grid);

    const int threads = resolve_threads(req.threads);
    const size_t chunks = time_chunks(sweep_groups(grid, count.valid), threads, req.window.bars);
    const TilePlan plan = plan_tiles(grid, h.size(), rows_budget(req));
    const BarReturns returns(h, req.strategy.fill);
    const BarTables tables = tables_of(returns, req);
    CpuPreparedHistory* prep = ours(req);
    if (prep) prep->take();  // spent: free them before this sweep's
    std::optional<SweepBlocks> blocks = sweep_blocks(req, prep, chunks);

    SweepRanking ranking(req, count, threads);
    const auto on_metrics = [&ranking](int worker, const Combo& c, const Metrics& m) {
      ranking.offer(worker, c, m);
    };

    uint64_t done = 0;  // valid combos of the tiles finished
    for (size_t k = 0; k < plan.tiles; ++k) {
      const Tile tile = tile_at(grid, plan, k);
      if (!may_hold_valid(tile)) continue;
      LaneGrouper grouper;
      uint64_t tile_valid = 0;
      for_each_id(grid, tile, [&](uint64_t id) {
        const Combo c = grid.decode(id);
        if (!c.valid()) return;
        ++tile_valid;
        grouper.add(id, c);
      });
      const std::vector<Group> groups = grouper.finish().groups;
      if (groups.empty()) continue;
      const IndicatorCache cache(h, tile.grid, threads);
      std::function<void(double)> progress;
      if (req.progress) {
        progress = [&](double f) {
          req.progress((static_cast<double>(done) + f * static_cast<double>(tile_valid)) /
                       static_cast<double>(count.valid));
        };
      }
      run_groups(req, cache, tables, groups, threads, chunks, on_metrics, {}, progress,
                 blocks ? &*blocks : nullptr);
      done += tile_valid;
    }
    if (req.progress) req.progress(1.0);
    if (blocks) prep->keep({blocks_key(req, blocks->cuts), std::move(blocks->out)});
    // The reported combos' growth metrics from their own positions (positions()): the tiles'
    // caches are gone, and K are cheap.
    return ranking.result(*this, start);
  }

  // The size query of sweep(req), by the rule the sweep sizes its work by: the bar tables,
  // one tile's indicator rows and lane groups (plan_tiles under the same budget), the row
  // each thread computes before copying it into the tile's matrix (IndicatorCache::build)
  // and each thread's ranking. Throws what the sweep throws for a budget below one combo's
  // rows. Rules grids run through rules_lanes.hpp: the default's series model.
  SweepMemory sweep_memory(const SweepRequest& req) const override {
    if (req.strategy.grid.family == Family::rules) return Backend::sweep_memory(req);
    const size_t bars = req.history.size();
    const TilePlan plan = plan_tiles(req.strategy.grid, bars, rows_budget(req));
    const auto threads = static_cast<size_t>(resolve_threads(req.threads));
    SweepMemory m;
    m.host_bytes = BarReturns::bytes(bars) + plan.bytes_per_tile + threads * row_bytes(bars) +
                   (threads + 1) * req.rank.top * sizeof(Ranked);
    return m;
  }

  std::vector<Metrics> evaluate(const SweepRequest& req, std::span<const uint64_t> ids) override {
    require(supports(Work::sweep, req.strategy));
    ++epoch_;  // spends any kept blocks
    if (req.strategy.grid.family == Family::rules) return rules_evaluate(req, ids);
    check_window(req);
    const Grid& grid = req.strategy.grid;
    const HistoryView& h = req.history;
    std::vector<Combo> combos;
    combos.reserve(ids.size());
    size_t per_kind[kKindCount] = {};
    for (uint64_t id : ids) {
      if (id >= grid.size())
        throw std::invalid_argument("combo id " + std::to_string(id) + " is outside the grid");
      combos.push_back(grid.decode(id));
      if (!combos.back().valid())
        throw std::invalid_argument("combo id " + std::to_string(id) + " is invalid");
      ++per_kind[kind_of(combos.back())];
    }
    const int threads = resolve_threads(req.threads);
    size_t all_groups = 0;
    for (size_t n : per_kind) all_groups += (n + kLanes - 1) / kLanes;
    const size_t chunks = time_chunks(all_groups, threads, req.window.bars);
    const BarReturns returns(h, req.strategy.fill);
    const BarTables tables = tables_of(returns, req);
    // Batches of consecutive ids whose rows fit the budget (one combo's rows at least).
    const size_t budget = rows_budget(req);
    plan_tiles(grid, h.size(), budget);  // throws when one combo's rows do not fit
    const size_t max_rows = budget / row_bytes(h.size());

    std::vector<Metrics> out(ids.size());
    std::unordered_set<uint64_t> keys;
    size_t batch_rows = 0, batch_first = 0;
    auto run_batch = [&](size_t end) {
      if (end == batch_first) return;
      const std::span<const Combo> batch(combos.data() + batch_first, end - batch_first);
      // Groups per kind in id order, and each lane's position in `ids`.
      LaneGrouper grouper(/*track_slots=*/true);
      for (size_t i = batch_first; i < end; ++i) grouper.add(ids[i], combos[i], i);
      const LaneGroups grouped = grouper.finish();
      const std::vector<Group>& groups = grouped.groups;
      const IndicatorCache cache(h, batch, threads);
      std::function<void(double)> progress;
      if (req.progress) {
        const double before = static_cast<double>(batch_first),
                     size = static_cast<double>(end - batch_first);
        progress = [&req, &combos, before, size](double f) {
          req.progress((before + f * size) / static_cast<double>(combos.size()));
        };
      }
      run_groups(
          req, cache, tables, groups, threads, chunks, [](int, const Combo&, const Metrics&) {},
          [&](size_t g, int lane, const Metrics& m) {
            out[grouped.slot_of[grouped.group_base[g] + static_cast<size_t>(lane)]] = m;
          },
          progress);
      batch_first = end;
      keys.clear();
      batch_rows = 0;
    };
    for (size_t i = 0; i < combos.size(); ++i) {
      uint64_t combo_keys[4];
      const int n = row_keys(combos[i], combo_keys);
      size_t fresh = 0;
      for (int j = 0; j < n; ++j)
        if (!keys.count(combo_keys[j])) fresh += rows_of_key(combo_keys[j]);
      if (batch_rows + fresh > max_rows) {
        run_batch(i);
        fresh = 0;
        for (int j = 0; j < n; ++j) fresh += rows_of_key(combo_keys[j]);
      }
      keys.insert(combo_keys, combo_keys + n);
      batch_rows += fresh;
    }
    run_batch(combos.size());
    if (req.progress && !combos.empty()) req.progress(1.0);
    return out;
  }

  std::vector<Summary> block_summaries(const SweepRequest& req,
                                       std::span<const size_t> cuts) override {
    require(supports(Work::selection, req.strategy));
    // The blocks the sweep of this same request computed in its own pass, where no grid pass
    // ran since (they are the ones below, bit for bit: LaneBlocks).
    if (CpuPreparedHistory* prep = ours(req)) {
      std::optional<KeptBlocks> kept = prep->take();
      if (kept && kept->key == blocks_key(req, cuts)) {
        ++epoch_;
        return std::move(kept->summaries);
      }
    }
    ++epoch_;
    if (req.strategy.grid.family == Family::rules) return rules_block_summaries(req, cuts);
    return cpu::block_summaries(req, cuts);  // cpu_blocks.cpp
  }

  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& spec,
                                const Combo& c) override {
    require(supports(Work::sweep, spec));
    if (c.family == Family::rules) return rules_positions(h, spec, c);
    IndicatorCache cache(h, c);
    return forward_positions(cache, h, spec.fill, c, h.size());
  }

  // Rules positions are a pure function of their arguments (rules_lanes.cpp: every row and
  // target is built per call), so the daemon's loop thread may follow a rules winner with
  // them while the worker sweeps. The built-in families' trackers decide bar by bar instead.
  PositionsOf positions_source() const override {
    return [](const HistoryView& h, const StrategySpec& spec, const Combo& c) {
      return rules_positions(h, spec, c);
    };
  }

  std::unique_ptr<Stream> open_stream(const StreamSpec& spec, const HistoryView& h) override {
    require(supports(Work::stream, spec.strategy));
    if (spec.strategy.grid.family == Family::rules) return make_rules_stream(*this, spec, h);
    return make_cpu_stream(spec, h);
  }

  std::unique_ptr<Stream> restore_stream(const StreamSpec& spec,
                                         std::span<const uint8_t> blob) override {
    require(supports(Work::stream, spec.strategy));
    if (spec.strategy.grid.family == Family::rules) return restore_rules_stream(*this, spec, blob);
    return restore_cpu_stream(spec, blob);
  }

  StreamMemory stream_memory(const StreamSpec& spec) const override {
    if (spec.strategy.grid.family == Family::rules) return rules_stream_memory(spec);
    return cpu_stream_memory(spec);
  }
  // The built-in families' streams; a rules stream keeps its bars from the anchor and says so
  // through Stream::bounded() (false). No daemon opens one (it refuses rules at check-config).
  bool streams_bounded() const override { return true; }
  bool streams_open_concurrently() const override { return true; }

 private:
  // Counts the grid passes (sweep, evaluate, block_summaries): kept blocks serve only the
  // block_summaries call right after their sweep.
  std::atomic<uint64_t> epoch_{0};

  CpuPreparedHistory* ours(const SweepRequest& req) const {
    auto* prep = dynamic_cast<CpuPreparedHistory*>(req.prepared.get());
    return prep && prep->owner == this ? prep : nullptr;
  }

  BlocksKey blocks_key(const SweepRequest& req, std::span<const size_t> cuts) const {
    const WindowSpec& w = req.window;
    return {epoch_.load(),
            w.end,
            w.bars,
            w.warmup,
            std::vector<size_t>(cuts.begin(), cuts.end()),
            req.history.close.data(),
            req.history.size(),
            req.strategy.grid.size(),
            req.strategy.grid.family,
            req.strategy.fill,
            req.strategy.costs.per_unit()};
  }

  // The block Summaries this sweep computes beside its window's, where robust selection with
  // PBO follows on its preparation (PrepareSpec::pbo_blocks) and the fused pass applies: one
  // time chunk per group (time chunks would cut blocks, and joining a block's pieces with
  // combine() would not give the separate pass's bits; the selection then runs its own
  // pass). Stops ride along (the loop carries their state across each edge as the chain
  // does); rules grids never get here (rules_sweep, whose blocks rules_block_summaries
  // computes).
  static std::optional<SweepBlocks> sweep_blocks(const SweepRequest& req,
                                                 const CpuPreparedHistory* prep, size_t chunks) {
    if (!prep || chunks != 1 || !lane_kernel_fuses_blocks()) return std::nullopt;
    const size_t S = prep->pbo_blocks();
    if (S == 0 || S > req.window.bars) return std::nullopt;
    SweepBlocks b;
    b.cuts = selection::cscv_layout(req.window, S).cuts;
    // tens of MB: huge pages spare most first-touch faults (identity Summaries stay for
    // invalid combos)
    resize_on_huge_pages(b.out, req.strategy.grid.size() * b.count());
    return b;
  }

  using OnMetrics = std::function<void(int worker, const Combo&, const Metrics&)>;
  using OnSlot = std::function<void(size_t group, int lane, const Metrics&)>;

  // Evaluates every lane of every group, `chunks` time chunks each, with the rows of
  // `cache`; calls on_metrics from worker threads (each worker with its own index) and,
  // when given, on_slot with the group and lane. `progress`, when given, hears the
  // fraction of these groups done. `blocks`, when given (one chunk only), receives every
  // lane's block Summaries from the same pass (LaneBlocks).
  void run_groups(const SweepRequest& req, const IndicatorCache& cache, const BarTables& tables,
                  const std::vector<Group>& groups, int threads, size_t chunks,
                  const OnMetrics& on_metrics, const OnSlot& on_slot = {},
                  const std::function<void(double)>& progress = {}, SweepBlocks* blocks = nullptr) {
    if (blocks && chunks != 1) throw std::logic_error("run_groups: blocks need one time chunk");
    if (groups.empty()) return;
    const auto& w = req.window;
    const Grid& grid = req.strategy.grid;
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
      std::vector<Summary> block_lanes(blocks ? blocks->count() * kLanes : 0);
      const LaneBlocks lane_blocks{blocks ? blocks->cuts.data() : nullptr,
                                   blocks ? blocks->cuts.size() : 0, block_lanes.data()};
      for (size_t item; (item = next.fetch_add(1)) < items;) {
        const size_t gi = item / chunks, ci = item % chunks;
        const Group& g = groups[gi];
        for (int j = 0; j < g.lanes; ++j) in[j] = lane_input(cache, grid.decode(g.ids[j]));
        const size_t lo = w.first() + w.bars * ci / chunks;
        const size_t hi = w.first() + w.bars * (ci + 1) / chunks;
        Summary* out = chunks > 1 ? &summaries[item * kLanes] : local;
        run_lanes(g.kind, g.stops, tables, cache.matrix(), in, g.lanes, LaneRange{lo, lo, hi}, out,
                  blocks ? &lane_blocks : nullptr);
        if (blocks) {  // each group writes only its lanes' slots
          const size_t count = blocks->count();
          for (int j = 0; j < g.lanes; ++j)
            for (size_t b = 0; b < count; ++b)
              blocks->out[g.ids[j] * count + b] = block_lanes[b * kLanes + static_cast<size_t>(j)];
        }
        if (chunks == 1) finish_group(index, gi, local);
        done.fetch_add(1, std::memory_order_relaxed);
      }
    };
    // With progress, every worker gets a thread and this one reports until they finish.
    std::function<void()> poll;
    if (progress) {
      poll = [&] { progress(static_cast<double>(done.load()) / static_cast<double>(items)); };
    }
    wfod::detail::run_workers(threads, worker, poll);

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
