// The backend seam (docs/architecture.md): one interface, interchangeable implementations.
// cpu_ref is the float64 oracle; cpu the fast threaded one; cuda the GPU one (WFOD_CUDA).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/grid.hpp"
#include "wfod/metrics.hpp"
#include "wfod/prepared_history.hpp"
#include "wfod/ranking.hpp"
#include "wfod/summary.hpp"
#include "wfod/support.hpp"

namespace wfod {

namespace selection {
class SelectionExtension;  // wfod/selection/selection_extension.hpp
}  // namespace selection

class PositionTracker;  // wfod/position_tracker.hpp
struct StrategySpec;

// p_t (SPEC §2) of a combo over bars from the anchor: Backend::positions as a value.
using PositionsOf =
    std::function<std::vector<int8_t>(const HistoryView&, const StrategySpec&, const Combo&)>;

enum class Precision { exact, fast };
std::string_view to_string(Precision);
Precision parse_precision(std::string_view);

// What a strategy is, apart from its parameter grid's values.
struct StrategySpec {
  Grid grid;
  Fill fill = Fill::close;
  Costs costs;
  double bars_per_year = 252;
};

// Evaluation window (SPEC §3): W = bars strategy returns s_t, t in [end - bars, end - 1].
struct WindowSpec {
  size_t end = 0;     // T: one past the window's last bar
  size_t bars = 0;    // W
  size_t warmup = 0;  // bars that must exist before the window: T - W - 1 >= warmup
  size_t first() const { return end - bars; }
};

// What a CPU sweep or evaluate() may hold at once in indicator rows and lane work when the
// request names no budget: grids whose rows would exceed it are evaluated in chunks of
// combos, each with only its own rows (results bit-identical to one chunk).
inline constexpr size_t kDefaultMemoryBudget = size_t{256} << 20;

struct SweepRequest {
  HistoryView history;  // bars from the anchor
  StrategySpec strategy;
  WindowSpec window;
  RankSpec rank;
  Precision precision = Precision::exact;
  int threads = 0;                       // 0 = all cores
  std::function<void(double)> progress;  // optional, called with the fraction done
  // Bytes of indicator rows and lane work held at once (cpu, cpu_ref; 0 =
  // kDefaultMemoryBudget). A budget below one combo's rows throws std::invalid_argument.
  size_t memory_budget = 0;
  // The preparation this request runs on (Backend::prepare): the requests that share one
  // (a walk's folds, a sweep and the selection of its window) share what the backend keeps
  // of the bars between calls, and a sweep on one asked to keep scores leaves them there for
  // the robust selection of the same request. Null: the backend prepares for this request
  // alone (the cuda backend still reuses its own last preparation where it fits). Never
  // changes a result; cpu and cpu_ref keep nothing in it.
  std::shared_ptr<PreparedHistory> prepared;
};

// SPEC §9 fast-mode report: every valid combo evaluated with float32 signals and exactly,
// in the same run. The exact side is the backend's exact mode, which the parity table
// holds equal to cpu_ref.
struct FastParity {
  uint64_t combos = 0;            // valid combos compared
  uint64_t differing = 0;         // combos whose trade count differs
  int64_t max_trade_diff = 0;     // max |trades_fast - trades_exact|
  uint64_t shifted_trades = 0;    // sum |trades_fast - trades_exact|
  uint64_t total_trades = 0;      // sum trades_exact
  double max_objective_diff = 0;  // max |objective_fast - objective_exact|
  double differing_fraction() const { return combos ? double(differing) / double(combos) : 0.0; }
  double shifted_fraction() const {
    return total_trades ? double(shifted_trades) / double(total_trades) : 0.0;
  }
};

struct SweepResult {
  std::vector<Ranked> top;  // best first, at most rank.top
  uint64_t evaluated = 0;   // valid combos
  uint64_t skipped = 0;     // invalid combos
  uint64_t ranked = 0;      // valid combos that passed the constraints
  double seconds = 0;
  std::string backend;
  Precision precision = Precision::exact;      // what the backend actually computed
  std::optional<FastParity> fast_parity;       // with precision fast, where the backend has it
  std::optional<ConstraintTally> unranked_by;  // evaluated - ranked, by constraint (cpu, cpu_ref)
};

// Incremental re-optimisation (docs/architecture.md): one (history,
// strategy, window) kept warm across runs. Every advance() equals a from-scratch sweep()
// of the same window on the same bars from the anchor (SPEC §3, §9).
struct StreamSpec {
  StrategySpec strategy;
  size_t window = 0;  // W
  size_t warmup = 0;  // as WindowSpec::warmup
  RankSpec rank;
  Precision precision = Precision::exact;
  size_t chunk = 0;  // bars per cached chunk summary; 0 = chosen from W
  int threads = 0;   // 0 = all cores
};

// What a stream holds, for logs and the memory plan.
struct StreamStats {
  size_t bars = 0;             // history bars from the anchor (advanced through)
  size_t chunk = 0;            // bars per cached chunk
  size_t footprint_bytes = 0;  // everything it holds: caches, indicator state, bars
  double open_seconds = 0;     // time open_stream took (rebuild from the anchor)
  bool incremental = true;     // false: this backend re-sweeps the window on every advance
  // The last advance, split (where the backend measures it): host work before the device
  // launches, and the wait for the device's results.
  double last_prepare_ms = 0, last_wait_ms = 0;
};

class Stream {
 public:
  virtual ~Stream() = default;
  // Appends bars (validated, ts increasing, after the stream's last) and optimises the
  // window ending at the new last bar. Throws std::invalid_argument (SPEC §3) while the
  // history is shorter than warmup + W + 1 bars; the bars are kept either way.
  virtual SweepResult advance(std::span<const Bar> new_bars) = 0;
  virtual StreamStats stats() const = 0;
  // The oldest bar (counted from the anchor) the stream can still replay from: the bar
  // queries below accept ranges starting there. A stream holding the whole history: 0.
  virtual size_t horizon() const { return 0; }
  // True when the stream answers every query below from its own bounded state, so its user
  // may drop the history from the anchor (the daemon keeps only a tail in memory). False:
  // the stream may hold the whole history and the queries may be unsupported.
  virtual bool bounded() const { return false; }

  // Bar queries on the stream's own state, without the history from the anchor (a bounded
  // stream keeps only the window and a margin). Streams that cannot answer them throw
  // wfod::Unsupported("... not supported by this stream"): the caller then uses the
  // backend on the history. Bar indices count from the anchor; a combo is a point of the
  // stream's grid (its id and parameters must match), invalid combos are refused.
  //
  // p_t (SPEC §2) of `combo` for t in [first, end), horizon() <= first <= end <= bars:
  // exactly Backend::positions over the whole history at those bars.
  virtual std::vector<int8_t> positions(const Combo& combo, size_t first, size_t end) const;
  // Strategy returns s_t (SPEC §2: exit + body segment) of `combo` for t in [first, end),
  // max(1, horizon()) <= first <= end <= bars.
  virtual std::vector<double> returns(const Combo& combo, size_t first, size_t end) const;
  // A tracker of `combo` positioned at the newest bar (it continues with append()), holding
  // the positions of the last min(keep, bars - horizon()) bars and keeping `keep` from then on.
  virtual PositionTracker tracker(const Combo& combo, size_t keep) const;

  // The current window (the W bars ending at the newest bar, SPEC §3), as a request for it on
  // the whole history would see it; std::invalid_argument while the history is too short.
  // Metrics of the listed combos, in the order given: exactly Backend::evaluate (same spec,
  // same threads). Throws std::invalid_argument on an invalid or unknown combo id.
  virtual std::vector<Metrics> evaluate(std::span<const uint64_t> ids) const;
  // Block Summaries of the window (docs/spec-10-selection.md §10.0; cuts as for
  // Backend::block_summaries): exactly Backend::block_summaries. With evaluate() and
  // returns(), what robust selection needs (selection::StreamWindow).
  virtual std::vector<Summary> block_summaries(std::span<const size_t> cuts) const;

  // Everything the stream holds, as bytes: restored by Backend::restore_stream(spec, blob),
  // a stream whose every later advance() and query is bit-identical to this one's. The
  // format is versioned and self-describing (magic, version, spec fingerprint, bar count,
  // last ts, sizes; docs/engine.md); the caller adds its own file header and checksum.
  virtual std::vector<uint8_t> checkpoint() const;
};

// What a stream of a spec holds at most, asked before it is opened (the size query: the
// daemon's memory plan refuses a stream that cannot fit before any of it is allocated, and the
// stream sizes its caches from the same layout). Host: the stream's own caches, bars and
// indicator state at their largest; device: what the backend allocates on its GPU (0 for a
// host backend). Neither counts the caller's copy of the history.
struct StreamMemory {
  uint64_t host_bytes = 0;
  uint64_t device_bytes = 0;
};

// What a sweep of a request holds at most, asked before it runs (the size query of sweeps, as
// StreamMemory is of streams): wfo's run plan counts the sweep phase by it, with the memory
// budget it will give the sweep. Host: the backend's own bar tables, indicator rows and lane
// work at their largest; device: what the backend allocates on its GPU for it at its peak (0
// for a host backend; cuda: kernels/cuda/sweep_device_memory.hpp, the buffers sized from the
// free device memory at their caps), which wfo's plan holds to 90% of the device's free memory.
// Neither counts the caller's copy of the history.
struct SweepMemory {
  uint64_t host_bytes = 0;
  uint64_t device_bytes = 0;
};

class Backend;

// The share of a device's free memory (Backend::device_memory_free) that a plan may count on,
// leaving room for the driver, the CUDA context's growth and the work buffers sized from what
// is free at run time: the daemon's plan of its streams and wfo's plan of a sweep both use it.
inline constexpr double kDeviceMemoryPlanShare = 0.9;

// A stream that keeps the bars and re-sweeps the whole window on `backend` on every advance:
// Backend::open_stream's default, and the fallback where a backend's own stream is refused
// (its plan does not fit). Exact by construction. `backend` must outlive it.
std::unique_ptr<Stream> open_sweep_stream(Backend& backend, const StreamSpec&,
                                          const HistoryView& history);

// The seam (docs/architecture.md "The backend seam"): a name, a capability query, the
// compute entry points, and optional extensions a backend may implement (null where not).
// Run options (threads, progress) still travel inside SweepRequest and StreamSpec.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;

  // The capability query: whether this backend computes `work` for `strategy`, or a refusal
  // naming what it does not (e.g. "the cuda backend does not run the rsi_reversion family's
  // streams; ..."). An entry point asked for refused work throws that refusal as
  // wfod::Unsupported. The registry's "auto" routes on it. Default: everything (cpu, cpu_ref).
  virtual Support supports(Work work, const StrategySpec& strategy) const;

  // A preparation of `history`'s first spec.bars bars (0: all of them) for requests on
  // `strategy`'s grid, to hand to the calls that share it in SweepRequest::prepared. Allocates
  // nothing: the first call on it builds what the backend keeps (where that call would have
  // built it without one) and the later ones reuse it while their bars, grid, fill, costs and
  // precision are the ones it was built for (another request rebuilds it). Default: the base
  // object, holding nothing (cpu, cpu_ref).
  virtual std::shared_ptr<PreparedHistory> prepare(const HistoryView& history,
                                                   const StrategySpec& strategy,
                                                   const PrepareSpec& spec);

  // One window, from scratch: every combo of the grid, ranked.
  virtual SweepResult sweep(const SweepRequest&) = 0;
  // The size query of sweep(req): computed from the request's sizes alone (its history's
  // length, window, grid, precision, memory_budget; no bar is read, nothing is allocated).
  // Default: the indicator series a sweep caches within its budget and one combo's own
  // beside them (cpu_ref's least-recently-used series); cpu: its tile plan's rule.
  virtual SweepMemory sweep_memory(const SweepRequest&) const;
  // Metrics of the listed combos over the request's window, in the order given (no
  // ranking, constraints ignored). Throws std::invalid_argument on an invalid combo id.
  virtual std::vector<Metrics> evaluate(const SweepRequest&, std::span<const uint64_t> ids) = 0;
  // Summaries of the request's window cut into blocks (docs/spec-10-selection.md §10.0).
  // `cuts`: strictly increasing bar indices inside (window.first(), window.end); block b
  // holds bars [cut_{b-1}, cut_b), cut_{-1} = first, cut_{B-1} = end, B = cuts.size() + 1.
  // Combo-major, grid.size() x B; invalid combos get identity Summaries. Combining a combo's
  // blocks left to right gives its window Summary (SPEC §6). Throws std::invalid_argument
  // on bad cuts.
  virtual std::vector<Summary> block_summaries(const SweepRequest&,
                                               std::span<const size_t> cuts) = 0;
  // Target positions p_t (SPEC §2) of one combo for every bar of the history. A compute
  // entry point of its own: cpu_ref answers from its oracle (ref_strategy.cpp), cpu from the
  // core's position rules, cuda through trackers a walk's next fold extends.
  virtual std::vector<int8_t> positions(const HistoryView&, const StrategySpec&, const Combo&) = 0;
  // Whether positions() may run on another thread while sweep() or the selection extension's
  // robust_scores() runs on this one (they share no mutable state). walk_forward then computes
  // a fold's out-of-sample trades while the next fold's sweep runs, and selection::select the
  // raw winner's DSR returns while the grid is scored. Never two positions() calls at once.
  // Default: no (cpu sweeps take every core anyway); cuda answers positions on the host while its
  // sweep waits for the device.
  virtual bool positions_overlap_sweep() const { return false; }
  // positions() as a function that shares no mutable state with this backend, so that any
  // thread may call it, several at once (the daemon's loop thread extends its signal tracker
  // while the worker sweeps): what a replaying PositionTracker computes with for a strategy
  // no tracker decides bar by bar (rules, SPEC §5a; PositionTracker::make). Empty where the
  // backend offers none (the default); cpu_ref offers its oracle.
  virtual PositionsOf positions_source() const { return {}; }

  // A stream over `history` (bars from the anchor; may be shorter than one window). The
  // default is open_sweep_stream; cpu and cuda override it with cached chunk summaries.
  // Throws wfod::Unsupported when the plan does not fit (the caller may then use
  // open_sweep_stream). The backend must outlive the streams it opens.
  virtual std::unique_ptr<Stream> open_stream(const StreamSpec&, const HistoryView& history);
  // The stream Stream::checkpoint() wrote, for the same spec. Validates every byte it reads
  // (the blob comes from disk): std::invalid_argument naming the problem on a truncated,
  // corrupted or foreign blob, another spec, format version or backend; wfod::Unsupported
  // where this backend restores no streams (the default). The caller then opens and replays.
  virtual std::unique_ptr<Stream> restore_stream(const StreamSpec&, std::span<const uint8_t> blob);
  // The size query: what open_stream(spec, ...) will hold at most, computed from the spec alone
  // (no allocation, no device work), for any grid size (a 2.56e9-combo grid answers at once).
  // Default: open_sweep_stream's window of bars and one sweep's ranking (its history from the
  // anchor, which it keeps, is the caller's to count).
  virtual StreamMemory stream_memory(const StreamSpec&) const;

  // What a caller plans by, asked instead of a backend's name (the daemon: what a start loads,
  // how streams open, whether a failure is a device's).
  // Every stream open_stream gives is bounded (Stream::bounded), so a caller may keep only the
  // history's tail. Default: no.
  virtual bool streams_bounded() const { return false; }
  // Several streams may be opened or restored at once, each on its own thread (a host
  // backend's streams share nothing; a device's open one after another). Default: no.
  virtual bool streams_open_concurrently() const { return false; }
  // Its work runs on a device and can fail as one does (a CUDA error, a lost GPU): the daemon
  // then moves to the cpu backend (docs/operations.md "Backend fallback"). Default: no.
  virtual bool runs_on_device() const { return false; }
  // The device memory free for new allocations now, in bytes: what the daemon's plan holds the
  // streams' StreamMemory::device_bytes to before it opens them. 0 for a host backend (default).
  virtual uint64_t device_memory_free() const { return 0; }

  // Robust selection's grid pass where the block summaries are made (the cuda backend keeps
  // them on the device): wfod/selection/selection_extension.hpp. Null (the default): the
  // caller runs the host pipeline on block_summaries / evaluate; selection::robust_scores
  // chooses.
  virtual selection::SelectionExtension* selection() { return nullptr; }
};

// The capability answer of a backend that does not run SPEC §5b's stops at all (a test's
// device backend; cuda refuses only a stop grid's streams, in its own words): a refusal
// naming the backend, the feature and the ones that run it (cpu, and auto through it;
// cpu_ref too) for a grid with stop axes; yes otherwise.
Support stops_support(std::string_view backend, const StrategySpec& strategy);
// Likewise for SPEC §5a's rules strategies (family rules), for a backend that runs none of
// them (cpu_ref, cpu and cuda all do; cuda refuses only their streams, in its own words): a
// refusal naming the backend and telling the user to pass --backend cpu.
Support rules_support(std::string_view backend, const StrategySpec& strategy);

// "auto" picks cuda when built and a device this build can run on is present, else cpu;
// under "auto" what the cuda backend refuses (Backend::supports) runs on cpu, where "cuda"
// refuses it with an error naming the family (wfod::Unsupported).
// Unknown or unavailable names throw std::invalid_argument saying which backends exist or
// why cuda cannot run (no device, or a device the build has no code for).
std::unique_ptr<Backend> make_backend(std::string_view name);
std::vector<std::string> backend_names();

// make_backend's choice with the reason, for the start-up log: `detail` is one line, e.g.
// `backend=cuda device="NVIDIA H200" cc=9.0 code=sm_90`, `cuda refused: device="Tesla P4"
// cc=6.1, this build has sm_75 ... + compute_90 PTX: ...; backend=cpu` (a GPU this build has
// no code for) or `cuda unavailable: no CUDA device present; backend=cpu`. Empty when no GPU
// question arose (cpu, cpu_ref, or "auto" in a build without the cuda backend).
struct BackendChoice {
  std::unique_ptr<Backend> backend;
  std::string detail;
  bool cuda_fallback = false;  // "auto" wanted cuda and runs on cpu
};
BackendChoice choose_backend(std::string_view name);

// The backends this binary holds, for --version: "cpu_ref cpu" or "cpu_ref cpu cuda (sm_75
// ... + compute_90 PTX)".
std::string backends_summary();

// SPEC §3 checks of a request's window; throws std::invalid_argument naming the problem.
void check_window(const SweepRequest&);
// The same checks for a window over a history of `bars` bars from the anchor (a stream
// that keeps only a tail of them).
void check_window(const WindowSpec&, size_t bars, const StrategySpec&);
// SPEC §3 default warm-up: 3 x the grid's largest period.
size_t default_warmup(const Grid&);

}  // namespace wfod
