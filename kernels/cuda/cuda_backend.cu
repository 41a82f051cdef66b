// The CUDA backend: uploads the history, builds the indicator rows on the device, picks the
// layout by shape (a thread per combo when combos fill the GPU, else time chunks joined by a
// combine tree), screens on the device and brings back only the best candidates and the
// counters; with exact precision the host settles the top-K from them re-scored in one
// canonical summation order (exact ties by the lower id, docs/spec-notes.md item 13).
// Combos whose equity reaches zero (rare) are re-evaluated on the host, exactly.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "cuda_backend.hpp"
#include "cuda_check.cuh"
#include "cuda_handles.cuh"
#include "cuda_preparation.cuh"
#include "cuda_stream.hpp"
#include "device_buffer.cuh"
#include "device_indicators.cuh"
#include "fault_injection.cuh"
#include "grid_tables.cuh"
#include "level_bits.cuh"
#include "prefix_tables.cuh"
#include "rules_sweep.cuh"
#include "selection_device.hpp"
#include "selection_lean.cuh"
#include "selection_pipeline.cuh"
#include "selection_workspace.cuh"
#include "signal_bits.cuh"
#include "src/compensated.hpp"
#include "src/growth_refine.hpp"
#include "src/position_cache.hpp"
#include "src/rolling_indicators.hpp"
#include "src/thread_count.hpp"
#include "stop_sweep.cuh"
#include "sweep_device_memory.hpp"
#include "sweep_kernels.cuh"
#include "sweep_split.cuh"
#include "tally.cuh"
#include "tuning.cuh"
#include "wfod/combo_returns.hpp"
#include "wfod/cuda_arch.hpp"
#include "wfod/detail/rank_math.hpp"
#include "wfod/env_knobs.hpp"
#include "wfod/screened_top.hpp"
#include "wfod/segments.hpp"
#include "wfod/selection/blocks.hpp"
#include "wfod/selection/robust_scores.hpp"
#include "wfod/selection/selection_extension.hpp"
#include "wfod/summary.hpp"
#include "wfod/support.hpp"

namespace wfod::cuda {
namespace {

thread_local SweepTiming g_last_timing;

int next_pow2(long long x) {
  int p = 1;
  while (p < x && p < (1 << 20)) p <<= 1;
  return p;
}

class CudaBackend final : public Backend, public selection::SelectionExtension {
 public:
  explicit CudaBackend(std::unique_ptr<Backend> host) : cpu_(std::move(host)) {
    int device = 0;
    WFOD_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    WFOD_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    device_name_ = prop.name;
    resident_threads_ =
        static_cast<long long>(prop.multiProcessorCount) * prop.maxThreadsPerMultiProcessor;
  }

  std::string_view name() const override { return "cuda"; }

  // What the device does not compute for a family (cuda::supports) is refused by name; the
  // registry's "auto" then runs it on cpu (registry/routing_backend.cpp). Stops (SPEC §5b) run
  // in sweeps, evaluate, block_summaries, robust selection and positions (stop_sweep.cuh), not
  // in streams; so do rules strategies (SPEC §5a, rules_sweep.cuh) whose conditions fit a
  // device thread's stacks.
  Support supports(Work work, const StrategySpec& strategy) const override {
    if (strategy.grid.family == Family::rules) return rules_supported(work, strategy);
    if (work == Work::stream && strategy.grid.has_stops())
      return Support::no(
          "the cuda backend does not run stops (SPEC §5b) in streams yet; use backend cpu (or "
          "auto, which runs them on cpu)");
    const Family family = strategy.grid.family;
    if (cuda::supports(family, work)) return Support::yes();
    static constexpr const char* kWork[] = {"sweeps and evaluation", "robust selection", "streams"};
    return Support::no("the cuda backend does not run the " + std::string(to_string(family)) +
                       " family's " + kWork[static_cast<int>(work)] +
                       "; use backend cpu (or auto, which runs it on cpu)");
  }

  selection::SelectionExtension* selection() override { return this; }

  // The device state is built by the first call on it (where that call would have built it).
  // The backend's own preparation is given back: the caller's takes its place.
  std::shared_ptr<PreparedHistory> prepare(const HistoryView& history, const StrategySpec&,
                                           const PrepareSpec& spec) override {
    PrepareSpec resolved = spec;
    resolved.bars = prepared_bars(spec.bars, history.size());
    prep_ = &own_;
    own_ = DevicePreparation{};
    return std::make_shared<CudaPreparedHistory>(resolved, this);
  }

  SweepResult sweep(const SweepRequest& req) override {
    require(supports(Work::sweep, req.strategy));
    const auto start = std::chrono::steady_clock::now();
    check_window(req);
    check_tally_window(req.window.bars);
    maybe_inject_fault();
    SweepTiming timing;
    timing.device = device_name_;
    const Grid& grid = req.strategy.grid;
    const unsigned long long n_ids = grid.size();

    use(req);
    // A kept score set (and winner's returns) serves the selection right after its sweep.
    spend_kept();

    GpuEvent e0, e1, e2, e3;
    e0.record();
    // A walk's folds (its PreparedHistory) and repeated requests on the same bars reuse the
    // preparation: only the window moves.
    prepare_unless_current(req);
    e1.record();
    if (grid.family == Family::rules) return sweep_rules(req, timing, e0, e1, start);
    if (grid.has_stops()) return sweep_stops(req, timing, e0, e1, start);
    if (ranks_from_scores(req)) return sweep_from_scores(req, timing, e0, e1, start);
    if (ranks_all_canonically(req)) return sweep_all_canonical(req, timing, e0, e1, start);

    // Layout by shape: enough combos to fill the GPU -> one thread per combo; otherwise
    // split the window into chunks (>= 32 bars) so combos x chunks fills it.
    const long long window = static_cast<long long>(req.window.bars);
    const long long first = static_cast<long long>(req.window.first());
    const int chunks = screen_chunks(req.strategy.grid, window);
    timing.chunks_per_combo = chunks;

    const RankParams rp = rank_params_of(req.rank, req.strategy.bars_per_year);
    // Exact precision: the device screens K + m candidates by the objective of its own
    // summation order, and the host settles the top K from them in the canonical one
    // (settle_top, docs/spec-notes.md item 13); a screen too short to settle it runs again
    // with twice the candidates, up to every ranked combo. Fast precision keeps the screen's
    // top K as it ranks them (SPEC §9 asks it for the report, not for identical ids).
    const bool canonical = req.precision == Precision::exact;
    int k = canonical ? screen_candidates(req.rank.top)
                      : static_cast<int>(std::min<size_t>(req.rank.top, kBlock));
    Screen screen = screen_on_device(req, chunks, k, n_ids, rp, &e2);
    TopK top(req.rank.top);
    SettleStats settled;
    timing.screen_passes = 1;
    while (canonical) {
      top = TopK(req.rank.top);
      // The first batch is what a first screen keeps (all of it, usually); a complete list of
      // every ranked combo is re-scored only as far as the bound needs.
      const size_t batch = std::min(screen.list.size(), 2 * req.rank.top + 16);
      settled = settle_top(
          screen.list, screen.complete, batch,
          [&](std::span<const uint64_t> ids) { return rescore(req, ids); }, top);
      timing.rescored += settled.rescored;
      if (settled.settled || k >= kBlock) break;
      k = k * 2 > kBlock / 2 ? kBlock : k * 2;
      screen = screen_on_device(req, chunks, k, n_ids, rp);
      ++timing.screen_passes;
    }
    const Counters& c = screen.counters;

    SweepResult result;
    result.backend = "cuda";
    result.evaluated = c.evaluated;
    result.skipped = c.skipped;
    // Candidates the screen ranked whose canonical metrics fail a constraint are not ranked.
    result.ranked = c.ranked - settled.dropped;
    if (!canonical) {
      // Winners: metrics from their device Summaries, finalized on the host like every backend.
      std::vector<uint64_t> top_ids = screen.all_ids;
      const auto metrics = evaluate_prepared(req, top_ids, false);
      for (size_t i = 0; i < top_ids.size(); ++i)
        top.offer(
            {grid.decode(top_ids[i]), metrics[i], objective_value(metrics[i], req.rank.objective)});
    }
    if (c.fallback > 0) {
      if (c.fallback > screen.fallback_cap)
        throw std::runtime_error(
            "cuda backend: " + std::to_string(c.fallback) +
            " combos reached non-positive equity; too many to re-evaluate on the host");
      auto ids = fallback_.download(c.fallback);
      std::sort(ids.begin(), ids.end());
      std::vector<uint64_t> list(ids.begin(), ids.end());
      const auto fb = cpu_->evaluate(req, list);
      for (size_t i = 0; i < list.size(); ++i) {
        if (!passes_constraints(fb[i], req.rank)) continue;
        ++result.ranked;
        top.offer({grid.decode(list[i]), fb[i], objective_value(fb[i], req.rank.objective)});
      }
    }
    e3.record();
    result.top = top.sorted();
    refine_reported(req, result.top);
    result.precision = req.precision;
    if (req.precision == Precision::fast)
      result.fast_parity = fast_parity(req, first, first + window, n_ids);
    record_timing(timing, e0, e1, e2, e3);
    result.seconds = seconds_since(start);
    return result;
  }

  // The reported combos' growth metrics from exact total returns (src/growth_refine.hpp, as
  // the cpu backend does): each one's window returns from its positions (cpu_, host) where
  // the plain device product may not meet SPEC §9's tolerance (plain_growth_suffices).
  void refine_reported(const SweepRequest& req, std::vector<Ranked>& top) {
    detail::refine_growth(top, req.rank, req.strategy.bars_per_year, [&](const Combo& c) {
      return combo_returns(*cpu_, req.history, req.strategy, c, req.window.first(), req.window.end);
    });
  }

  std::vector<Metrics> evaluate(const SweepRequest& req, std::span<const uint64_t> ids) override {
    require(supports(Work::sweep, req.strategy));
    check_window(req);
    check_tally_window(req.window.bars);
    const Grid& grid = req.strategy.grid;
    for (uint64_t id : ids) {
      if (id >= grid.size())
        throw std::invalid_argument("combo id " + std::to_string(id) + " is outside the grid");
      if (!grid.decode(id).valid())
        throw std::invalid_argument("combo id " + std::to_string(id) + " is invalid");
    }
    maybe_inject_fault();
    use(req);
    prepare_unless_current(req);
    if (grid.family == Family::rules)
      return metrics_of(req, ids, rules_window_summaries(rules_ws_, req, rules_prepared(req), ids));
    if (grid.has_stops())
      return metrics_of(req, ids, stop_window_summaries(stops_ws_, req, stop_prepared(), ids));
    // Exact precision: the canonical order, as the sweep's winners (equal metrics for equal
    // ids; exact ties stay exact for the selection's scores by evaluate()).
    return evaluate_prepared(req, std::vector<uint64_t>(ids.begin(), ids.end()),
                             req.precision == Precision::exact);
  }

  std::vector<Summary> block_summaries(const SweepRequest& req,
                                       std::span<const size_t> cuts) override {
    // One thread per (combo, block), bar by bar as the cpu lane kernel: bit-identical to
    // cpu's (selection_pipeline.cu, block_eval.cuh).
    require(supports(Work::selection, req.strategy));
    check_window(req);
    check_tally_window(req.window.bars);
    selection::check_cuts(req, cuts);
    use(req);
    prepare_unless_current(req);
    spend_kept();
    // A rules combo walks its blocks in order from its exact entering state (rules_eval.cuh).
    if (req.strategy.grid.family == Family::rules)
      return rules_block_summaries(rules_ws_, req, cuts, rules_prepared(req));
    // A stop grid's blocks each start from the exact state entering them (stop_eval.cuh).
    if (req.strategy.grid.has_stops())
      return stop_block_summaries(stops_ws_, req, cuts, stop_prepared());
    return device_block_summaries(*selection_, req, cuts, prepared());
  }

  // The selection extension: the grid pass where the block summaries are made.
  selection::RobustScores robust_scores(const SweepRequest& req,
                                        const selection::RobustOptions& options) override {
    require(supports(Work::selection, req.strategy));
    // cagr and calmar need pow(), which the device does not round as glibc does: those run
    // the host pipeline (on this backend's device block summaries) so every backend agrees.
    // So does a grid with stops or a rules strategy: its block Summaries and evaluations are
    // the stop or rules evaluator's, which the device pipeline's grid passes do not run.
    const bool rules = req.strategy.grid.family == Family::rules;
    const bool stops = req.strategy.grid.has_stops();
    if (rules || stops || !selection::lean::device_exact(req.rank.objective)) {
      SelectionTiming t;
      t.path = rules   ? std::string("host: rules (SPEC §5a), on the device's rules Summaries")
               : stops ? std::string("host: stops (SPEC §5b), on the device's stop Summaries")
                       : "host: objective " + std::string(to_string(req.rank.objective)) +
                             " needs pow(), not bit-identical on the device";
      const auto start = std::chrono::steady_clock::now();
      selection::RobustScores out = selection::host_robust_scores(*this, req, options);
      t.total_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      record_selection_timing(t);
      return out;
    }
    check_window(req);
    check_tally_window(req.window.bars);
    const auto start = std::chrono::steady_clock::now();
    use(req);
    prepare_unless_current(req);  // the sweep of this request usually just prepared it
    const double prepare_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // The scores the sweep of this same request ranked from (PrepareSpec::keep_scores), where
    // no grid pass ran since; this pass spends every kept set.
    std::optional<KeptScores> kept = std::move(prep_->kept_scores);
    prep_->kept_scores.reset();
    WindowScores* reuse =
        kept && !options.pbo && kept->epoch == scores_epoch_ && kept->key == scores_key(req)
            ? &kept->scores
            : nullptr;
    ++scores_epoch_;
    return device_robust_scores(*selection_, *this, req, options, prepared(), prepare_ms, reuse);
  }

  // The raw winner's returns that the sweep of this same request kept (sweep_from_scores), once.
  std::optional<std::vector<double>> kept_returns(const SweepRequest& req,
                                                  const Combo& combo) override {
    use(req);
    std::optional<KeptReturns> kept = std::move(prep_->kept_returns);
    prep_->kept_returns.reset();
    if (!kept || kept->epoch != kept_epoch_ || kept->id != combo.id ||
        kept->key != scores_key(req) || !prepared_for(req))
      return std::nullopt;
    return std::move(kept->values);
  }

  std::unique_ptr<Stream> open_stream(const StreamSpec& spec, const HistoryView& h) override {
    require(supports(Work::stream, spec.strategy));
    return make_cuda_stream(spec, h);
  }
  std::unique_ptr<Stream> restore_stream(const StreamSpec& spec,
                                         std::span<const uint8_t> blob) override {
    require(supports(Work::stream, spec.strategy));
    return restore_cuda_stream(spec, blob);
  }
  // Its streams keep a host tail bounded by the window (cuda_stream_impl.cuh) and answer every
  // query from it: the daemon keeps only the history's tail in memory for them.
  bool streams_bounded() const override { return true; }
  bool runs_on_device() const override { return true; }
  uint64_t device_memory_free() const override { return free_device_bytes(); }
  // The size query of sweep(req). Host: the preparation's copy of the bars it uploads (four
  // columns of prepare_target(req) bars, compared on every call) and the ranking. Device: the
  // peak the sweep holds on a fresh backend (sweep_device_shape, sweep_device_memory.hpp: the
  // preparation that evaluate, block_summaries and robust_scores of the same request reuse,
  // and the sweep's own work buffers; the ones sized from the free memory at their caps).
  // Where the request could rank from the selection's scores, the larger of that way and
  // the screen's.
  SweepMemory sweep_memory(const SweepRequest& req) const override {
    if (!supports(Work::sweep, req.strategy).ok()) return Backend::sweep_memory(req);
    SweepMemory m;
    m.host_bytes = 4 * prepare_target(req) * sizeof(double) + 2 * req.rank.top * sizeof(Ranked);
    SweepDeviceShape shape = sweep_device_shape(req);
    uint64_t device = sweep_device_terms(shape).total();
    if (shape.path == SweepPath::from_scores) {
      shape.path = ranks_all_canonically(req) ? SweepPath::all_canonical : SweepPath::screen;
      device = std::max(device, sweep_device_terms(shape).total());
    }
    m.device_bytes = device;
    return m;
  }
  // The shape the size query reads: the request's sizes and the layout sweep() picks for it,
  // from the functions the sweep and the allocation sites use.
  SweepDeviceShape sweep_device_shape(const SweepRequest& req) const {
    const Grid& grid = req.strategy.grid;
    const CudaTuning& tune = cuda_tuning();
    const long long window = static_cast<long long>(req.window.bars);
    SweepDeviceShape s;
    s.path = grid.family == Family::rules ? SweepPath::rules
             : grid.has_stops()           ? SweepPath::stops
             : scores_path_applies(req)   ? SweepPath::from_scores
             : ranks_all_canonically(req) ? SweepPath::all_canonical
                                          : SweepPath::screen;
    s.bars = prepare_target(req);
    s.window = req.window.bars;
    s.combos = grid.size();
    s.top = req.rank.top;
    s.exact = req.precision == Precision::exact;
    s.block = kBlock;
    s.summary_bytes = sizeof(Summary);
    s.eval_parts_bytes = kEvalPartsBytes;
    s.canonical_chunks = static_cast<uint64_t>(canonical_chunks(window));
    s.stop_batch = tune.stop_batch_combos;
    if (grid.family == Family::rules) {
      // The rows RulesRows builds: each used indicator per value of its axes and the vol
      // filter's (detail::series_rows, an upper bound: RulesRows shares equal rows).
      s.rows = static_cast<uint64_t>(detail::series_rows(grid));
      s.rules_batch = kRulesBatch;
      s.rule_combo_bytes = sizeof(RuleComboData);
      s.node_bytes = sizeof(rules::Node);
      if (grid.program) {
        const rules::Program& program = *grid.program;
        s.rules_params = program.params.size();
        s.rules_indicators = program.indicators.size();
        for (const rules::Condition& c : program.conditions) s.rules_nodes += c.nodes.size();
        s.volume = program.uses_volume;
      }
      return s;
    }
    const std::vector<RowKey> rows = rows_needed(grid);
    s.rows = rows.size();
    for (const RowKey& r : rows) s.hma_scratch_rows += r.kind == RowKind::hma ? 1 : 0;
    s.float_group = kFloatGroup;
    // The axes as GridTables has them (grid_tables.cu: the stop axes out of the radix).
    uint64_t radix[kMaxAxes] = {};
    int axes = 0;
    uint64_t axis_values = 0;
    for (const AxisInfo& axis : grid.axes()) {
      axis_values += axis.size;
      const bool stop_axis =
          axis.name == "stop_loss" || axis.name == "take_profit" || axis.name == "trailing_stop";
      if (!stop_axis && axes < kMaxAxes) radix[axes++] = axis.size;
    }
    // The axis tables (grid_tables.cu, ~14 lists; an upper bound of a few KiB): each axis's
    // values at most three arrays of 8 bytes (the stops' {0} where not given), the row indices
    // of (ma or source) x period, and the rows' first defined bars.
    const uint64_t per_period = std::max<uint64_t>({1, grid.ma.size(), grid.source.size()});
    s.grid_table_bytes =
        3 * 8 * (axis_values + 3) +
        2 * 4 * per_period * (grid.fast.size() + grid.slow.size() + grid.n.size()) + 8 * s.rows;
    s.table_cap = tune.table_max_bytes;
    const bool level = grid.family == Family::bollinger || grid.family == Family::rsi_reversion;
    if (level && level_bits_enabled() && axes >= 3)
      s.level_bits_bytes =
          4 * level_bits_words(radix[0], grid.family == Family::bollinger ? radix[1] : radix[2],
                               radix[1], s.bars);
    const long long sharing = signal_bits_min_sharing(grid);
    const bool ma = grid.family == Family::ma_cross;
    if (sharing >= 0 && axes >= 3) {
      const SignalBitsWords w = signal_bits_words(
          ma, ma || grid.family == Family::channel_breakout, radix, axes, grid.has_vol_filter(),
          signal_vol_axis(ma), static_cast<uint64_t>(sharing), s.bars);
      s.signal_bits_bytes = 4 * (w.pair + w.gate);
    }
    const std::vector<KernelKind> kinds = kinds_of(grid);
    s.kinds = kinds.size();
    s.chunks = static_cast<uint64_t>(screen_chunks(grid, window));
    s.split = split_kernel() && std::any_of(kinds.begin(), kinds.end(), [&](const KernelKind& k) {
                return split_sweep_applies(k, window);
              });
    s.event_cap = event_cap();
    s.event_buffer_max = tune.event_buffer_max;
    if (s.path == SweepPath::from_scores)
      s.scores_bytes = robust_scores_bytes(grid.size(), 1, {}, req);
    return s;
  }
  StreamMemory stream_memory(const StreamSpec& spec) const override {
    if (!supports(Work::stream, spec.strategy).ok()) return Backend::stream_memory(spec);
    return cuda_stream_memory(spec);
  }

  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& spec,
                                const Combo& c) override {
    require(supports(Work::sweep, spec));
    // One combo's positions are a sequential scan: the host does it (same rules, SPEC §5),
    // through trackers that a walk's next fold extends (src/position_cache.hpp).
    if (!c.valid()) return cpu_->positions(h, spec, c);
    return positions_.positions(h, spec, c, *cpu_);
  }
  // positions() touches positions_ and the stateless cpu_ backend only (no device state);
  // sweep() never reads positions_ and calls cpu_ only statelessly (fallback evaluations).
  bool positions_overlap_sweep() const override { return true; }

 private:
  static bool same_grid(const Grid& a, const Grid& b) {
    return a.family == b.family && a.fast == b.fast && a.slow == b.slow && a.ma == b.ma &&
           a.side == b.side && a.entry == b.entry && a.n == b.n && a.source == b.source &&
           a.k == b.k && a.style == b.style && a.lo == b.lo && a.hi == b.hi &&
           a.stop_loss == b.stop_loss && a.take_profit == b.take_profit &&
           a.trailing_stop == b.trailing_stop && a.vol_short == b.vol_short &&
           a.vol_long == b.vol_long && a.vol_threshold == b.vol_threshold &&
           a.program == b.program && a.rule_axes == b.rule_axes;
  }
  // A rules strategy on the device (SPEC §5a): every entry point but streams, for a program
  // whose conditions fit a thread's stacks (rules_tables.cuh).
  Support rules_supported(Work work, const StrategySpec& strategy) const {
    if (work == Work::stream)
      return Support::no(
          "the cuda backend does not run rules strategies (SPEC §5a) in streams yet; use "
          "backend cpu (or auto, which runs them on cpu)");
    size_t needed = 0;
    if (strategy.grid.program && !rules_stack_fits(*strategy.grid.program, &needed))
      return Support::no("the cuda backend evaluates rules whose conditions stack at most " +
                         std::to_string(kRuleStack) + " values; this one needs " +
                         std::to_string(needed) +
                         "; use backend cpu (or auto, which runs it on cpu)");
    return Support::yes();
  }
  // WFOD_CUDA_LEVEL_BITS=0: no decision-bit table for the level families (tests, benchmarks).
  static bool level_bits_enabled() {
    const char* v = wfod::env_value(wfod::Env::cuda_level_bits);
    return !(v && std::string_view(v) == "0");
  }
  // Whether n combos at `chunks` canonical chunks each take under an eighth of the GPU's
  // resident threads: too few threads to fill it, each walking a long chunk bar by bar.
  bool few_canonical_threads(unsigned long long n, unsigned long long chunks) const {
    return n <= static_cast<unsigned long long>(resident_threads_) / 8 / chunks;
  }
  // The screen's time chunks per combo (1: a thread per combo): the level families chunk only
  // when combos fill under a quarter of the GPU, the others under half; at least
  // min_chunk_bars a chunk (tuning.cuh says what set each value). One rule for the sweep and
  // its size query.
  int screen_chunks(const Grid& grid, long long window) const {
    const unsigned long long n_ids = grid.size();
    int chunks = 1;
    const CudaTuning& tune = cuda_tuning();
    const bool level = grid.family == Family::bollinger || grid.family == Family::rsi_reversion;
    const long long fill = level ? tune.chunk_fill_level : tune.chunk_fill_set_or_hold;
    if (static_cast<long long>(n_ids) * fill < resident_threads_) {
      const long long want =
          resident_threads_ / static_cast<long long>(std::max<unsigned long long>(n_ids, 1));
      chunks = std::min(next_pow2(want),
                        next_pow2(std::max<long long>(1, window / tune.min_chunk_bars)) / 2);
      chunks = std::max(chunks, 1);
    }
    // WFOD_CUDA_FORCE_CHUNKS=N (a power of two) overrides the choice: tests run parity on
    // both layouts, benchmarks time the plain thread-per-combo layout (N = 1) beside it.
    if (const char* forced = wfod::env_value(wfod::Env::cuda_force_chunks)) {
      const long long f = std::atoll(forced);
      if (f >= 1 && (f & (f - 1)) == 0 && f <= window) chunks = static_cast<int>(f);
    }
    return chunks;
  }
  // WFOD_CUDA_SIGNAL_BITS: 0 = no set-or-hold signal tables (-1 here), all = built for any
  // sharing (0), else the default sharing rule (signal_bits.cuh), and any sharing for a grid
  // that has few_canonical_threads even at the most canonical chunks (kBlock), whatever the
  // window. Such a grid is scored in the canonical order by a thread per (combo, chunk), too
  // few threads to hide each bar's decision latency, where a table decides every bar of every
  // key beforehand in one parallel pass (gpu_bench B, 80 combos x 150k bars: the canonical
  // kernel 208 -> 152 us, bench/results/h200-2026-12-04-s20d).
  long long signal_bits_min_sharing(const Grid& grid) const {
    const char* v = wfod::env_value(wfod::Env::cuda_signal_bits);
    if (v && std::string_view(v) == "0") return -1;
    if (v && std::string_view(v) == "all") return 0;
    if (few_canonical_threads(grid.size(), kBlock)) return 0;
    return static_cast<long long>(cuda_tuning().min_signal_sharing);
  }
  static bool plain_kernel() {
    const char* k = wfod::env_value(wfod::Env::cuda_kernel);
    return k && std::string_view(k) == "plain";
  }
  // The thread-per-combo sweep as two kernels (sweep_split.cuh) unless WFOD_CUDA_KERNEL=fused.
  static bool split_kernel() {
    const char* k = wfod::env_value(wfod::Env::cuda_kernel);
    return !(k && std::string_view(k) == "fused");
  }
  // The split sweep's events buffer: the tuning's share (a quarter) of the free device memory,
  // within its bounds (64 MiB .. 2 GiB); what it holds already counts as free: it is reused.
  unsigned long long split_event_bytes() const {
    size_t free = 0, total = 0;
    WFOD_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    const unsigned long long mine = split_events_.size() * sizeof(uint32_t);
    const CudaTuning& tune = cuda_tuning();
    return std::clamp<unsigned long long>((free + mine) / tune.event_free_divisor,
                                          tune.event_buffer_min, tune.event_buffer_max);
  }
  // WFOD_CUDA_EVENT_CAP=N (1 .. 2^20) overrides the split sweep's events per combo (tests).
  static unsigned int event_cap() {
    if (const char* v = wfod::env_value(wfod::Env::cuda_event_cap)) {
      const long long n = std::atoll(v);
      if (n >= 1 && n <= (1ll << 20)) return static_cast<unsigned int>(n);
    }
    return cuda_tuning().event_cap;
  }
  // The first n bars kept equal the first n of `now`.
  static bool same_bars(const std::vector<double>& kept, std::span<const double> now, size_t n) {
    return kept.size() >= n && now.size() >= n &&
           (n == 0 || std::memcmp(kept.data(), now.data(), n * sizeof(double)) == 0);
  }
  // Bars [0, n) that build(req) builds: the window's end, or further when the request's
  // PreparedHistory covers more (a walk's folds then share one preparation).
  static size_t prepare_target(const SweepRequest& req) {
    const size_t wanted = req.prepared ? std::min(req.prepared->bars(), req.history.size()) : 0;
    return std::max(req.window.end, wanted);
  }
  // The preparation serves any request whose bars up to its window's end are the prepared
  // ones: every prepared value at bar t (uploaded bars, gap/body returns, prefix sums, trees
  // and sparse tables of their leaves, indicator rows, first-defined bars capped at the
  // prepared length) depends only on bars <= t, and the kernels read none past window.end.
  bool prepared_for(const SweepRequest& req) const {
    const PreparedKey& k = prep_->key;
    return k.valid && k.fill == req.strategy.fill && k.cost == req.strategy.costs.per_unit() &&
           k.precision == req.precision && k.plain == plain_kernel() &&
           k.level_bits == level_bits_enabled() &&
           k.signal_bits == signal_bits_min_sharing(req.strategy.grid) &&
           same_grid(k.grid, req.strategy.grid) && prep_->history.bars >= prepare_target(req) &&
           uploaded_matches(req.history, req.window.end) &&
           rules_volume_matches(prep_->rules, req.history, req.window.end);
  }
  void prepare_unless_current(const SweepRequest& req) {
    if (!prepared_for(req)) build(req);
  }

  // Uploads the history (when it changed), builds indicator rows and grid tables.
  void build(const SweepRequest& req) {
    prep_->key.valid = false;  // until this prepare completes
    ++prep_->generation;
    spend_kept();
    build_state(req);
    PreparedKey& k = prep_->key;
    k.grid = req.strategy.grid;
    k.fill = req.strategy.fill;
    k.cost = req.strategy.costs.per_unit();
    k.precision = req.precision;
    k.plain = plain_kernel();
    k.level_bits = level_bits_enabled();
    k.signal_bits = signal_bits_min_sharing(req.strategy.grid);
    k.valid = true;
  }

  void build_state(const SweepRequest& req) {
    DevicePreparation& p = *prep_;
    const auto& h = req.history;
    const size_t n = prepare_target(req);  // bars past it are never read
    // Every bar compared (O(n), small next to any sweep): a caller may edit a bar in place
    // in the same buffer, and a stale device history would be silently wrong.
    if (p.history.bars != n || p.uploaded.close.size() != n || !uploaded_matches(h, n)) {
      p.history.bars = 0;  // until all four columns are up
      p.history.close.upload(h.close.data(), n);
      p.history.open.upload(h.open.data(), n);
      p.history.high.upload(h.high.data(), n);
      p.history.low.upload(h.low.data(), n);
      const auto keep = [n](std::vector<double>& kept, std::span<const double> now) {
        kept.assign(now.begin(), now.begin() + static_cast<std::ptrdiff_t>(n));
      };
      keep(p.uploaded.close, h.close);
      keep(p.uploaded.open, h.open);
      keep(p.uploaded.high, h.high);
      keep(p.uploaded.low, h.low);
      p.history.bars = n;
    }
    const double cost = req.strategy.costs.per_unit();
    // Bar returns, prefix sums, trees and sparse tables: kernels over the device history.
    build_prefix_tables(p.history.close.data(), p.history.open.data(), req.strategy.fill, n, cost,
                        p.prefix_tables);
    if (req.strategy.grid.family == Family::rules) {
      build_rules_state(req, n);
      return;
    }
    p.rules = DeviceRules{};
    build_indicators(p.history, n, rows_needed(req.strategy.grid), p.indicators);
    build_tables(req.strategy.grid, p.indicators, p.tables);
    // A trade's entry price with fill next_open is o_{t0+1} (SPEC §5b): the stop evaluator reads
    // the uploaded opens.
    p.tables.stops.entry_open =
        req.strategy.fill == Fill::next_open ? p.history.open.data() : nullptr;
    if (level_bits_enabled())
      build_level_bits(p.tables.view, p.indicators.matrix.data(), p.indicators.rows,
                       p.history.close.data(), static_cast<long long>(n), p.level_bits);
    else
      p.level_bits = DeviceLevelBits{};
    // Precision "fast" reads them too: exact answers where it may use float32 ones (SPEC §9),
    // and faster than its float screen.
    const long long sharing = signal_bits_min_sharing(req.strategy.grid);
    if (sharing >= 0)
      build_signal_bits(p.tables.view, static_cast<unsigned long long>(sharing),
                        p.indicators.matrix.data(), p.indicators.rows, p.history.close.data(),
                        static_cast<long long>(n), p.signal_bits);
    else
      p.signal_bits = DeviceSignalBits{};
    p.bars = BarData{p.prefix_tables.gap.data(),
                     p.prefix_tables.body.data(),
                     p.history.close.data(),
                     p.indicators.matrix.data(),
                     p.indicators.matrix32.data(),
                     static_cast<long long>(n),
                     req.precision == Precision::fast ? 1 : 0,
                     p.indicators.rows,
                     req.strategy.costs.per_unit(),
                     p.prefix_tables.view(),
                     p.level_bits.view,
                     p.signal_bits.view};
    p.kinds = kinds_of(req.strategy.grid);
  }

  // A rules strategy's state (SPEC §5a): its rows and program (rules_sweep.cuh), beside the
  // bars' returns built above; the built-in families' rows, tables and bits are released.
  void build_rules_state(const SweepRequest& req, size_t n) {
    DevicePreparation& p = *prep_;
    p.indicators = DeviceIndicators{};
    p.tables = DeviceGridTables{};
    p.level_bits = DeviceLevelBits{};
    p.signal_bits = DeviceSignalBits{};
    p.kinds.clear();
    build_rules(req, p.history, n, resolve_threads(req.threads), p.rules);
    p.bars = BarData{p.prefix_tables.gap.data(),
                     p.prefix_tables.body.data(),
                     p.history.close.data(),
                     nullptr,
                     nullptr,
                     static_cast<long long>(n),
                     0,
                     0,
                     req.strategy.costs.per_unit(),
                     p.prefix_tables.view(),
                     LevelBits{},
                     SignalBits{}};
  }

  // The kernel instantiations this grid needs: one per `entry` value for ma_cross, one for
  // every other family (bollinger's style is a per-combo value, not a kind).
  // WFOD_CUDA_KERNEL=plain selects the per-bar baseline evaluator (benchmarks, tests).
  // bollinger and rsi_reversion decide from the LevelBits table (level_bits.cuh); with it the
  // change-driven evaluator is as fast as the per-bar one for bollinger (gpu_bench D 7.2 ms
  // both) and faster for rsi_reversion (E 7.3 against 8.8 ms), bench/RESULTS.md.
  static std::vector<KernelKind> kinds_of(const Grid& g) {
    const bool plain = plain_kernel();
    const bool vol = g.has_vol_filter();
    std::vector<KernelKind> kinds;
    if (g.family == Family::channel_breakout) return {{kChannel, false, vol, plain}};
    if (g.family == Family::bollinger) return {{kBollinger, false, vol, plain}};
    if (g.family == Family::rsi_reversion) return {{kRsi, false, vol, plain}};
    for (bool cross : {false, true})
      if (std::find(g.entry.begin(), g.entry.end(), cross ? Entry::cross : Entry::state) !=
          g.entry.end())
        kinds.push_back({kMaCross, cross, vol, plain});
    return kinds;
  }

  // Candidates per block the device keeps for a top K: K plus as many again (and 16) for the
  // settling margin, within what the reduction passes take (k <= kBlock / 2); beyond that
  // every candidate of every block (kBlock: nothing dropped, the screen is complete).
  static int screen_candidates(size_t top) {
    const size_t want = 2 * top + 16;
    return want <= static_cast<size_t>(kBlock / 2) ? static_cast<int>(want) : kBlock;
  }

  // The device's ranking of one sweep: its best candidates, best first by (screened
  // objective, id), at most k of them; whether they are every ranked combo; the counters.
  struct Screen {
    std::vector<Screened> list;
    std::vector<uint64_t> all_ids;  // every candidate that came back, sorted by id
    bool complete = false;
    Counters counters{};
    unsigned int fallback_cap = 0;
  };

  // Evaluates every combo on the device (the layout by shape), keeps k candidates per block
  // of 256 combos (then records `evaluated`, when given) and reduces them until one block's
  // worth is left.
  Screen screen_on_device(const SweepRequest& req, int chunks, int k, unsigned long long n_ids,
                          const RankParams& rp, GpuEvent* evaluated = nullptr) {
    const long long window = static_cast<long long>(req.window.bars);
    const long long first = static_cast<long long>(req.window.first());
    const unsigned long long blocks = (n_ids + kBlock - 1) / kBlock;
    const unsigned long long per_kind = blocks * static_cast<unsigned long long>(k);
    // Work buffers are members that only grow: no allocation once a sweep of this size ran.
    candidates_.ensure(
        screen_candidate_count(n_ids, static_cast<uint64_t>(k), prep_->kinds.size(), kBlock));
    counters_.ensure(1);
    WFOD_CUDA_CHECK(cudaMemset(counters_.data(), 0, sizeof(Counters)));
    Screen screen;
    screen.fallback_cap = static_cast<unsigned int>(std::min<unsigned long long>(n_ids, 1u << 20));
    fallback_.ensure(std::max(1u, screen.fallback_cap));
    if (chunks == 1) {
      for (size_t i = 0; i < prep_->kinds.size(); ++i) {
        Candidate* out = candidates_.data() + i * per_kind;
        if (split_kernel() && split_sweep_applies(prep_->kinds[i], window)) {
          const unsigned int cap = event_cap();
          SplitBuffers buf{nullptr, nullptr, split_batch(n_ids, cap, split_event_bytes()), cap};
          split_events_.ensure(static_cast<unsigned long long>(buf.batch) * buf.cap);
          split_heads_.ensure(buf.batch);
          buf.events = split_events_.data();
          buf.heads = split_heads_.data();
          launch_sweep_split(prep_->kinds[i], prep_->tables.view, prep_->bars, first,
                             first + window, n_ids, rp, k, out, counters_.data(), fallback_.data(),
                             screen.fallback_cap, buf);
        } else {
          launch_sweep_fused(prep_->kinds[i], prep_->tables.view, prep_->bars, first,
                             first + window, n_ids, rp, k, out, counters_.data(), fallback_.data(),
                             screen.fallback_cap);
        }
      }
    } else {
      // Chunk-major parts (coalesced loads), joined into `parts` groups per combo.
      const int parts = std::max(1, chunks / kBlock);
      parts_.ensure(n_ids * static_cast<unsigned long long>(parts));
      chunk_parts_.ensure(n_ids * static_cast<unsigned long long>(chunks));
      launch_chunk_summaries(prep_->kinds, false, prep_->tables.view, prep_->bars, first, window,
                             n_ids, nullptr, 0, chunks, chunk_parts_.data(), parts_.data(), false);
      // The finalize kernel ranks every combo once: it writes the first kind's slots only.
      launch_finalize_rank(prep_->tables.view, parts_.data(), parts, n_ids, rp, k,
                           candidates_.data(), counters_.data(), fallback_.data(),
                           screen.fallback_cap);
      WFOD_CUDA_CHECK(cudaMemset(candidates_.data() + per_kind, 0xFF,
                                 (prep_->kinds.size() - 1) * per_kind * sizeof(Candidate)));
      WFOD_CUDA_CHECK(cudaDeviceSynchronize());
    }
    if (evaluated) evaluated->record();
    // Reduce the per-block candidates until one block's worth is left.
    unsigned long long n = per_kind * prep_->kinds.size();
    Candidate* cur = candidates_.data();
    for (int pass = 0; n > static_cast<unsigned long long>(kBlock) && k <= kBlock / 2; ++pass) {
      const unsigned long long b = (n + kBlock - 1) / kBlock;
      DeviceBuffer<Candidate>& out = reduce_[pass % 2];
      out.ensure(b * static_cast<unsigned long long>(k));
      launch_topk_reduce(cur, n, k, out.data());
      cur = out.data();
      n = b * static_cast<unsigned long long>(k);
    }
    std::vector<Candidate> host(n);
    WFOD_CUDA_CHECK(cudaMemcpy(host.data(), cur, n * sizeof(Candidate), cudaMemcpyDeviceToHost));
    WFOD_CUDA_CHECK(
        cudaMemcpy(&screen.counters, counters_.data(), sizeof(Counters), cudaMemcpyDeviceToHost));
    for (const auto& cand : host)
      if (cand.id != kEmptyId) screen.list.push_back({cand.id, cand.objective});
    std::sort(screen.list.begin(), screen.list.end(), [](const Screened& a, const Screened& b) {
      return ranks_before(a.objective, a.id, b.objective, b.id);
    });
    // A block (of any pass) that dropped a candidate passed k on, and those k reach the end:
    // fewer than k left means nothing was dropped. Past the k-th, what came back is not the
    // screen's next best (another block's k+1-th may rank before it): the list stops at k.
    screen.complete = k >= kBlock || screen.list.size() < static_cast<size_t>(k);
    for (const auto& s : screen.list) screen.all_ids.push_back(s.id);
    std::sort(screen.all_ids.begin(), screen.all_ids.end());
    screen.all_ids.erase(std::unique(screen.all_ids.begin(), screen.all_ids.end()),
                         screen.all_ids.end());
    if (!screen.complete) screen.list.resize(static_cast<size_t>(k));
    return screen;
  }

  // The canonical re-score of screened candidates (settle_top): the per-bar evaluator over
  // canonical_chunks(), and the constraints on its metrics.
  std::vector<std::optional<Ranked>> rescore(const SweepRequest& req,
                                             std::span<const uint64_t> ids) {
    const std::vector<uint64_t> list(ids.begin(), ids.end());
    const std::vector<Metrics> metrics = evaluate_prepared(req, list, true);
    std::vector<std::optional<Ranked>> out(list.size());
    for (size_t i = 0; i < list.size(); ++i)
      if (passes_constraints(metrics[i], req.rank))
        out[i] = Ranked{req.strategy.grid.decode(list[i]), metrics[i],
                        objective_value(metrics[i], req.rank.objective)};
    return out;
  }

  // Over canonical_chunks(); canonical: with the per-bar evaluator (one summation order for
  // every combo: exact ties stay exact), else with the kinds' evaluator.
  std::vector<Metrics> evaluate_prepared(const SweepRequest& req, const std::vector<uint64_t>& ids,
                                         bool canonical) {
    std::vector<Metrics> out(ids.size());
    if (ids.empty()) return out;
    // Grow-only members: a walk evaluates its winners every fold without an allocation.
    DeviceBuffer<unsigned long long>& d_ids = eval_ids_;
    d_ids.upload(reinterpret_cast<const unsigned long long*>(ids.data()), ids.size());
    DeviceBuffer<Summary>& summaries = eval_summaries_;
    summaries.ensure(ids.size());
    const long long window = static_cast<long long>(req.window.bars);
    // Time chunks either way: one thread walking a 150k-bar window alone took 60 ms (gpu_bench
    // B, fast precision), the chunks and their combine tree well under 1 ms. Chunk-major
    // parts (a warp runs 32 combos over one chunk), in batches of ids whose parts take at most
    // kEvalPartsBytes; a buffer grown past it for one large call is given back after it.
    const int chunks = canonical_chunks(window);
    const size_t per_id = static_cast<size_t>(chunks) * sizeof(Summary);
    const size_t batch = std::max<size_t>(1, std::min(ids.size(), kEvalPartsBytes / per_id));
    eval_parts_.ensure(batch * static_cast<size_t>(chunks));
    for (size_t b0 = 0; b0 < ids.size(); b0 += batch) {
      const size_t count = std::min(batch, ids.size() - b0);
      launch_chunk_summaries(prep_->kinds, canonical, prep_->tables.view, prep_->bars,
                             static_cast<long long>(req.window.first()), window, count,
                             d_ids.data() + b0, 0, chunks, eval_parts_.data(),
                             summaries.data() + b0, true);
    }
    const auto host = summaries.download(ids.size());
    if (eval_parts_.size() * sizeof(Summary) > kKeptEvalPartsBytes) eval_parts_ = {};
    return metrics_of(req, ids, host);
  }

  // Metrics of canonical Summaries: finalized on the host like every backend's, and those whose
  // equity reaches zero evaluated on the host (the combine's drawdown does not hold there).
  std::vector<Metrics> metrics_of(const SweepRequest& req, std::span<const uint64_t> ids,
                                  const std::vector<Summary>& host) {
    std::vector<Metrics> out(ids.size());
    std::vector<uint64_t> fallback_ids;
    std::vector<size_t> fallback_slots;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (host[i].nonpositive) {
        fallback_ids.push_back(ids[i]);
        fallback_slots.push_back(i);
      } else {
        out[i] = finalize(host[i], req.strategy.bars_per_year);
      }
    }
    if (!fallback_ids.empty()) {
      const auto fb = cpu_->evaluate(req, fallback_ids);
      for (size_t i = 0; i < fb.size(); ++i) out[fallback_slots[i]] = fb[i];
    }
    return out;
  }

  // What a kept score set is for (cuda_preparation.cuh): the window, the ranking rules and
  // the preparation's current build.
  ScoresKey scores_key(const SweepRequest& req) const {
    return {req.window.end,        req.window.bars,
            req.window.warmup,     req.rank.objective,
            req.rank.min_trades,   req.rank.max_drawdown,
            req.rank.min_exposure, req.strategy.bars_per_year,
            prep_->generation};
  }

  // A preparation asked to keep scores (PrepareSpec::keep_scores), where they are the device's own
  // (exact precision, an objective the device computes bit-identically:
  // selection::lean::device_exact): the sweep ranks from them (sweep_from_scores) where they
  // also fit its memory (ranks_from_scores; the size query counts both ways).
  bool scores_path_applies(const SweepRequest& req) const {
    return req.prepared && req.prepared->keeps_scores() && req.precision == Precision::exact &&
           supports(Work::selection, req.strategy).ok() && !req.strategy.grid.has_stops() &&
           req.strategy.grid.family != Family::rules &&
           selection::lean::device_exact(req.rank.objective) &&
           req.strategy.grid.size() <= std::numeric_limits<uint32_t>::max();
  }
  bool ranks_from_scores(const SweepRequest& req) const {
    if (!scores_path_applies(req)) return false;
    const size_t need = robust_scores_bytes(req.strategy.grid.size(), 1, {}, req);
    return need <= free_device_bytes() / 10 * 9;
  }

  // The sweep of a request whose whole-grid scores follow: every combo's canonical Summary
  // scored once (device_window_scores: robust selection's pass without PBO), the top K taken
  // from those scores by (objective, id) and their metrics evaluated in the same order, and the
  // scores kept for the robust_scores call that follows, which then scores nothing again. One
  // summation order throughout, so the same top K as screen-and-settle and as cpu.
  SweepResult sweep_from_scores(const SweepRequest& req, SweepTiming& timing, GpuEvent& e0,
                                GpuEvent& e1, std::chrono::steady_clock::time_point start) {
    const Grid& grid = req.strategy.grid;
    timing.chunks_per_combo = canonical_chunks(static_cast<long long>(req.window.bars));
    WindowScores w = device_window_scores(*selection_, *this, req, prepared());
    GpuEvent e2, e3;
    e2.record();
    const selection::RobustScores& sc = w.scores;
    std::vector<uint64_t> best;
    best.reserve(sc.ranked);
    for (uint64_t id = 0; id < sc.state.size(); ++id)
      if (sc.state[id] == selection::ComboState::ranked) best.push_back(id);
    const size_t k = std::min(req.rank.top, best.size());
    std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(k), best.end(),
                      [&](uint64_t a, uint64_t b) {
                        return detail::ranks_before(sc.objective[a], a, sc.objective[b], b);
                      });
    best.resize(k);
    // Their canonical Summaries as the scores pass joined them, where it left them all.
    const std::vector<Metrics> metrics =
        w.summaries ? metrics_of(req, best, window_summaries(*selection_, best))
                    : evaluate_prepared(req, best, true);
    TopK top(req.rank.top);
    for (size_t i = 0; i < k; ++i)
      top.offer(
          {grid.decode(best[i]), metrics[i], objective_value(metrics[i], req.rank.objective)});
    SweepResult result;
    result.backend = "cuda";
    result.precision = req.precision;
    result.evaluated = sc.valid;
    result.skipped = grid.size() - sc.valid;
    result.ranked = sc.ranked;
    result.top = top.sorted();
    refine_reported(req, result.top);
    e3.record();
    // The raw winner's returns for select()'s DSR, computed here on the device (a thread per
    // tile of bars) where the host would replay its positions from the anchor.
    if (!best.empty()) keep_winner_returns(req, result.top.front().combo.id);
    timing.rescored = k;
    record_timing(timing, e0, e1, e2, e3);
    prep_->kept_scores = KeptScores{scores_key(req), scores_epoch_, std::move(w)};
    result.seconds = seconds_since(start);
    return result;
  }

  // The sweep of a rules strategy (SPEC §5a): every valid combo walked over the window from its
  // exact entering state by the rules evaluator and ranked on the host (rules_sweep.cuh).
  SweepResult sweep_rules(const SweepRequest& req, SweepTiming& timing, GpuEvent& e0, GpuEvent& e1,
                          std::chrono::steady_clock::time_point start) {
    timing.chunks_per_combo = 1;
    timing.screen_passes = 0;
    SweepResult result = rules_sweep(rules_ws_, req, rules_prepared(req), *cpu_);
    GpuEvent e2;
    e2.record();
    result.backend = "cuda";
    refine_reported(req, result.top);
    GpuEvent e3;
    e3.record();
    timing.rescored = result.evaluated;
    record_timing(timing, e0, e1, e2, e3);
    result.seconds = seconds_since(start);
    return result;
  }

  // The sweep of a grid with stop axes (SPEC §5b): every combo walked over the window from its
  // exact entering state by the stop evaluator and ranked on the host (stop_sweep.cuh).
  SweepResult sweep_stops(const SweepRequest& req, SweepTiming& timing, GpuEvent& e0, GpuEvent& e1,
                          std::chrono::steady_clock::time_point start) {
    timing.chunks_per_combo = 1;
    timing.screen_passes = 0;
    SweepResult result = stop_sweep(stops_ws_, req, stop_prepared(), *cpu_);
    GpuEvent e2;
    e2.record();
    result.backend = "cuda";
    refine_reported(req, result.top);
    GpuEvent e3;
    e3.record();
    timing.rescored = result.evaluated;
    record_timing(timing, e0, e1, e2, e3);
    result.seconds = seconds_since(start);
    return result;
  }

  // Exact precision on a grid so small against its window that every combo's canonical chunks
  // (counted at most kBlock: a longer window's extra chunks shorten its chains, the grid stays
  // as small) take under an eighth of the GPU's resident threads (few combos, a long window:
  // gpu_bench B, 80 combos): screening first gains nothing there, since the settle re-scores
  // a good part of the grid in the canonical order anyway and each thread's chunk takes as
  // long. Not with a forced layout (WFOD_CUDA_FORCE_CHUNKS: the tests of the screen's layouts).
  bool ranks_all_canonically(const SweepRequest& req) const {
    if (req.precision != Precision::exact || wfod::env_value(wfod::Env::cuda_force_chunks))
      return false;
    const int chunks = canonical_chunks(static_cast<long long>(req.window.bars));
    return few_canonical_threads(req.strategy.grid.size(),
                                 static_cast<unsigned long long>(std::min(chunks, kBlock)));
  }

  // The sweep of such a grid: every valid combo evaluated in the canonical order
  // (evaluate_prepared, the settle's own re-score), constrained and ranked by (objective, id)
  // on the host: the top K that screen-and-settle would settle, and the same metrics.
  SweepResult sweep_all_canonical(const SweepRequest& req, SweepTiming& timing, GpuEvent& e0,
                                  GpuEvent& e1, std::chrono::steady_clock::time_point start) {
    const Grid& grid = req.strategy.grid;
    timing.chunks_per_combo = canonical_chunks(static_cast<long long>(req.window.bars));
    timing.screen_passes = 0;
    std::vector<uint64_t> ids;
    for (uint64_t id = 0; id < grid.size(); ++id)
      if (grid.decode(id).valid()) ids.push_back(id);
    const std::vector<Metrics> metrics = evaluate_prepared(req, ids, true);
    GpuEvent e2;
    e2.record();
    SweepResult result;
    result.backend = "cuda";
    result.precision = req.precision;
    result.evaluated = ids.size();
    result.skipped = grid.size() - ids.size();
    TopK top(req.rank.top);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!passes_constraints(metrics[i], req.rank)) continue;
      ++result.ranked;
      top.offer({grid.decode(ids[i]), metrics[i], objective_value(metrics[i], req.rank.objective)});
    }
    result.top = top.sorted();
    refine_reported(req, result.top);
    GpuEvent e3;
    e3.record();
    timing.rescored = ids.size();
    record_timing(timing, e0, e1, e2, e3);
    result.seconds = seconds_since(start);
    return result;
  }

  // A sweep's phases from its device events (e0 .. e3: start, prepared, evaluated, ranked),
  // kept for last_sweep_timing().
  static void record_timing(SweepTiming& timing, const GpuEvent& e0, const GpuEvent& e1,
                            const GpuEvent& e2, const GpuEvent& e3) {
    timing.indicators_ms = e1.since(e0);
    timing.evaluate_ms = e2.since(e1);
    timing.select_ms = e3.since(e2);
    g_last_timing = timing;
  }
  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  void keep_winner_returns(const SweepRequest& req, uint64_t id) {
    const long long first = static_cast<long long>(req.window.first());
    const long long last = static_cast<long long>(req.window.end);
    const size_t n = static_cast<size_t>(last - first);
    returns_.ensure(n);
    launch_window_returns(prep_->kinds, prep_->tables.view, prep_->bars, id, first, last,
                          returns_.data());
    prep_->kept_returns = KeptReturns{scores_key(req), kept_epoch_, id, returns_.download(n)};
  }

  // SPEC §9: compares fast and exact decisions over every valid combo of the window.
  FastParity fast_parity(const SweepRequest& req, long long first, long long last,
                         unsigned long long n_ids) {
    DeviceBuffer<FastParityCounters> counters(1);
    WFOD_CUDA_CHECK(cudaMemset(counters.data(), 0, sizeof(FastParityCounters)));
    const RankParams rp = rank_params_of(req.rank, req.strategy.bars_per_year);
    for (const auto& kind : prep_->kinds)
      launch_fast_parity(kind, prep_->tables.view, prep_->bars, first, last, n_ids, rp,
                         counters.data());
    FastParityCounters c{};
    WFOD_CUDA_CHECK(cudaMemcpy(&c, counters.data(), sizeof c, cudaMemcpyDeviceToHost));
    FastParity p;
    p.combos = c.combos;
    p.differing = c.differing;
    p.max_trade_diff = static_cast<int64_t>(c.max_trade_diff);
    p.shifted_trades = c.shifted;
    p.total_trades = c.total_trades;
    std::memcpy(&p.max_objective_diff, &c.max_objective_diff_bits, sizeof(double));
    return p;
  }

  PreparedSweep prepared() const {
    return PreparedSweep{&prep_->tables.view, &prep_->bars, &prep_->kinds};
  }
  StopPrepared stop_prepared() const {
    return StopPrepared{&prep_->tables.view, &prep_->tables.stops, &prep_->bars, &prep_->kinds};
  }
  RulesPrepared rules_prepared(const SweepRequest& req) const {
    return RulesPrepared{
        &prep_->rules,
        prep_->prefix_tables.gap.data(),
        prep_->prefix_tables.body.data(),
        prep_->history.close.data(),
        req.strategy.fill == Fill::next_open ? prep_->history.open.data() : nullptr,
        req.strategy.costs.per_unit()};
  }

  // The preparation a call runs on: the request's where this backend made it, else the
  // backend's own (a request without one, or one another backend made: cpu's under auto, or
  // another cuda backend's).
  void use(const SweepRequest& req) {
    auto* mine = dynamic_cast<CudaPreparedHistory*>(req.prepared.get());
    prep_ = mine && mine->owner == this ? &mine->device : &own_;
  }
  // A sweep, block_summaries and a build spend every kept score set and winner's returns,
  // those of other preparations included (their epoch no longer matches): what was kept
  // serves only the calls right after the sweep that kept it, as the kept scores may point
  // into the selection workspace, which the next grid pass overwrites.
  void spend_kept() {
    ++kept_epoch_;
    ++scores_epoch_;
    prep_->kept_scores.reset();
    prep_->kept_returns.reset();
  }

  std::string device_name_;
  long long resident_threads_ = 0;
  std::unique_ptr<Backend> cpu_;  // the host backend the registry hands over (make_cuda_backend)
  detail::PositionCache positions_;
  bool uploaded_matches(const HistoryView& h, size_t n) const {
    const DevicePreparation::UploadedBars& u = prep_->uploaded;
    return same_bars(u.close, h.close, n) && same_bars(u.open, h.open, n) &&
           same_bars(u.high, h.high, n) && same_bars(u.low, h.low, n);
  }
  DeviceBuffer<Candidate> candidates_, reduce_[2];
  DeviceBuffer<Counters> counters_;
  DeviceBuffer<unsigned long long> fallback_;
  DeviceBuffer<uint32_t> split_events_, split_heads_;  // the split sweep's batch
  DeviceBuffer<Summary> parts_;
  // The time-chunked layout's chunk-major parts: combos x chunks, where the layout is chosen
  // only while combos x chunks stays near the resident threads (a few hundred thousand).
  DeviceBuffer<Summary> chunk_parts_;
  DeviceBuffer<unsigned long long> eval_ids_;
  DeviceBuffer<Summary> eval_summaries_;
  // evaluate()'s chunk parts: at most kEvalPartsBytes per batch of ids; kept between calls
  // up to kKeptEvalPartsBytes (a sweep's re-scores), larger ones (selection's scores by
  // evaluate over a whole grid) given back after the call.
  static constexpr size_t kEvalPartsBytes = size_t{256} << 20;
  static constexpr size_t kKeptEvalPartsBytes = size_t{16} << 20;
  DeviceBuffer<Summary> eval_parts_;
  // The preparation of requests that bring none of this backend's (use()); released when a
  // caller prepares explicitly (prepare()), so that one preparation holds the device at a time.
  DevicePreparation own_;
  DevicePreparation* prep_ = &own_;  // the one the current call runs on (use())
  // Count the calls that spend what sweeps keep: kept returns serve while no sweep,
  // block_summaries or build ran since (spend_kept), kept scores while no robust_scores either.
  uint64_t kept_epoch_ = 0, scores_epoch_ = 0;
  DeviceBuffer<double> returns_;
  std::shared_ptr<SelectionWorkspace> selection_ = make_selection_workspace();
  StopWorkspace stops_ws_;   // the stop evaluator's buffers (grids with stop axes)
  RulesWorkspace rules_ws_;  // the rules evaluator's buffers (SPEC §5a)
};

}  // namespace

namespace {

// An empty kernel, compiled for the same architectures as every other: whether the device
// can load it says whether this binary carries code it can run (SASS, or PTX the driver can
// compile: a driver older than the toolkit cannot, cudaErrorUnsupportedPtxVersion).
__global__ void probe_kernel() {}

// WFOD_TEST_CUDA_CC="M.m", when set and well formed.
std::optional<ComputeCapability> test_compute_capability() {
  const char* v = wfod::env_value(wfod::Env::test_cuda_cc);
  ComputeCapability cc;
  char dot = 0;
  if (v == nullptr || std::sscanf(v, "%d%c%d", &cc.major, &dot, &cc.minor) != 3 || dot != '.') {
    return std::nullopt;
  }
  return cc;
}

}  // namespace

DeviceCheck check_device() {
  DeviceCheck out;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    out.text = std::string("no usable CUDA driver/device: ") + cudaGetErrorString(e);
    cudaGetLastError();  // clear the error state for later calls
    return out;
  }
  if (count == 0) {
    out.text = "no CUDA device present";
    return out;
  }
  int device = 0;
  cudaDeviceProp prop{};
  e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) {
    out.text = "device " + std::to_string(device) + ": " + cudaGetErrorString(e);
    cudaGetLastError();
    return out;
  }
  out.present = true;
  ComputeCapability cc{prop.major, prop.minor};
  std::string fake;
  if (const auto forced = test_compute_capability()) {
    cc = *forced;
    fake = std::string(" (") + kTestComputeCapabilityEnv + ", test only)";
  }
  const std::string who = "device=\"" + std::string(prop.name) +
                          "\" cc=" + std::to_string(cc.major) + "." + std::to_string(cc.minor) +
                          fake;
  const CudaFit fit = can_run(cc, compiled_cuda_archs());
  if (!fit.ok) {
    out.text = who + ", " + fit.why;
    return out;
  }
  cudaFuncAttributes attributes{};
  e = cudaFuncGetAttributes(&attributes, probe_kernel);
  if (e != cudaSuccess) {
    out.text = who + ", this build's code does not load on it: " + cudaGetErrorName(e) + " (" +
               cudaGetErrorString(e) + "); it has " + describe(compiled_cuda_archs());
    cudaGetLastError();
    return out;
  }
  out.usable = true;
  out.text = who + " code=" + fit.code;
  return out;
}

bool device_available(std::string* why) {
  const DeviceCheck check = check_device();
  if (!check.usable && why != nullptr) *why = check.text;
  return check.usable;
}

bool supports(Family family, Work work) {
  // SPEC §5a: rules strategies in sweeps, evaluation and robust selection (rules_sweep.cuh),
  // not in streams.
  if (family == Family::rules) return work != Work::stream;
  // The level families' streams read their rows from the stream's rolling indicators.
  return family == Family::ma_cross || family == Family::channel_breakout || work != Work::stream ||
         streams_run_level_families();
}

std::unique_ptr<Backend> make_cuda_backend(std::unique_ptr<Backend> host) {
  if (!host) throw std::invalid_argument("the cuda backend needs a host backend");
  return std::make_unique<CudaBackend>(std::move(host));
}

SweepTiming last_sweep_timing() { return g_last_timing; }

namespace {
std::atomic<long long> g_device_now{0}, g_device_peak{0};
}  // namespace

void note_device_bytes(long long delta) {
  const long long now = g_device_now.fetch_add(delta, std::memory_order_relaxed) + delta;
  long long peak = g_device_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_device_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

DeviceAllocations device_allocations() {
  return {static_cast<uint64_t>(std::max<long long>(0, g_device_now.load())),
          static_cast<uint64_t>(std::max<long long>(0, g_device_peak.load()))};
}

void reset_device_allocation_peak() { g_device_peak.store(g_device_now.load()); }

}  // namespace wfod::cuda
