// The screened CSCV walk (cscv_fast.hpp). Every leaf of the walk is a half-set A holding block
// 0 and its complement B, so one fold per half-set serves two splits (A in sample with B out,
// and the reverse). Workers take subtrees of leaves (units) from a counter; for each unit the
// vector kernels fold the participants chunk by chunk and store both halves' float screens,
// then every split of the unit is decided: the IS winner among the participants whose band
// reaches the best screen's, on exact objectives; the OOS rank counted on screens wherever
// the band lies wholly below or above the winner's exact OOS objective, exactly elsewhere.
// Each split's slot is written once, so the result does not depend on threads.
#include "cscv_fast.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <climits>
#include <cmath>
#include <vector>

#include "cscv_exact.hpp"
#include "src/huge_pages.hpp"
#include "src/thread_count.hpp"
#include "src/worker_pool.hpp"

namespace wfod::selection::cscv {
namespace {

// Participants per walk call: the fold stacks of a chunk stay in the core's caches.
constexpr size_t kChunk = 2048;
// Screens buffered per worker and unit (floats): units are cut small enough to fit.
constexpr size_t kUnitFloats = size_t{1} << 21;

uint64_t binomial(int n, int k) {
  if (k < 0 || k > n) return 0;
  uint64_t c = 1;
  for (int i = 1; i <= k; ++i) c = c * static_cast<uint64_t>(n - k + i) / static_cast<uint64_t>(i);
  return c;
}

// The index of an S/2-subset in increasing bitmask order: its colex rank.
uint64_t split_index(uint32_t mask) {
  uint64_t r = 0;
  int j = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1) r += binomial(std::countr_zero(m), ++j);
  return r;
}

int64_t trades_of(const Summary& s) {
  return s.closed_trades + (s.head_pos != 0 ? 1 : 0) + (!s.single_run && s.tail_pos != 0 ? 1 : 0);
}

// The least number of held (long or short) bars whose exposure passes min_exposure, as
// lean_passes divides: exposure = held / bars is non-decreasing in held.
int32_t min_held_of(const RankSpec& rank, int64_t bars) {
  if (!rank.min_exposure) return 0;
  const double m = *rank.min_exposure, n = static_cast<double>(bars);
  auto passes = [&](int64_t held) { return static_cast<double>(held) / n >= m; };
  if (!passes(bars)) return static_cast<int32_t>(bars + 1);  // none (NaN too)
  int64_t lo = 0, hi = bars;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (passes(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return static_cast<int32_t>(lo);
}

// Whether the trade and exposure constraints hold on every S/2-subset H of a participant's
// blocks (then the walk need not check them). Lower bounds over every H: a join keeps both
// sides' closed trades and counts at least as many trades as either side, so trades(H) >=
// max(sum of the S/2 smallest closed counts, the (S/2)-th smallest block trade count); held
// bars add up exactly, so held(H) >= the sum of the S/2 smallest.
bool always_passes(const Summary* row, int S, int32_t min_trades, int32_t min_held) {
  int64_t closed[20], trades[20], held[20];
  for (int b = 0; b < S; ++b) {
    closed[b] = row[b].closed_trades;
    trades[b] = trades_of(row[b]);
    held[b] = row[b].long_bars + row[b].short_bars;
  }
  std::sort(closed, closed + S);
  std::sort(trades, trades + S);
  std::sort(held, held + S);
  const int h = S / 2;
  int64_t closed_low = 0, held_low = 0;
  for (int i = 0; i < h; ++i) {
    closed_low += closed[i];
    held_low += held[i];
  }
  return std::max(closed_low, trades[h - 1]) >= min_trades && held_low >= min_held;
}

// f(begin, end) over [0, count) cut into at most `workers` contiguous parts, one per worker
// of the engine's pool (detail::parallel_for); parts below a few thousand items are not worth a
// thread.
template <class F>
void for_parts(size_t count, int workers, const F& f) {
  const size_t parts = std::clamp<size_t>(count / 4096, 1, static_cast<size_t>(workers));
  wfod::detail::parallel_for(parts, static_cast<int>(parts),
                             [&](int, size_t w) { f(count * w / parts, count * (w + 1) / parts); });
}

struct Unit {
  uint32_t a_mask;
  int depth;
  size_t leaves;
};

// The subtrees below every assignment of blocks 0..depth-1 (block 0 in A), or shallower where
// a half is already full (one leaf).
void units_at(int S, int depth, int b, int na, int nb, uint32_t mask, std::vector<Unit>& out) {
  const int h = S / 2;
  if (b == depth || na == h || nb == h) {
    out.push_back({mask, b, binomial(S - b, h - na)});
    return;
  }
  units_at(S, depth, b + 1, na + 1, nb, mask | (1u << b), out);
  units_at(S, depth, b + 1, na, nb + 1, mask, out);
}

// The participants' blocks in the walk's layout and slot order (slot -> participant): first
// the `unchecked` slots, whose constraints hold on every half-set.
struct Layout {
  std::vector<uint32_t> order;
  size_t unchecked = 0;
  std::vector<double> m0, m1, growth, peak, trough, drawdown;
  std::vector<int32_t> runs, head, tail, held;
  WalkBlocks blocks;
};

}  // namespace

std::optional<PboResult> cscv_pbo_fast(std::span<const Summary> summaries,
                                       std::span<const uint8_t> take, size_t stride,
                                       size_t first_block, size_t blocks, const RankSpec& rank,
                                       double bars_per_year, int threads, size_t hist_bins,
                                       const WalkKernels& kernels, FastStats* stats) {
  WalkRanking wr;
  switch (rank.objective) {
    case Objective::sharpe:
      wr.screen = Screen::sharpe;
      break;
    case Objective::sortino:
      wr.screen = Screen::sortino;
      break;
    case Objective::total_return:
      wr.screen = Screen::total_return;
      break;
    default:
      return std::nullopt;
  }
  PboResult r;
  const std::vector<uint64_t> ids = participants(summaries, take, stride, first_block, blocks, r);
  const size_t n = ids.size();
  if (n < 2) return r;  // no selection among fewer than two combos
  auto row_of = [&](size_t p) { return &summaries[ids[p] * stride + first_block]; };

  // Every half-set then has the same bar count, which the screens and bounds assume.
  const int S = static_cast<int>(blocks), h = S / 2;
  const int64_t block_bars = row_of(0)[0].bars;
  for (size_t p = 0; p < n; ++p)
    for (int b = 0; b < S; ++b)
      if (row_of(p)[b].bars != block_bars) return std::nullopt;
  const int64_t bars = block_bars * h;
  if (block_bars <= 0 || bars >= (int64_t{1} << 30)) return std::nullopt;

  wr.bars = static_cast<double>(bars);
  wr.annual = std::sqrt(bars_per_year);
  wr.min_trades = static_cast<int32_t>(std::clamp<int64_t>(rank.min_trades, 0, INT32_MAX));
  wr.min_held = min_held_of(rank, bars);
  wr.max_drawdown = rank.max_drawdown;
  wr.screens = screens_apply(wr.annual);
  // The drawdown constraint cannot bind when max_drawdown >= 1 and every block's drawdown is
  // a number <= 1: joins of positive equity keep it so (1 - a positive ratio; a NaN ratio is
  // dropped by the max). Otherwise every participant folds and checks it.
  wr.drawdown = !(rank.max_drawdown >= 1.0);
  for (size_t p = 0; p < n && !wr.drawdown; ++p)
    for (int b = 0; b < S; ++b)
      if (!(row_of(p)[b].drawdown <= 1.0)) wr.drawdown = true;

  // Slots in four groups, each in id order: unchecked then checked (the trade and exposure
  // minimums may fail on some half-set), each unguarded then guarded (the screen's guard may
  // fail on some half-set). The walk takes each group in its own chunks.
  const bool moments = wr.screen != Screen::total_return;
  int workers = wfod::detail::resolve_threads(threads);
  std::vector<uint8_t> tag(n);  // group of each participant, found in parallel
  for_parts(n, workers, [&](size_t p0, size_t p1) {
    for (size_t p = p0; p < p1; ++p) {
      const Summary* row = row_of(p);
      const bool check = wr.drawdown || !always_passes(row, S, wr.min_trades, wr.min_held);
      bool guard = moments;
      if (moments && wr.screens) {
        double sum[20], sq[20];
        for (int b = 0; b < S; ++b) {
          sum[b] = row[b].sum;
          sq[b] = wr.screen == Screen::sharpe ? row[b].sum_sq : row[b].down_sq;
        }
        guard = !moment_guard_always_holds(wr.screen, sum, sq, S, wr.bars, wr.annual);
      }
      tag[p] = static_cast<uint8_t>((check ? 2 : 0) + (guard ? 1 : 0));
    }
  });
  Layout lay;
  std::vector<uint32_t> group[4];
  for (size_t p = 0; p < n; ++p) group[tag[p]].push_back(static_cast<uint32_t>(p));
  lay.order.reserve(n);
  std::vector<WalkChunk> chunks;
  for (int gi = 0; gi < 4; ++gi) {
    const size_t from = lay.order.size();
    lay.order.insert(lay.order.end(), group[gi].begin(), group[gi].end());
    for (size_t at = from; at < lay.order.size(); at += kChunk)
      chunks.push_back({at, std::min(kChunk, lay.order.size() - at), gi >= 2, (gi & 1) != 0});
  }
  lay.unchecked = group[0].size() + group[1].size();
  const bool growth = wr.screen == Screen::total_return || wr.drawdown;
  const bool ints = lay.unchecked < n;
  const size_t cells = static_cast<size_t>(S) * n;
  for (auto* v : {&lay.m0, &lay.m1})
    if (moments) resize_on_huge_pages(*v, cells);
  if (growth) resize_on_huge_pages(lay.growth, cells);
  for (auto* v : {&lay.peak, &lay.trough, &lay.drawdown})
    if (wr.drawdown) resize_on_huge_pages(*v, cells);
  for (auto* v : {&lay.runs, &lay.head, &lay.tail, &lay.held})
    if (ints) resize_on_huge_pages(*v, cells);
  // Each slot's blocks into the walk's arrays (block-major), in parallel over slots.
  auto fill_slot = [&](size_t s) {
    const Summary* row = row_of(lay.order[s]);
    for (int b = 0; b < S; ++b) {
      const Summary& x = row[b];
      const size_t at = static_cast<size_t>(b) * n + s;
      if (moments) {
        lay.m0[at] = x.sum;
        lay.m1[at] = wr.screen == Screen::sharpe ? x.sum_sq : x.down_sq;
      }
      if (growth) lay.growth[at] = x.growth;
      if (wr.drawdown) {
        lay.peak[at] = x.peak;
        lay.trough[at] = x.trough;
        lay.drawdown[at] = x.drawdown;
      }
      if (ints) {
        lay.runs[at] = static_cast<int32_t>(trades_of(x));
        lay.head[at] = x.head_pos;
        lay.tail[at] = x.tail_pos;
        lay.held[at] = static_cast<int32_t>(x.long_bars + x.short_bars);
      }
    }
  };
  for_parts(n, workers, [&](size_t s0, size_t s1) {
    for (size_t s = s0; s < s1; ++s) fill_slot(s);
  });
  WalkBlocks& wb = lay.blocks;
  wb.S = S;
  wb.slots = n;
  wb.m0 = lay.m0.data();
  wb.m1 = lay.m1.data();
  wb.growth = lay.growth.data();
  wb.peak = lay.peak.data();
  wb.trough = lay.trough.data();
  wb.drawdown = lay.drawdown.data();
  wb.runs = lay.runs.data();
  wb.head = lay.head.data();
  wb.tail = lay.tail.data();
  wb.held = lay.held.data();

  // Units: deep enough that a unit's screens fit the buffer and every worker has several.
  std::vector<Unit> units;
  size_t max_leaves = 0;
  for (int depth = 1; depth <= S; ++depth) {
    units.clear();
    units_at(S, depth, 1, 1, 0, 1u, units);
    max_leaves = 0;
    for (const Unit& u : units) max_leaves = std::max(max_leaves, u.leaves);
    if (2 * max_leaves * n <= kUnitFloats && units.size() >= 8 * static_cast<size_t>(workers))
      break;
    if (max_leaves == 1) break;
  }
  workers = std::min<int>(workers, static_cast<int>(units.size()));

  const uint64_t splits = r.splits;
  const uint32_t all = (1u << S) - 1u;
  std::vector<CscvSplit> outcome(splits);
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> exact_count{0};
  auto worker = [&] {
    WalkScratch scratch;
    std::vector<float> y;
    std::vector<uint8_t> pass;
    resize_on_huge_pages(y, 2 * max_leaves * n);
    resize_on_huge_pages(pass, 2 * max_leaves * n, uint8_t{1});  // unchecked slots: never written
    std::vector<uint32_t> a_masks(max_leaves), chunk_keys(2 * max_leaves), cand, undecided;
    // Best passing key per half and chunk: a split's candidates are searched only in the
    // chunks whose best key reaches the candidate floor.
    const size_t nc = chunks.size();
    std::vector<uint32_t> best_keys(2 * max_leaves * nc);
    const WalkOut out{y.data(), pass.data(), n, chunk_keys.data(), a_masks.data()};
    uint64_t exact = 0;
    // A half's exact objective, from the walk's own fields: the left fold of its blocks'
    // sums (or growths) in time order, bit for bit combine()'s, then lean_objective's
    // operations (cscv_exact.hpp, cscv_screen.hpp).
    auto exact_objective = [&](size_t slot, uint32_t mask) {
      ++exact;
      const size_t first = static_cast<size_t>(std::countr_zero(mask));
      const size_t at = first * n + slot;
      if (!moments) {
        double g = lay.growth[at];
        for (uint32_t m = mask & (mask - 1); m != 0; m &= m - 1)
          g *= lay.growth[static_cast<size_t>(std::countr_zero(m)) * n + slot];
        return g - 1.0;
      }
      double sum = lay.m0[at], sq = lay.m1[at];
      for (uint32_t m = mask & (mask - 1); m != 0; m &= m - 1) {
        const size_t b = static_cast<size_t>(std::countr_zero(m)) * n + slot;
        sum += lay.m0[b];
        sq += lay.m1[b];
      }
      return exact_moment_objective(wr.screen, sum, sq, wr.bars, wr.annual);
    };
    auto id_of = [&](size_t slot) { return ids[lay.order[slot]]; };

    // Split `split`: IS screens yi (pass flags pi, best passing key per chunk `keys`) over
    // the blocks of mask_is, OOS screens yo.
    auto decide = [&](uint64_t split, const float* yi, const uint8_t* pi, const uint32_t* keys,
                      const float* yo, uint32_t mask_is, uint32_t mask_oos) {
      const uint32_t key = *std::max_element(keys, keys + nc);
      if (key == 0) return;  // nothing ranked in sample: no selection in this split
      size_t best = n;
      double best_obj = 0;
      if (key == 1) {  // every passing objective is NaN: the lowest id wins
        for (size_t s = 0; s < n; ++s)
          if (pi[s] && (best == n || id_of(s) < id_of(best))) best = s;
        best_obj = exact_objective(best, mask_is);
      } else {
        cand.clear();
        const float floor = candidate_floor(screen_of_key(key));
        const uint32_t floor_key = screen_key(floor);
        for (size_t c = 0; c < nc; ++c) {
          if (keys[c] < floor_key) continue;
          const size_t from = cand.size(), s0 = chunks[c].s0;
          kernels.candidates(yi + s0, pi + s0, chunks[c].len, floor, cand);
          for (size_t i = from; i < cand.size(); ++i) cand[i] += static_cast<uint32_t>(s0);
        }
        for (uint32_t s : cand) {
          const double x = exact_objective(s, mask_is);
          if (best == n || ranks_before(x, id_of(s), best_obj, id_of(best))) {
            best = s;
            best_obj = x;
          }
        }
      }
      const double target = exact_objective(best, mask_oos);
      uint64_t under = 0, ties = 0;
      if (std::isnan(target)) {  // NaN is below no value and ties every other NaN
        for (size_t s = 0; s < n; ++s) ties += yo[s] != yo[s] ? 1 : 0;
        ties -= 1;  // the winner's own
      } else {
        undecided.clear();
        const ScreenCount c = kernels.count_screens(yo, n, count_thresholds(target), undecided);
        under = c.under + c.nan;
        for (uint32_t s : undecided) {
          const double x = exact_objective(s, mask_oos);
          under += below(x, target) ? 1 : 0;
          ties += (s != best && same(x, target)) ? 1 : 0;
        }
      }
      outcome[split] = {true, best_obj, target, under, ties};
    };

    for (size_t t; (t = next.fetch_add(1)) < units.size();) {
      const Unit& u = units[t];
      for (size_t c = 0; c < nc; ++c) {
        kernels.walk_unit(wb, wr, {u.a_mask, u.depth}, chunks[c], out, scratch);
        for (size_t i = 0; i < 2 * u.leaves; ++i) best_keys[i * nc + c] = chunk_keys[i];
      }
      for (size_t l = 0; l < u.leaves; ++l) {
        const uint32_t a = a_masks[l], b = all & ~a;
        const uint64_t sa = split_index(a), sb = splits - 1 - sa;  // complement: reverse order
        const float* ya = &y[2 * l * n];
        const uint8_t* pa = &pass[2 * l * n];
        decide(sa, ya, pa, &best_keys[2 * l * nc], ya + n, a, b);
        decide(sb, ya + n, pa + n, &best_keys[(2 * l + 1) * nc], ya, b, a);
      }
    }
    exact_count += exact;
  };
  // On the engine's one pool: units are shared through the counter, so a refused thread's
  // index runs on the caller and the result is the same.
  wfod::detail::run_workers(workers, [&](int) { worker(); });

  if (stats) {
    stats->checked = n - lay.unchecked;
    stats->guarded = group[1].size() + group[3].size();
    stats->drawdown = wr.drawdown;
    stats->units = units.size();
    stats->exact = exact_count;
  }
  finish_pbo(outcome, n, hist_bins, r);
  return r;
}

}  // namespace wfod::selection::cscv
