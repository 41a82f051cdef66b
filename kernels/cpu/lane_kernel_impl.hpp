// Body of the CPU hot loop, compiled once per instruction set (lane_kernel_<isa>.cpp each
// include it inside their own namespace). kLanes combos advance together as one vector;
// indicator values are gathered by row offset. The drawdown needs no division per bar
// (cross-multiplied ratios, valid while equity stays positive; a lane whose 1 + s_t <= 0 is flagged
// and the caller re-evaluates it sequentially). With Stops, each lane carries its stops'
// state (src/stop_rules.hpp: the family's r_{t-1}, the stopped side, the trade's entry and
// extreme) and every decision goes through stop_step; without, the loop is the one without
// SPEC §5b. Expects: namespace wfod::cpu::<isa> open, lane_kernel.hpp included.

// kLanes doubles / int64 masks as one GCC/Clang vector: the compiler maps it onto the
// target's registers (one zmm, two ymm, or four xmm) and every operation below is a lane-wise
// select or arithmetic op: no branches.
using vd = double __attribute__((vector_size(kLanes * sizeof(double))));
using vm = int64_t __attribute__((vector_size(kLanes * sizeof(int64_t))));

// |x| with +0 for -0 (as fabs, which cpu_ref and the device use: a Σ|v| of -0 would differ in its
// bits).
inline vd vabs(vd x) { return x <= 0.0 ? 0.0 - x : x; }
inline vd vmax(vd a, vd b) { return a < b ? b : a; }
inline vd vmin(vd a, vd b) { return b < a ? b : a; }
inline vd splat(double x) { return vd{} + x; }

template <int Kind, bool Stops>
void run_lanes_t(const BarTables& bars, const double* __restrict m, const LaneInput* in, int lanes,
                 const LaneRange& range, Summary* out) {
  constexpr Family F = family_of_kind(Kind);
  constexpr bool Cross = cross_of_kind(Kind), Vol = vol_of_kind(Kind);
  if (Stops && range.start_state && !range.start_stop)
    throw std::logic_error("run_lanes: a start state without its stop state for stop lanes");
  const size_t first = range.first, last = range.last;
  int64_t oa[kLanes], ob[kLanes], ovs[kLanes], ovl[kLanes];
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
  vd sum = zero, sum_sq = zero, down_sq = zero, nonpositive = zero;
  vd equity = one, peak = one, trough = one, best_peak = one, best_trough = one;
  vd run = zero, head_ret = zero, win_sum = zero, loss_sum = zero, head_closed = zero;
  vd run_abs = zero, head_abs = zero;  // Σ|segment value| of the open run and the head run
  vd closed = zero, wins = zero, longs = zero, shorts = zero, changes = zero;
  const vd cost = splat(bars.cost), band = splat(kDeadBand), trade_band = splat(kTradeBand);

  auto gather = [m](const int64_t* offsets, int64_t t) {
    vd v;
    for (int j = 0; j < kLanes; ++j) v[j] = m[offsets[j] + t];
    return v;
  };

  // Dead-band x ≻ y (SPEC §4), lane-wise.
  auto greater = [band](vd x, vd y) -> vm { return x - y > band * vmax(vabs(x), vabs(y)); };

  // The decision at bar t's close (SPEC §5), the same rules as next_position(): p_t given
  // p_{t-1}.
  auto decide_next = [&](size_t t, vd held) -> vd {
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
      const vd x = gather(oa, ti), y = gather(ob, ti);
      TrendSignals<vm> sig;
      if constexpr (F == Family::ma_cross) {
        sig = ma_cross_signals(x, y, greater);
        if constexpr (Cross) {
          const vm before_ok = splat(static_cast<double>(t) - 1.0) >= signal_defined;
          sig = cross_entries(
              sig, ma_cross_signals(gather(oa, ti - 1), gather(ob, ti - 1), greater), before_ok);
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
    return splat(static_cast<double>(t)) < first_defined ? zero : next;
  };

  // p_t: the family's decision, through the stops where they act (r1: r_{t-1}).
  auto position_next = [&](size_t t, vd held, vd held_before) -> vd {
    if constexpr (Stops) {
      const vd r = decide_next(t, r1);
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
      return decide_next(t, held);
    }
  };

  // Replay decisions only, from the given state entering `start` to the state entering `first`.
  if (range.start_state) {
    for (size_t t = range.start; t < first; ++t) {
      const vd next = position_next(t, p1, p2);
      p2 = p1;
      p1 = next;
    }
  }
  const vd head_pos = p2;

  for (size_t t = first; t < last; ++t) {
    const vd gap = splat(bars.gap[t - bars.base]), body = splat(bars.body[t - bars.base]);
    // --- the bar's two segments (SPEC §2) and the window statistics (SPEC §6) ---
    const vd a = p2, b = p1;
    const vm changed = a != b;
    const vd exit_value = a * gap - (changed ? cost * vabs(a) : zero);
    const vd body_value = b * body - (changed ? cost * vabs(b) : zero);
    const vd s = exit_value + body_value;
    sum += s;
    sum_sq += s * s;
    down_sq += s < 0.0 ? s * s : zero;
    const vd g = 1.0 + s;
    nonpositive = g <= 0.0 ? one : nonpositive;
    equity = equity * g;
    peak = vmax(peak, equity);
    trough = vmin(trough, equity);
    // Deepest drawdown so far is best_trough / best_peak; replace when e / peak is lower.
    const vm deeper = equity * best_peak < best_trough * peak;
    best_peak = deeper ? peak : best_peak;
    best_trough = deeper ? equity : best_trough;
    // Trades: a change closes the run held through the exit segment; it wins or loses only
    // outside its dead band (SPEC v1.2 §6).
    const vd closing = run + exit_value;
    const vd closing_abs = run_abs + vabs(exit_value);
    const vm first_close = changed & (head_closed == 0.0);
    const vm counted = changed & (head_closed != 0.0) & (a != 0.0);
    const vd closing_band = trade_band * closing_abs;
    const vm won = counted & (closing > closing_band), lost = counted & (closing < -closing_band);
    head_ret = first_close ? closing : head_ret;
    head_abs = first_close ? closing_abs : head_abs;
    closed += counted ? one : zero;
    wins += won ? one : zero;
    win_sum += won ? closing : zero;
    loss_sum += lost ? closing : zero;
    head_closed = changed ? one : head_closed;
    run = changed ? body_value : run + s;
    run_abs = changed ? vabs(body_value) : run_abs + vabs(exit_value) + vabs(body_value);
    longs += b > 0.0 ? one : zero;
    shorts += b < 0.0 ? one : zero;
    changes += changed ? one : zero;

    const vd next = position_next(t, b, a);
    p2 = b;
    p1 = next;
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
  for (int j = 0; j < lanes; ++j) {
    Summary& r = out[j];
    r = Summary{};
    r.bars = static_cast<int64_t>(last - first);
    if (r.bars == 0) continue;
    r.sum = sum[j];
    r.sum_sq = sum_sq[j];
    r.down_sq = down_sq[j];
    r.growth = equity[j];
    r.peak = peak[j];
    r.trough = trough[j];
    r.drawdown = 1.0 - best_trough[j] / best_peak[j];
    r.nonpositive = nonpositive[j] != 0.0;
    r.head_pos = static_cast<int8_t>(head_pos[j]);
    r.tail_pos = static_cast<int8_t>(p2[j]);  // p_{last-2}: held in the last bar's body
    r.single_run = head_closed[j] == 0.0;
    r.head_ret = r.single_run ? run[j] : head_ret[j];
    r.tail_ret = run[j];
    r.head_abs = r.single_run ? run_abs[j] : head_abs[j];
    r.tail_abs = run_abs[j];
    r.closed_trades = static_cast<int64_t>(closed[j]);
    r.closed_wins = static_cast<int64_t>(wins[j]);
    r.closed_win_sum = win_sum[j];
    r.closed_loss_sum = loss_sum[j];
    r.long_bars = static_cast<int64_t>(longs[j]);
    r.short_bars = static_cast<int64_t>(shorts[j]);
    r.changes = static_cast<int64_t>(changes[j]);
  }
}

inline void run_lanes_any(int kind, bool stops, const BarTables& bars, const double* m,
                          const LaneInput* in, int lanes, const LaneRange& range, Summary* out) {
  with_kind(kind, [&](auto k) {
    if (stops)
      run_lanes_t<decltype(k)::value, true>(bars, m, in, lanes, range, out);
    else
      run_lanes_t<decltype(k)::value, false>(bars, m, in, lanes, range, out);
  });
}
