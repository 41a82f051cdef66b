// The rules evaluator of the cuda backend (rules_sweep.cuh): the preparation's rules state,
// the kernels (a thread per combo over a window, or over every block of the window in order)
// and the host's batches, finalize and ranking. Built with -fmad=false (kernels/CMakeLists.txt):
// the conditions' arithmetic, their magnitudes, the stop levels and the Summary round as the
// host's.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "rules_eval.cuh"
#include "rules_sweep.cuh"
#include "selection_pipeline.cuh"
#include "wfod/ranking.hpp"
#include "wfod/summary.hpp"
#include "wfod/support.hpp"

namespace wfod::cuda {
namespace {

constexpr int kThreads = 128;
constexpr size_t kBatch = kRulesBatch;

unsigned blocks_for(unsigned long long threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

__global__ void __launch_bounds__(kThreads)
    rule_summaries_kernel(RuleTables rt, long long first, long long last, unsigned long long n,
                          Summary* out) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const RuleCombo c = load_rule_combo(rt, i);
  RuleNext next{rt.program, c.view};
  detail::ComboState s = rule_state_entering(next, c, rt, first);
  out[i] = rule_walk_summary(next, c, rt, first, last, s);
}

// A combo's blocks in order, each entered in the state the one before left (exact: one walk).
__global__ void __launch_bounds__(kThreads)
    rule_blocks_kernel(RuleTables rt, const long long* __restrict__ edges, int blocks,
                       unsigned long long n, Summary* out) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const RuleCombo c = load_rule_combo(rt, i);
  RuleNext next{rt.program, c.view};
  detail::ComboState s = rule_state_entering(next, c, rt, edges[0]);
  for (int b = 0; b < blocks; ++b)
    out[i * static_cast<unsigned long long>(blocks) + static_cast<unsigned long long>(b)] =
        rule_walk_summary(next, c, rt, edges[b], edges[b + 1], s);
}

// A batch of combos decoded on the host: what the kernels read of each.
struct HostBatch {
  std::vector<uint64_t> ids;
  std::vector<RuleComboData> combos;
  std::vector<double> values;
  std::vector<int32_t> row_of;
  size_t size() const { return ids.size(); }
  void clear() {
    ids.clear();
    combos.clear();
    values.clear();
    row_of.clear();
  }
};

// Appends a valid combo: its values, rows and start (RulesRows::combo_rows), filter and stops.
void add_combo(const Combo& c, const DeviceRules& r, const rules::Program& program, HostBatch& b) {
  if (c.rule_values.size() != program.params.size())
    throw std::invalid_argument("cuda: a rules combo's values do not match its program's params");
  const detail::RulesRows::ComboRows rows = r.rows->combo_rows(c);
  RuleComboData d;
  d.stop_loss = c.stop_loss;
  d.take_profit = c.take_profit;
  d.trailing_stop = c.trailing_stop;
  d.threshold = c.has_vol ? c.vol_threshold : 0.0;
  d.start = static_cast<long long>(rows.start);
  d.vol_short = rows.vol_short;
  d.vol_long = rows.vol_long;
  b.combos.push_back(d);
  b.row_of.insert(b.row_of.end(), rows.row_of.begin(), rows.row_of.end());
  b.values.insert(b.values.end(), c.rule_values.begin(), c.rule_values.end());
  b.ids.push_back(c.id);
}

// Uploads the batch and returns the kernels' view of it.
RuleTables upload_batch(RulesWorkspace& ws, const RulesPrepared& p, const HostBatch& b,
                        const rules::Program& program) {
  ws.combos.upload(b.combos);
  ws.values.upload(b.values);
  ws.row_of.upload(b.row_of);
  RuleTables rt;
  rt.program = p.rules->view;
  rt.combos = ws.combos.data();
  rt.values = ws.values.data();
  rt.row_of = ws.row_of.data();
  rt.n_params = static_cast<uint32_t>(program.params.size());
  rt.n_ind = static_cast<uint32_t>(program.indicators.size());
  rt.gap = p.gap;
  rt.body = p.body;
  rt.close = p.close;
  rt.entry_open = p.entry_open;
  rt.cost = p.cost;
  return rt;
}

// The window Summaries of the batch's combos.
std::vector<Summary> batch_summaries(RulesWorkspace& ws, const SweepRequest& req,
                                     const RulesPrepared& p, const HostBatch& b) {
  if (b.size() == 0) return {};
  const RuleTables rt = upload_batch(ws, p, b, *req.strategy.grid.program);
  ws.summaries.ensure(b.size());
  rule_summaries_kernel<<<blocks_for(b.size()), kThreads>>>(
      rt, static_cast<long long>(req.window.first()), static_cast<long long>(req.window.end),
      b.size(), ws.summaries.data());
  WFOD_CUDA_CHECK_LAUNCH();
  WFOD_CUDA_CHECK(cudaDeviceSynchronize());
  return ws.summaries.download(b.size());
}

}  // namespace

bool rules_stack_fits(const rules::Program& program, size_t* needed) {
  size_t numbers = 1, truths = 1;
  for (const rules::Condition& c : program.conditions)
    detail::rule_stack_depths(c, numbers, truths);
  if (needed) *needed = std::max(numbers, truths);
  return numbers <= kRuleStack && truths <= kRuleStack;
}

void build_rules(const SweepRequest& req, const DeviceHistory& history, size_t n, int threads,
                 DeviceRules& out) {
  const Grid& grid = req.strategy.grid;
  if (!grid.program) throw std::invalid_argument("cuda: a rules grid without its program");
  const rules::Program& program = *grid.program;
  const HistoryView& h = req.history;
  if (program.uses_volume && h.volume.size() != h.size())
    throw std::invalid_argument("cuda: the rules read volume, but " +
                                std::to_string(h.volume.size()) + " volumes were given for " +
                                std::to_string(h.size()) + " bars");
  out.built = false;
  out.rows.reset();  // the previous build's host rows go before the new ones are made
  // The rows read the prices only: the first n bars of them (the volumes, read by the
  // program through their own upload below, may be absent).
  HistoryView prices;
  prices.open = h.open.first(n);
  prices.high = h.high.first(n);
  prices.low = h.low.first(n);
  prices.close = h.close.first(n);
  out.rows = std::make_unique<detail::RulesRows>(prices, grid, threads);
  const detail::RulesRows& rows = *out.rows;
  // The rows on the device, refused by name where they do not fit beside what a sweep stages.
  const size_t count = rows.size();
  const size_t bytes = count * n * sizeof(double);
  const size_t free = free_device_bytes() + out.matrix.size() * sizeof(double);
  if (bytes > free / 10 * 9)
    throw Unsupported("the cuda backend's rules rows need " + std::to_string(bytes >> 20) +
                      " MiB of device memory (" + std::to_string(count) + " indicator rows of " +
                      std::to_string(n) + " bars), more than the " + std::to_string(free >> 20) +
                      " MiB free; use backend cpu (or fewer distinct indicator arguments)");
  out.matrix.ensure(count * n);
  for (size_t r = 0; r < count; ++r)
    WFOD_CUDA_CHECK(cudaMemcpy(out.matrix.data() + r * n, rows.row(r).values.data(),
                               n * sizeof(double), cudaMemcpyHostToDevice));
  std::vector<rules::Node> nodes;
  detail::RuleProgramView view;
  for (size_t s = 0; s < rules::kSlots; ++s) {
    const rules::Condition& c = program.conditions[s];
    view.begin[s] = static_cast<uint32_t>(nodes.size());
    view.count[s] = static_cast<uint32_t>(c.nodes.size());
    nodes.insert(nodes.end(), c.nodes.begin(), c.nodes.end());
  }
  out.nodes.upload(nodes);
  std::vector<uint32_t> used;
  for (size_t i = 0; i < program.indicators.size(); ++i)
    if (program.indicators[i].used) used.push_back(static_cast<uint32_t>(i));
  out.used.upload(used);
  out.uploaded_volume.clear();
  if (program.uses_volume) {
    out.volume.upload(h.volume.data(), n);
    out.uploaded_volume.assign(h.volume.begin(), h.volume.begin() + static_cast<std::ptrdiff_t>(n));
  }
  view.nodes = out.nodes.data();
  view.used = out.used.data();
  view.n_used = static_cast<uint32_t>(used.size());
  view.rows = out.matrix.data();
  view.stride = static_cast<long long>(n);
  view.field[static_cast<int>(rules::Field::open)] = history.open.data();
  view.field[static_cast<int>(rules::Field::high)] = history.high.data();
  view.field[static_cast<int>(rules::Field::low)] = history.low.data();
  view.field[static_cast<int>(rules::Field::close)] = history.close.data();
  view.field[static_cast<int>(rules::Field::volume)] =
      program.uses_volume ? out.volume.data() : nullptr;
  out.view = view;
  out.bars = static_cast<long long>(n);
  out.built = true;
}

bool rules_volume_matches(const DeviceRules& rules, const HistoryView& h, size_t n) {
  if (rules.uploaded_volume.empty()) return true;
  return rules.uploaded_volume.size() >= n && h.volume.size() >= n &&
         std::equal(rules.uploaded_volume.begin(),
                    rules.uploaded_volume.begin() + static_cast<std::ptrdiff_t>(n),
                    h.volume.begin());
}

SweepResult rules_sweep(RulesWorkspace& ws, const SweepRequest& req, const RulesPrepared& p,
                        Backend& host) {
  const Grid& grid = req.strategy.grid;
  const uint64_t n_ids = grid.size();
  const double bpy = req.strategy.bars_per_year;
  SweepResult result;
  TopK top(req.rank.top);
  auto offer = [&](uint64_t id, const Metrics& m) {
    if (!passes_constraints(m, req.rank)) return;
    ++result.ranked;
    top.offer({grid.decode(id), m, objective_value(m, req.rank.objective)});
  };
  std::vector<uint64_t> fallback;
  HostBatch batch;
  auto flush = [&] {
    const std::vector<Summary> sums = batch_summaries(ws, req, p, batch);
    for (size_t i = 0; i < sums.size(); ++i) {
      if (sums[i].nonpositive)
        fallback.push_back(batch.ids[i]);
      else
        offer(batch.ids[i], finalize(sums[i], bpy));
    }
    batch.clear();
  };
  for (uint64_t id = 0; id < n_ids; ++id) {
    const Combo c = grid.decode(id);
    if (!c.valid()) {
      ++result.skipped;
      continue;
    }
    ++result.evaluated;
    add_combo(c, *p.rules, *grid.program, batch);
    if (batch.size() == kBatch) {
      flush();
      if (req.progress) req.progress(static_cast<double>(id + 1) / static_cast<double>(n_ids));
    }
  }
  flush();
  if (!fallback.empty()) {
    const std::vector<Metrics> fb = host.evaluate(req, fallback);
    for (size_t i = 0; i < fallback.size(); ++i) offer(fallback[i], fb[i]);
  }
  if (req.progress) req.progress(1.0);
  result.top = top.sorted();
  result.precision = req.precision;
  if (req.precision == Precision::fast) {
    // The rules evaluator decides in float64 in both precisions: nothing differs from exact.
    FastParity fp;
    fp.combos = result.evaluated;
    result.fast_parity = fp;
  }
  return result;
}

std::vector<Summary> rules_window_summaries(RulesWorkspace& ws, const SweepRequest& req,
                                            const RulesPrepared& p, std::span<const uint64_t> ids) {
  const Grid& grid = req.strategy.grid;
  std::vector<Summary> out;
  out.reserve(ids.size());
  HostBatch batch;
  for (size_t i = 0; i < ids.size(); ++i) {
    add_combo(grid.decode(ids[i]), *p.rules, *grid.program, batch);
    if (batch.size() == kBatch || i + 1 == ids.size()) {
      const std::vector<Summary> sums = batch_summaries(ws, req, p, batch);
      out.insert(out.end(), sums.begin(), sums.end());
      batch.clear();
    }
  }
  return out;
}

std::vector<Summary> rules_block_summaries(RulesWorkspace& ws, const SweepRequest& req,
                                           std::span<const size_t> cuts, const RulesPrepared& p) {
  const Grid& grid = req.strategy.grid;
  const uint64_t total = grid.size();
  const size_t blocks = cuts.size() + 1;
  std::vector<Summary> out(total * blocks);
  if (total == 0) return out;
  ws.edges.upload(block_edges(req, cuts));
  // Batches whose Summaries fit comfortably (half the free memory, at most 2 GiB): the whole
  // result goes to the host anyway, so the device only stages it.
  const size_t per_combo = blocks * sizeof(Summary);
  const size_t budget = std::min<size_t>(
      free_device_bytes() / 2 + ws.summaries.size() * sizeof(Summary), size_t{2} << 30);
  const size_t chunk = std::max<size_t>(1, std::min(kBatch, budget / per_combo));
  HostBatch batch;
  auto flush = [&] {
    if (batch.size() == 0) return;
    const RuleTables rt = upload_batch(ws, p, batch, *grid.program);
    ws.summaries.ensure(batch.size() * blocks);
    rule_blocks_kernel<<<blocks_for(batch.size()), kThreads>>>(
        rt, ws.edges.data(), static_cast<int>(blocks), batch.size(), ws.summaries.data());
    WFOD_CUDA_CHECK_LAUNCH();
    WFOD_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<Summary> sums = ws.summaries.download(batch.size() * blocks);
    for (size_t i = 0; i < batch.size(); ++i)
      std::copy(sums.begin() + static_cast<std::ptrdiff_t>(i * blocks),
                sums.begin() + static_cast<std::ptrdiff_t>((i + 1) * blocks),
                out.begin() + static_cast<std::ptrdiff_t>(batch.ids[i] * blocks));
    batch.clear();
  };
  for (uint64_t id = 0; id < total; ++id) {
    const Combo c = grid.decode(id);
    if (!c.valid()) continue;  // the identity Summary, as the other backends leave it
    add_combo(c, *p.rules, *grid.program, batch);
    if (batch.size() == chunk) flush();
  }
  flush();
  return out;
}

}  // namespace wfod::cuda
