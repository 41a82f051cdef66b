// The cpu_ref backend (SPEC §9's oracle): sweeps, evaluates and reports positions by
// running every combo alone, start to finish, on one thread. Indicators are shared
// between combos through a per-call cache; nothing else is.
#include "cpu_ref_backend.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "ref_indicators.hpp"
#include "ref_metrics.hpp"
#include "ref_returns.hpp"
#include "ref_strategy.hpp"
#include "wfod/selection/blocks.hpp"

namespace wfod {
namespace {

// Metrics of one valid combo over the request's window.
Metrics evaluate_combo(ref::IndicatorCache& cache, const SweepRequest& req, const Combo& combo) {
  const std::vector<int8_t> positions = ref::combo_positions(cache, combo, req.strategy.fill);
  const std::vector<ref::BarSegments> segments =
      ref::window_segments(cache.history(), positions, req.window.first(), req.window.end,
                           req.strategy.fill, req.strategy.costs.per_unit());
  return ref::window_metrics(segments, req.strategy.bars_per_year);
}

// Indicator series one combo of `grid` reads at most: two for a built-in family; a rules
// strategy's used indicators, a band counting its SMA and STD (and the band it forms).
size_t series_per_combo(const Grid& grid) {
  size_t series = 2;
  if (grid.family == Family::rules && grid.program) {
    series = 0;
    for (const rules::Indicator& ind : grid.program->indicators) {
      if (!ind.used) continue;
      const bool band = ind.kind == rules::Kind::bb_upper || ind.kind == rules::Kind::bb_lower;
      series += band ? 3 : 1;
    }
  }
  return series + (grid.has_vol_filter() ? 2 : 0);
}

// The bytes of indicator series the cache keeps between combos: the request's budget. One
// combo's own series must fit it (the contract every backend keeps).
size_t cache_capacity(const SweepRequest& req) {
  const size_t budget = req.memory_budget ? req.memory_budget : kDefaultMemoryBudget;
  const Grid& grid = req.strategy.grid;
  const size_t series = series_per_combo(grid);
  const size_t one_combo = series * req.window.end * sizeof(double);
  if (one_combo > budget) {
    throw std::invalid_argument("memory budget of " + std::to_string(budget) +
                                " bytes is too small: one combo reads " + std::to_string(series) +
                                " indicator series of " + std::to_string(req.window.end) +
                                " bars (" + std::to_string(one_combo) + " bytes)");
  }
  return budget;
}

Combo decode_checked(const Grid& grid, uint64_t id) {
  if (id >= grid.size()) {
    throw std::invalid_argument("cpu_ref: combo id " + std::to_string(id) +
                                " is outside the grid (size " + std::to_string(grid.size()) + ")");
  }
  Combo combo = grid.decode(id);
  if (!combo.valid()) {
    throw std::invalid_argument("cpu_ref: combo id " + std::to_string(id) + " is invalid");
  }
  return combo;
}

class CpuRefBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu_ref"; }

  SweepResult sweep(const SweepRequest& req) override {
    const auto started = std::chrono::steady_clock::now();
    check_window(req);
    const Grid& grid = req.strategy.grid;
    // Bars at or after the window's end cannot change it (positions are causal), so the
    // indicators only cover the history up to T.
    ref::IndicatorCache cache(req.history.prefix(req.window.end), cache_capacity(req));
    TopK top(req.rank.top);
    SweepResult result;
    result.unranked_by.emplace();
    const uint64_t total = grid.size();
    // About a hundred progress calls per sweep, whatever its size.
    const uint64_t progress_every = std::max<uint64_t>(1, total / 100);
    for (uint64_t id = 0; id < total; ++id) {
      const Combo combo = grid.decode(id);
      if (!combo.valid()) {
        ++result.skipped;
      } else {
        ++result.evaluated;
        const Metrics metrics = evaluate_combo(cache, req, combo);
        if (passes_constraints(metrics, req.rank)) {
          ++result.ranked;
          top.offer(Ranked{combo, metrics, objective_value(metrics, req.rank.objective)});
        } else {
          result.unranked_by->count(metrics, req.rank);
        }
        cache.trim();
      }
      if (req.progress && (id + 1) % progress_every == 0 && id + 1 < total) {
        req.progress(static_cast<double>(id + 1) / static_cast<double>(total));
      }
    }
    if (req.progress) req.progress(1.0);
    result.top = top.sorted();
    result.backend = std::string(name());
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  }

  std::vector<Metrics> evaluate(const SweepRequest& req, std::span<const uint64_t> ids) override {
    check_window(req);
    // Every id is checked before any work, so a bad id fails fast and alone.
    std::vector<Combo> combos;
    combos.reserve(ids.size());
    for (uint64_t id : ids) combos.push_back(decode_checked(req.strategy.grid, id));
    ref::IndicatorCache cache(req.history.prefix(req.window.end), cache_capacity(req));
    std::vector<Metrics> out;
    out.reserve(combos.size());
    for (const Combo& combo : combos) {
      out.push_back(evaluate_combo(cache, req, combo));
      cache.trim();
    }
    return out;
  }

  std::vector<Summary> block_summaries(const SweepRequest& req,
                                       std::span<const size_t> cuts) override {
    check_window(req);
    selection::check_cuts(req, cuts);
    const Grid& grid = req.strategy.grid;
    const size_t blocks = cuts.size() + 1;
    std::vector<Summary> out(grid.size() * blocks);
    ref::IndicatorCache cache(req.history.prefix(req.window.end), cache_capacity(req));
    for (uint64_t id = 0; id < grid.size(); ++id) {
      const Combo combo = grid.decode(id);
      if (!combo.valid()) continue;  // identity Summaries
      const std::vector<ref::BarSegments> segments = ref::window_segments(
          cache.history(), ref::combo_positions(cache, combo, req.strategy.fill),
          req.window.first(), req.window.end, req.strategy.fill, req.strategy.costs.per_unit());
      cache.trim();
      // Plain: walk the window bar by bar, moving to the next block at each cut.
      size_t block = 0;
      for (size_t i = 0; i < segments.size(); ++i) {
        const size_t t = req.window.first() + i;
        while (block < cuts.size() && t >= cuts[block]) ++block;
        const ref::BarSegments& s = segments[i];
        out[id * blocks + block] = combine(out[id * blocks + block],
                                           summarize_bar({s.exit_pos, s.body_pos, s.exit, s.body}));
      }
    }
    return out;
  }

  std::vector<int8_t> positions(const HistoryView& history, const StrategySpec& strategy,
                                const Combo& combo) override {
    // Positions depend on the bars and the combo, and with stops on the fill (a trade's entry
    // price, SPEC §5b); costs and A act on returns only.
    ref::IndicatorCache cache(history);
    return ref::combo_positions(cache, combo, strategy.fill);
  }
  // The oracle is a pure function of its arguments (its cache is local to each call).
  PositionsOf positions_source() const override {
    return [](const HistoryView& history, const StrategySpec& strategy, const Combo& combo) {
      ref::IndicatorCache cache(history);
      return ref::combo_positions(cache, combo, strategy.fill);
    };
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_ref_backend() { return std::make_unique<CpuRefBackend>(); }

}  // namespace wfod
