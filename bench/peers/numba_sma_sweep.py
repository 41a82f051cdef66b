#!/usr/bin/env python3
"""A numba peer of `wfo sweep --family ma_cross --ma sma --no-selection` (issue 46, CPU row).

The same grid and window as wfo's bench (fast 2..101 x slow 10..1009 step 5, valid iff
fast < slow, window of the last W returns), SPEC ma_cross `state` entry, long_short, close
fills, no costs: p_t = +1 if SMA_fast > SMA_slow beyond the 1e-10 relative dead band, -1 if
below it, else p_{t-1}. Each combo's window gives sum, sum of squares, downside squares,
compounded equity, max drawdown, trades and wins (SPEC §6); the peer returns sharpe, total
return, max drawdown and trades per combo and prints the best sharpe, so nothing is optimised
away. SMA rows are computed once per distinct period (as wfo does); combos run under
numba.prange. Per-thread throughput: NUMBA_NUM_THREADS=1.

usage: NUMBA_NUM_THREADS=1 /usr/bin/python3 numba_sma_sweep.py CSV [W] [REPEAT]
prints one line per timed run and a summary: valid combos, W, min and median seconds and
combo-bars/s of the min.
"""
import math
import statistics
import sys
import time

import numba
import numpy as np
from numba import njit, prange

DELTA = 1e-10


@njit(cache=False)
def sma_rows(close, periods):
    n_bars = close.shape[0]
    rows = np.full((periods.shape[0], n_bars), np.nan)
    for i in range(periods.shape[0]):
        n = periods[i]
        s = 0.0
        for t in range(n_bars):
            s += close[t]
            if t >= n:
                s -= close[t - n]
            if t >= n - 1:
                # re-anchor every 1,024 bars (SPEC §4: no sum far larger than a window's)
                if (t & 1023) == 0:
                    s = 0.0
                    for k in range(t - n + 1, t + 1):
                        s += close[k]
                rows[i, t] = s / n
    return rows


@njit(inline="always")
def decide(f, s, prev):
    scale = max(abs(f), abs(s))
    if f - s > DELTA * scale:
        return 1
    if s - f > DELTA * scale:
        return -1
    return prev


@njit(parallel=True, cache=False)
def sweep(close, rows, fast_row, slow_row, slow_n, W, bars_per_year):
    m = fast_row.shape[0]
    n_bars = close.shape[0]
    first = n_bars - W  # the window holds s_t for t in [first, n_bars - 1]
    sharpe = np.zeros(m)
    total = np.zeros(m)
    maxdd = np.zeros(m)
    trades = np.zeros(m, dtype=np.int64)
    for j in prange(m):
        fr = rows[fast_row[j]]
        sr = rows[slow_row[j]]
        defined = slow_n[j] - 1
        # p_{first-2}: the decision at first-2, falling back through ties (state entry).
        p2 = 0
        t = first - 2
        while t >= defined:
            d = decide(fr[t], sr[t], 2)
            if d != 2:
                p2 = d
                break
            t -= 1
        p1 = decide(fr[first - 1], sr[first - 1], p2)  # p_{first-1}
        s_sum = 0.0
        s_sq = 0.0
        s_dn = 0.0
        eq = 1.0
        peak = 1.0
        dd = 0.0
        n_trades = 0
        wins = 0
        cur = p2  # the held position of the window's first segment (exit of bar `first`)
        tr = 0.0
        tr_abs = 0.0
        if cur != 0:
            n_trades += 1
        for t in range(first, n_bars):
            # exit segment held at p_{t-2}: worth 0 with close fills and no costs; it
            # continues the trade of the previous body. Body segment held at p_{t-1}.
            v = p1 * (close[t] - close[t - 1]) / close[t - 1]
            if p1 != cur:
                if cur != 0 and tr > 1e-12 * tr_abs:
                    wins += 1
                cur = p1
                tr = 0.0
                tr_abs = 0.0
                if cur != 0:
                    n_trades += 1
            tr += v
            tr_abs += abs(v)
            s_sum += v
            s_sq += v * v
            if v < 0.0:
                s_dn += v * v
            eq *= 1.0 + v
            if eq > peak:
                peak = eq
            else:
                d = 1.0 - eq / peak
                if d > dd:
                    dd = d
            p1 = decide(fr[t], sr[t], p1)
        if cur != 0 and tr > 1e-12 * tr_abs:
            wins += 1
        mu = s_sum / W
        var = s_sq / W - mu * mu
        sd = math.sqrt(var) if var > 0.0 else 0.0
        sharpe[j] = mu / sd * math.sqrt(bars_per_year) if sd > 0.0 else 0.0
        total[j] = eq - 1.0
        maxdd[j] = dd
        trades[j] = n_trades
    return sharpe, total, maxdd, trades


def main() -> None:
    path = sys.argv[1]
    W = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    close = np.loadtxt(path, delimiter=",", skiprows=1, usecols=4)
    fasts = np.arange(2, 102)
    slows = np.arange(10, 1010, 5)
    periods = np.unique(np.concatenate([fasts, slows]))
    index = {int(p): i for i, p in enumerate(periods)}
    fr, sr, sn = [], [], []
    for s in slows:  # fast varies fastest (SPEC §5 combo ids); invalid combos skipped
        for f in fasts:
            if f < s:
                fr.append(index[int(f)])
                sr.append(index[int(s)])
                sn.append(int(s))
    fr, sr, sn = np.array(fr), np.array(sr), np.array(sn)
    assert close.shape[0] - W - 1 >= 3 * int(slows.max()) - 3 + 1 - 1
    # compile on a small slice, then time whole sweeps (SMA rows + combos)
    sweep(close, sma_rows(close, periods), fr[:8], sr[:8], sn[:8], W, 252.0)
    times = []
    for r in range(repeat):
        t0 = time.perf_counter()
        rows = sma_rows(close, periods)
        sharpe, total, dd, trades = sweep(close, rows, fr, sr, sn, W, 252.0)
        dt = time.perf_counter() - t0
        times.append(dt)
        best = int(np.argmax(sharpe))
        print(f"run {r}: {dt:.4f} s  best sharpe {sharpe[best]:.4f} (fast row {fr[best]}, "
              f"slow {sn[best]}, total {total[best]:.4f}, dd {dd[best]:.4f}, "
              f"trades {trades[best]})")
    m = fr.shape[0]
    tmin = min(times)
    print(f"numba {numba.__version__} threads {numba.get_num_threads()}: {m} combos x {W} "
          f"bars: min {tmin:.4f} s, median {statistics.median(times):.4f} s, "
          f"{m * W / tmin:.3e} combo-bars/s (min)")


if __name__ == "__main__":
    main()
