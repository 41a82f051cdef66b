// The stretch (change-driven) evaluator of one (combo, range). StretchAccount is its
// accounting: given the range's change bars in order (a bar whose held position goes from a to
// b), it summarises each stretch of bars without a change from prefix sums, its drawdown from a
// sparse table and a segment tree (PrefixData), and each change bar from its own returns, so
// per combo it costs in proportion to position changes, not bars. evaluate_stretches feeds it
// the change bars as TileDecider finds them; the split sweep (sweep_split.cu) feeds it the
// change events its decisions kernel wrote.
#pragma once

#include <math.h>

#include "sweep_kernels.cuh"
#include "tally.cuh"
#include "tile_decisions.cuh"

namespace wfod::cuda {

// Drawdown of a stretch of bars held at one sign, from the segment tree over that sign's log
// growth prefix (DrawdownTree): max, min and internal max drawdown of the range [a, b).
struct RangeDrawdown {
  double max, min, dd;
};

__device__ inline RangeDrawdown join(const RangeDrawdown& l, const RangeDrawdown& r) {
  return {fmax(l.max, r.max), fmin(l.min, r.min), fmax(fmax(l.dd, r.dd), l.max - r.min)};
}

// Iterative bottom-up query over leaves [a, b) (a < b) of a tree with `leaves` leaves.
__device__ inline RangeDrawdown query_tree(const double* __restrict__ tree, long long leaves,
                                           long long a, long long b) {
  RangeDrawdown left{-INFINITY, INFINITY, 0.0}, right{-INFINITY, INFINITY, 0.0};
  for (long long lo = a + leaves, hi = b + leaves; lo < hi; lo >>= 1, hi >>= 1) {
    if (lo & 1) {
      const double* n = tree + 3 * lo++;
      left = join(left, RangeDrawdown{n[0], n[1], n[2]});
    }
    if (hi & 1) {
      const double* n = tree + 3 * --hi;
      right = join(RangeDrawdown{n[0], n[1], n[2]}, right);
    }
  }
  return join(left, right);
}

// Same Summary as evaluate_range up to rounding (SPEC §9: exact trades/wins/counts, floats to
// 1e-9). Positions are ints and the nonpositive-equity test a bool, not doubles and a count:
// the kernels' speed is set by how many threads their registers let fit.
struct StretchAccount {
  const BarData& bars;
  Tally tally;
  bool bad = false;  // some bar's equity factor 1 + s <= 0
  // Log equity relative to the range start: level after the last processed bar, its peak,
  // trough and the deepest drawdown so far.
  double level = 0, peak = 0, trough = 0, dd = 0;
  long long stretch;  // first bar of the open stretch without a change

  __device__ __forceinline__ StretchAccount(const BarData& b, long long first)
      : bars(b), stretch(first) {}

  // Bars [a, b) held at q with no change: prefix differences (the records at a and b) and the
  // drawdown tree.
  __device__ __forceinline__ void flush(double q, long long a, long long b) {
    using R = StretchRecord;
    const PrefixData& px = bars.prefix;
    if (b <= a || q == 0) return;
    const bool is_long = q > 0;
    const int side = is_long ? 0 : 1;  // the long field, or the short one beside it
    const double* at_a = px.records + a * R::kDoubles;
    const double* at_b = px.records + b * R::kDoubles;
    const double gain = at_b[R::kR] - at_a[R::kR];
    tally.sum += q * gain;
    tally.hold(q * gain, px.abs_prefix[b] - px.abs_prefix[a]);
    tally.sum_sq += at_b[R::kR2] - at_a[R::kR2];
    tally.count_held(q, b - a);
    tally.down_sq += at_b[R::kDownLong + side] - at_a[R::kDownLong + side];
    bad = bad || at_b[R::kBadLong + side] != at_a[R::kBadLong + side];
    // Levels in the stretch are base + log[t + 1]; the tree's leaves are log[t + 1].
    const double base = level - at_a[R::kLogLong + side];
    const long long span = b - a;
    const int k = 63 - __clzll(span);
    const double* table =
        px.sparse + static_cast<long long>(side * px.sparse_levels + k) * 2 * bars.bars;
    const double hi = fmax(table[a], table[b - (1ll << k)]);
    const double lo = fmin(table[bars.bars + a], table[bars.bars + b - (1ll << k)]);
    // The stretch's own drawdown is at most its swing: query the tree only if it can matter.
    if (hi - lo > dd) {
      const RangeDrawdown q_dd =
          query_tree(is_long ? px.tree_long : px.tree_short, px.tree_leaves, a, b);
      dd = fmax(dd, q_dd.dd);
    }
    dd = fmax(dd, peak - (base + lo));
    peak = fmax(peak, base + hi);
    trough = fmin(trough, base + lo);
    level = base + at_b[R::kLogLong + side];
  }

  // Bar t, whose held position changes from a (p_{t-2}) to b (p_{t-1}): the open stretch
  // before it, then the bar itself (its record: the one the stretch's flush ended at).
  __device__ __forceinline__ void change_bar(long long t, double a, double b) {
    using R = StretchRecord;
    const double cost = bars.cost;
    flush(a, stretch, t);
    const double* at_t = bars.prefix.records + t * R::kDoubles;
    const double exit_value = a * at_t[R::kGap] - cost * fabs(a);
    const double body_value = b * at_t[R::kBody] - cost * fabs(b);
    const double s = exit_value + body_value;
    tally.add_return(s);
    bad = bad || 1.0 + s <= 0;
    level += at_t[R::change(static_cast<int>((a + 1) * 3 + (b + 1)))];
    peak = fmax(peak, level);
    trough = fmin(trough, level);
    dd = fmax(dd, peak - level);
    tally.change(a, exit_value, body_value);
    tally.count_held(b, 1);
    stretch = t + 1;
  }

  // The Summary of [first, last) once every change bar is in: the open stretch after the last
  // change, held at tail_pos, is flushed first.
  __device__ __forceinline__ Summary finish(long long first, long long last, int head_pos,
                                            double tail_pos) {
    flush(tail_pos, stretch, last);
    return tally.summary(first, last, head_pos, tail_pos, exp(level), exp(peak), exp(trough),
                         -expm1(-dd), bad);
  }
};

// The fast evaluator. Bars go in tiles of 32: first every bar's decision only (float screen),
// recording the tile's change bars as a bit mask and the held positions as bit masks; then
// each thread walks just its own change bars (StretchAccount). A stretch without a change is
// summarised from prefix sums and its drawdown from a segment tree, so per bar there is no
// accounting at all and a warp's divergent work scales with changes, not bars. Same Summary
// as evaluate_range up to rounding (SPEC §9: exact trades/wins/counts, floats to 1e-9).
template <int Family, bool Cross, bool Vol>
__device__ Summary evaluate_stretches(const DeviceCombo& c, const BarData& bars, long long first,
                                      long long last) {
  const double p2 = position_before<Family, Cross, Vol>(c, bars, first - 2);
  const double p1 = next_bar<Family, Cross, Vol>(c, bars, first - 1, p2);
  StretchAccount account(bars, first);
  TileDecider<Family, Cross, Vol> decider(c, bars, first, last, p2, p1, bars.fast != 0);
  for (long long t0 = first, end; t0 < last; t0 = end) {
    end = tile_end(t0, last);
    const int count = static_cast<int>(end - t0);
    const int held_before = decider.ip2;  // held position of the bar before the tile
    // Phase 1: decisions only (TileDecider).
    const TileDecisions tile = decider.next(t0, count);
    unsigned int change_mask = tile.change_mask;
    // Phase 2: this thread's change bars only.
    while (change_mask) {
      const int j = __ffs(change_mask) - 1;
      change_mask &= change_mask - 1;
      const double b = tile.held_at(j);
      const double a = j == 0 ? static_cast<double>(held_before) : tile.held_at(j - 1);
      account.change_bar(t0 + j, a, b);
    }
  }
  return account.finish(first, last, static_cast<int>(p2), decider.ip2);
}

}  // namespace wfod::cuda
