// Body of the CPU hot loop, compiled once per instruction set (lane_kernel_<isa>.cpp each
// include it inside their own namespace). kLanes combos advance together as one vector;
// indicator values are gathered by row offset. The drawdown needs no division per bar
// (cross-multiplied ratios, valid while equity stays positive; a lane whose 1 + s_t <= 0 is flagged
// and the caller re-evaluates it sequentially). With Stops, each lane carries its stops'
// state (src/stop_rules.hpp: the family's r_{t-1}, the stopped side, the trade's entry and
// extreme) and every decision goes through stop_step; without, the loop is the one without
// SPEC §5b. With LaneBlocks, a second set of tallies (Tally) follows the current block beside
// the range's own, from the same decisions and segment values (robust selection's blocks in a
// sweep's own pass). Expects: namespace wfod::cpu::<isa> open, lane_kernel.hpp included.

// kLanes doubles / int64 masks as one GCC/Clang vector: the compiler maps it onto the
// target's registers (one zmm, two ymm, or four xmm) and every operation below is a lane-wise
// select or arithmetic op: no branches.
using vd = double __attribute__((vector_size(kLanes * sizeof(double))));
using vm = int64_t __attribute__((vector_size(kLanes * sizeof(int64_t))));

// |x| as fabs computes it, by clearing the sign bit: +0 for -0 (cpu_ref and the device use fabs:
// a Σ|v| of -0 would differ in its bits). One bitwise and instead of a compare and a masked
// subtraction; the same value for every x but NaN (whose sign no result reads).
inline vd vabs(vd x) { return reinterpret_cast<vd>(reinterpret_cast<vm>(x) & (vm{} + INT64_MAX)); }
inline vd vmax(vd a, vd b) { return a < b ? b : a; }
inline vd vmin(vd a, vd b) { return b < a ? b : a; }
inline vd splat(double x) { return vd{} + x; }
// x in every lane, as it is (-0 stays -0, unlike splat).
inline vd bcast(double x) {
  static_assert(kLanes == 8);
  return vd{x, x, x, x, x, x, x, x};
}
// Whether any lane has a != b (`changed` = a != b): a compare into a mask register and a test
// with AVX-512, a sign-bit mask test with AVX2, else lane by lane.
inline bool any_change(vd a, vd b, vm changed) {
#if defined(__AVX512F__)
  static_assert(sizeof(vd) == sizeof(__m512d));
  (void)changed;
  return _mm512_cmp_pd_mask(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b),
                            _CMP_NEQ_UQ) != 0;
#elif defined(__AVX2__)
  static_assert(kLanes == 8);
  (void)a;
  (void)b;
  using half = int64_t __attribute__((vector_size(4 * sizeof(int64_t))));
  const half x = __builtin_shufflevector(changed, changed, 0, 1, 2, 3) |
                 __builtin_shufflevector(changed, changed, 4, 5, 6, 7);
  return _mm256_movemask_pd(reinterpret_cast<__m256d>(x)) != 0;
#else
  (void)a;
  (void)b;
  int64_t any = 0;
  for (int j = 0; j < kLanes; ++j) any |= changed[j];
  return any != 0;
#endif
}

// A lane group's tallies that move only on bars where some lane's held position changes.
struct ChangeTally {
  vd head_ret, head_abs;  // the head run's Σ value and Σ|value| (closed by the first change)
  vd win_sum, loss_sum;   // closed trades' returns, winning and losing
  vd head_closed;         // 1 once the head run is closed
  vd closed, wins;        // closed trades and wins
  vd longs, shorts;       // bars held long and short, up to the current run
  vd changes;             // bars t with p_{t-1} != p_{t-2}
  vd seg_start;           // the bar the current held run began
};

// Bar t where some lane changes: a = p_{t-2} (held through the exit segment), changed its
// lanes. Trades: a change closes the run held through the exit segment; it wins or loses
// only outside its dead band (SPEC v1.2 §6). The run of `a` ends before bar t. Lanes that do
// not change keep every value, as on the bars that skip this call. Inlined: out of line, its
// call would clobber every vector register and the bar loop would keep its sums in memory.
[[gnu::always_inline]] inline void on_changes(ChangeTally& k, vd& run, vd& run_abs, size_t t, vd a,
                                              vm changed, vd exit_value, vd body_value, vd exit_abs,
                                              vd body_abs, vd trade_band) {
  const vd zero = splat(0.0), one = splat(1.0);
  const vd closing = run + exit_value;
  const vd closing_abs = run_abs + exit_abs;
  const vm first_close = changed & (k.head_closed == 0.0);
  const vm counted = changed & (k.head_closed != 0.0) & (a != 0.0);
  const vd closing_band = trade_band * closing_abs;
  const vm won = counted & (closing > closing_band);
  const vm lost = counted & (closing < -closing_band);
  k.head_ret = first_close ? closing : k.head_ret;
  k.head_abs = first_close ? closing_abs : k.head_abs;
  k.closed += counted ? one : zero;
  k.wins += won ? one : zero;
  k.win_sum += won ? closing : zero;
  k.loss_sum += lost ? closing : zero;
  k.head_closed = changed ? one : k.head_closed;
  run = changed ? body_value : run + (exit_value + body_value);
  run_abs = changed ? body_abs : run_abs + exit_abs + body_abs;
  const vd bar_t = splat(static_cast<double>(t));
  const vd held_for = bar_t - k.seg_start;
  k.longs += (changed & (a > 0.0)) ? held_for : zero;
  k.shorts += (changed & (a < 0.0)) ? held_for : zero;
  k.seg_start = changed ? bar_t : k.seg_start;
  k.changes += changed ? one : zero;
}

// One Summary's running tallies (SPEC §6) over a range of bars: the range's own, and with
// LaneBlocks the current block's beside them.
struct Tally {
  vd sum, sum_sq, down_sq;
  vd equity, peak, trough, best_peak, best_trough;
  vd g_min;         // the least 1 + s_t (nonpositive)
  vd run, run_abs;  // the open run's Σ segment value and Σ|segment value|
  ChangeTally k;    // what moves only where a held position changes
  vd head_pos;      // p_{first-2}: held in the first bar's exit segment
};

// Tallies of no bar yet, entering bar `first` with p_{first-2} = head_pos.
[[gnu::always_inline]] inline void start_tally(Tally& w, size_t first, vd head_pos) {
  const vd zero = splat(0.0), one = splat(1.0);
  w.sum = w.sum_sq = w.down_sq = zero;
  w.equity = w.peak = w.trough = w.best_peak = w.best_trough = one;
  w.g_min = one;
  w.run = w.run_abs = zero;
  w.k.head_ret = w.k.head_abs = w.k.win_sum = w.k.loss_sum = w.k.head_closed = zero;
  w.k.closed = w.k.wins = w.k.longs = w.k.shorts = w.k.changes = zero;
  w.k.seg_start = splat(static_cast<double>(first));
  w.head_pos = head_pos;
}

// Bar t's segment values (s: their sum) into the tallies; a = p_{t-2}, b = p_{t-1}, changed =
// a != b. What changes only where a lane's held position changes (a trade closes, the head
// run ends, a run of long or short bars ends) runs only on bars where some lane changes
// (on_changes): on every other bar its selects would keep every value (adding +0 to sums
// that are never -0), so skipping them keeps every bit. The values derived from s are
// computed here, in the order the loop had before the block tallies (a second call on the
// same bar computes the same expressions, which the compiler shares).
[[gnu::always_inline]] inline void add_bar(Tally& w, size_t t, vd a, vd b, vm changed, vd s,
                                           vd exit_value, vd body_value, vd trade_band) {
  w.sum += s;
  const vd sq = s * s;
  w.sum_sq += sq;
  w.down_sq = s < 0.0 ? w.down_sq + sq : w.down_sq;
  const vd g = 1.0 + s;
  w.g_min = vmin(w.g_min, g);
  w.equity = w.equity * g;
  w.peak = vmax(w.peak, w.equity);
  w.trough = vmin(w.trough, w.equity);
  // Deepest drawdown so far is best_trough / best_peak; replace when e / peak is lower.
  const vm deeper = w.equity * w.best_peak < w.best_trough * w.peak;
  w.best_peak = deeper ? w.peak : w.best_peak;
  w.best_trough = deeper ? w.equity : w.best_trough;
  const vd exit_abs = vabs(exit_value), body_abs = vabs(body_value);
  if (__builtin_expect(any_change(a, b, changed), 0)) {
    on_changes(w.k, w.run, w.run_abs, t, a, changed, exit_value, body_value, exit_abs, body_abs,
               trade_band);
  } else {
    w.run = w.run + s;
    w.run_abs = w.run_abs + exit_abs + body_abs;
  }
}

// The Summaries of tallies started at `first` and run to `last` (p2 = p_{last-2}: held in the
// last bar's body) for lanes 0..lanes-1.
inline void write_tally(Tally& w, size_t first, size_t last, vd p2, int lanes, Summary* out) {
  const vd zero = splat(0.0);
  {  // the last held run
    const vd held_for = splat(static_cast<double>(last)) - w.k.seg_start;
    w.k.longs += p2 > 0.0 ? held_for : zero;
    w.k.shorts += p2 < 0.0 ? held_for : zero;
  }
  const ChangeTally& k = w.k;
  for (int j = 0; j < lanes; ++j) {
    Summary& r = out[j];
    r = Summary{};
    r.bars = static_cast<int64_t>(last - first);
    if (r.bars == 0) continue;
    r.sum = w.sum[j];
    r.sum_sq = w.sum_sq[j];
    r.down_sq = w.down_sq[j];
    r.growth = w.equity[j];
    r.peak = w.peak[j];
    r.trough = w.trough[j];
    r.drawdown = 1.0 - w.best_trough[j] / w.best_peak[j];
    r.nonpositive = w.g_min[j] <= 0.0;  // some 1 + s_t <= 0
    r.head_pos = static_cast<int8_t>(w.head_pos[j]);
    r.tail_pos = static_cast<int8_t>(p2[j]);
    r.single_run = k.head_closed[j] == 0.0;
    r.head_ret = r.single_run ? w.run[j] : k.head_ret[j];
    r.tail_ret = w.run[j];
    r.head_abs = r.single_run ? w.run_abs[j] : k.head_abs[j];
    r.tail_abs = w.run_abs[j];
    r.closed_trades = static_cast<int64_t>(k.closed[j]);
    r.closed_wins = static_cast<int64_t>(k.wins[j]);
    r.closed_win_sum = k.win_sum[j];
    r.closed_loss_sum = k.loss_sum[j];
    r.long_bars = static_cast<int64_t>(k.longs[j]);
    r.short_bars = static_cast<int64_t>(k.shorts[j]);
    r.changes = static_cast<int64_t>(k.changes[j]);
  }
}

// Blocks: LaneBlocks given (the current block's tallies run beside the range's own).
template <int Kind, bool Stops, bool Blocks>
void run_lanes_t(const BarTables& bars, const double* __restrict m, const LaneInput* in, int lanes,
                 const LaneRange& range, Summary* out, const LaneBlocks* blocks) {
  constexpr Family F = family_of_kind(Kind);
  constexpr bool Cross = cross_of_kind(Kind), Vol = vol_of_kind(Kind);
  if (Stops && range.start_state && !range.start_stop)
    throw std::logic_error("run_lanes: a start state without its stop state for stop lanes");
  const size_t first = range.first, last = range.last;
  vm oa, ob, ovs, ovl;  // the lanes' row offsets
  vd first_defined, signal_defined, short_value, threshold, p2, p1;
  vd band_k, level_lo, level_hi;  // bollinger's k, rsi_reversion's levels
  // Stops: r_{t-1}, the stopped side, the trade's entry and extreme, and the level factors.
  vd r1, stopped, entry, extreme;
  StopLevels<vd, vm> stop_lv;
  for (int j = 0; j < kLanes; ++j) {
    const LaneInput& l = in[j < lanes ? j : 0];  // padding lanes repeat lane 0
    oa[j] = l.off_a;
    ob[j] = l.off_b;
    ovs[j] = l.off_vol_short;
    ovl[j] = l.off_vol_long;
    first_defined[j] = static_cast<double>(l.first_defined);
    signal_defined[j] = static_cast<double>(l.signal_defined);
    short_value[j] = l.short_value;
    threshold[j] = l.threshold;
    band_k[j] = l.k;
    level_lo[j] = l.lo;
    level_hi[j] = l.hi;
    if constexpr (Stops) {
      const StopLevels<double, bool> s = stop_levels(l);
      stop_lv.sl_on[j] = s.sl_on ? -1 : 0;
      stop_lv.tp_long_on[j] = s.tp_long_on ? -1 : 0;
      stop_lv.tp_short_on[j] = s.tp_short_on ? -1 : 0;
      stop_lv.ts_on[j] = s.ts_on ? -1 : 0;
      stop_lv.sl_long[j] = s.sl_long;
      stop_lv.sl_short[j] = s.sl_short;
      stop_lv.tp_long[j] = s.tp_long;
      stop_lv.tp_short[j] = s.tp_short;
      stop_lv.ts_long[j] = s.ts_long;
      stop_lv.ts_short[j] = s.ts_short;
      ComboState st;
      if (range.start_state) {
        const LaneState& ls = range.start_state[j < lanes ? j : 0];
        st = {ls.p2, ls.p1, range.start_stop[j < lanes ? j : 0]};
      } else {
        st = stop_state_entering<Kind>(l, bars.close, bars.entry_open, first);
      }
      p2[j] = st.p2;
      p1[j] = st.p1;
      r1[j] = st.stop.r1;
      stopped[j] = st.stop.stopped;
      entry[j] = st.stop.entry;
      extreme[j] = st.stop.extreme;
    } else if (range.start_state) {
      const LaneState& st = range.start_state[j < lanes ? j : 0];
      p2[j] = st.p2;
      p1[j] = st.p1;
    } else {
      const ptrdiff_t f = static_cast<ptrdiff_t>(first);
      p2[j] = position_at<Kind>(l, bars.close, f - 2);
      p1[j] = next_position<Kind>(l, bars.close, first - 1, p2[j]);
    }
  }
  const vd zero = splat(0.0), one = splat(1.0);
  const vd cost = splat(bars.cost), band = splat(kDeadBand), trade_band = splat(kTradeBand);

  auto gather = [m](vm offsets, int64_t t) {
    vd v;
    for (int j = 0; j < kLanes; ++j) v[j] = m[offsets[j] + t];
    return v;
  };

  // Dead-band x ≻ y (SPEC §4), lane-wise.
  auto greater = [band](vd x, vd y) -> vm { return x - y > band * vmax(vabs(x), vabs(y)); };

  // The decision at bar t's close (SPEC §5), the same rules as next_position(): p_t given
  // p_{t-1}.
  // `checked`: std::true_type where some lane's indicators may be undefined at t (p_t = 0
  // there), std::false_type from the bar where every lane's are defined (max_defined).
  // `one_b`: std::true_type where every lane reads the same b row (ma_cross lanes of one slow
  // MA): one load and a broadcast instead of a gather.
  auto decide_next = [&](size_t t, vd held, auto checked, auto one_b) -> vd {
    const int64_t ti = static_cast<int64_t>(t);
    vd next;
    if constexpr (Kind == kGivenKind) {  // r_t evaluated beforehand (cpu/rules_lanes.hpp)
      (void)held;
      next = gather(oa, ti);
    } else if constexpr (level_kind(Kind)) {
      vd x, upper, lower, middle;
      if constexpr (F == Family::bollinger) {
        x = splat(bars.close[t - bars.base]);
        middle = gather(oa, ti);
        const vd offset = band_k * gather(ob, ti);
        upper = middle + offset;
        lower = middle - offset;
      } else {
        x = gather(oa, ti);
        middle = splat(kRsiMiddle);
        upper = level_hi;
        lower = level_lo;
      }
      const LevelSignals<vm> sig{greater(x, upper), greater(lower, x), greater(x, middle),
                                 greater(middle, x)};
      next = level_rule<vd, vm>(fade_of_kind(Kind), sig, held, short_value, one, zero);
      if constexpr (Vol) {
        const vd lv = gather(ovl, ti), sv = gather(ovs, ti);
        const vm open = (lv != 0.0) & greater(sv / lv, threshold);
        next = open ? next : held;
      }
    } else {
      auto row_b = [&](int64_t at) {
        if constexpr (decltype(one_b)::value)
          return bcast(m[ob[0] + at]);
        else
          return gather(ob, at);
      };
      const vd x = gather(oa, ti), y = row_b(ti);
      TrendSignals<vm> sig;
      if constexpr (F == Family::ma_cross) {
        // The dead band's scale max(|x|, |y|) once for both comparisons: `greater` takes it
        // in its own argument order, which gives the same value wherever x - y is not NaN (and
        // where it is, both comparisons are false either way).
        const vd scale = band * vmax(vabs(x), vabs(y));
        sig = ma_cross_signals(x, y, [scale](vd u, vd v) -> vm { return u - v > scale; });
        if constexpr (Cross) {
          const vm before_ok = splat(static_cast<double>(t) - 1.0) >= signal_defined;
          const vd xb = gather(oa, ti - 1), yb = row_b(ti - 1);
          const vd scale_b = band * vmax(vabs(xb), vabs(yb));
          sig = cross_entries(
              sig,
              ma_cross_signals(xb, yb, [scale_b](vd u, vd v) -> vm { return u - v > scale_b; }),
              before_ok);
        }
      } else {
        // Clang types a double-vector comparison as long long lanes, GCC as long: cast.
        const auto channel = channel_signals(splat(bars.close[t - bars.base]), x, y);
        sig = {static_cast<vm>(channel.up), static_cast<vm>(channel.down)};
      }
      if constexpr (Vol) {
        const vd lv = gather(ovl, ti), sv = gather(ovs, ti);
        sig = gate_trend(sig, static_cast<vm>((lv != 0.0) & greater(sv / lv, threshold)));
      }
      next = trend_rule(sig, held, short_value, one);
    }
    if constexpr (decltype(checked)::value)
      return splat(static_cast<double>(t)) < first_defined ? zero : next;
    else
      return next;
  };

  // p_t: the family's decision, through the stops where they act (r1: r_{t-1}).
  auto position_next = [&](size_t t, vd held, vd held_before, auto checked, auto one_b) -> vd {
    if constexpr (Stops) {
      const vd r = decide_next(t, r1, checked, one_b);
      // A trade held at t - 1 began at t >= first >= 1: c_{t-1} is in the columns.
      const double fresh_entry =
          bars.entry_open ? bars.entry_open[t - bars.base] : bars.close[t - 1 - bars.base];
      StopVars<vd> v{stopped, entry, extreme};
      const vd next = stop_step<vd, vm>(r, held, held_before, splat(bars.close[t - bars.base]),
                                        splat(fresh_entry), stop_lv, v, zero, greater);
      stopped = v.stopped;
      entry = v.entry;
      extreme = v.extreme;
      r1 = r;
      return next;
    } else {
      (void)held_before;
      return decide_next(t, held, checked, one_b);
    }
  };

  // Replay decisions only, from the given state entering `start` to the state entering `first`.
  if (range.start_state) {
    for (size_t t = range.start; t < first; ++t) {
      const vd next = position_next(t, p1, p2, std::true_type{}, std::false_type{});
      p2 = p1;
      p1 = next;
    }
  }
  Tally win;  // the range's own tallies
  start_tally(win, first, p2);
  Tally blk;  // with Blocks, the current block's
  if constexpr (Blocks) start_tally(blk, first, p2);

  // The bar loop: each bar's segment values once, into the range's tallies and the block's.
  auto bar_loop = [&](size_t from, size_t to, auto checked, auto one_b) {
    for (size_t t = from; t < to; ++t) {
      const vd gap = splat(bars.gap[t - bars.base]), body = splat(bars.body[t - bars.base]);
      // --- the bar's two segments (SPEC §2) and the window statistics (SPEC §6) ---
      const vd a = p2, b = p1;
      const vm changed = a != b;
      const vd exit_value = a * gap - (changed ? cost * vabs(a) : zero);
      const vd body_value = b * body - (changed ? cost * vabs(b) : zero);
      const vd s = exit_value + body_value;
      add_bar(win, t, a, b, changed, s, exit_value, body_value, trade_band);
      if constexpr (Blocks) add_bar(blk, t, a, b, changed, s, exit_value, body_value, trade_band);

      const vd next = position_next(t, b, a, checked, one_b);
      p2 = b;
      p1 = next;
    }
  };
  // Bars before every lane's indicators are defined decide through the check, the rest
  // without it (the check would keep every value there).
  size_t max_defined = 0;
  for (int j = 0; j < kLanes; ++j)
    max_defined = std::max(max_defined, static_cast<size_t>(first_defined[j]));
  const size_t split = std::clamp(max_defined, first, last);
  auto bars_of = [&](size_t from, size_t to, auto one_b) {
    const size_t mid = std::clamp(split, from, to);
    bar_loop(from, mid, std::true_type{}, one_b);
    bar_loop(mid, to, std::false_type{}, one_b);
  };
  auto all_bars = [&](auto one_b) {
    if constexpr (Blocks) {
      // Block by block: at each edge the block's Summaries are written and its tallies start
      // again from the state the loop is in (what the chained LaneRange enters with).
      size_t from = first;
      for (size_t bi = 0; bi <= blocks->count; ++bi) {
        const size_t to = bi < blocks->count ? blocks->cuts[bi] : last;
        if (bi > 0) start_tally(blk, from, p2);
        bars_of(from, to, one_b);
        write_tally(blk, from, to, p2, lanes, blocks->out + bi * kLanes);
        from = to;
      }
    } else {
      bars_of(first, last, one_b);
    }
  };
  if constexpr (F == Family::ma_cross) {
    bool same_b = true;  // padding lanes repeat lane 0
    for (int j = 1; j < kLanes; ++j) same_b = same_b && ob[j] == ob[0];
    if (same_b)
      all_bars(std::true_type{});
    else
      all_bars(std::false_type{});
  } else {
    all_bars(std::false_type{});
  }
  if (range.end_state)
    for (int j = 0; j < lanes; ++j)
      range.end_state[j] = {static_cast<int8_t>(p2[j]), static_cast<int8_t>(p1[j])};
  if constexpr (Stops) {
    if (range.end_stop)
      for (int j = 0; j < lanes; ++j)
        range.end_stop[j] = {entry[j], extreme[j], static_cast<int8_t>(r1[j]),
                             static_cast<int8_t>(stopped[j])};
  }
  write_tally(win, first, last, p2, lanes, out);
}

inline void run_lanes_any(int kind, bool stops, const BarTables& bars, const double* m,
                          const LaneInput* in, int lanes, const LaneRange& range, Summary* out,
                          const LaneBlocks* blocks) {
  with_kind(kind, [&](auto k) {
    constexpr int K = decltype(k)::value;
#if WFOD_LANE_BLOCKS
    if (blocks && stops)
      run_lanes_t<K, true, true>(bars, m, in, lanes, range, out, blocks);
    else if (blocks)
      run_lanes_t<K, false, true>(bars, m, in, lanes, range, out, blocks);
    else if (stops)
#else
    if (blocks) throw std::logic_error("run_lanes: this kernel variant has no block tallies");
    if (stops)
#endif
      run_lanes_t<K, true, false>(bars, m, in, lanes, range, out, blocks);
    else
      run_lanes_t<K, false, false>(bars, m, in, lanes, range, out, blocks);
  });
}
