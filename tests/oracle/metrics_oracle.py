#!/usr/bin/env python3
"""Independent metrics oracle for `wfo`, written from SPEC.md (v1.2) alone.

usage: python3 tests/oracle/metrics_oracle.py WFO_BINARY DATA_CSV... [--backends cpu_ref,cpu]
                                               [--max-bars N] [--no-walk] [--keep-going]

For every CSV it computes, in plain Python (standard library only):
  * SPEC §4 indicators exactly rounded (SMA/WMA/HMA/STD from exact integer sums of the
    closes scaled by a common power of two; EMA carried in 50-digit decimal; Donchian exact),
  * SPEC §5 positions (ma_cross state/cross, long_short/long_only, channel_breakout with
    close and high_low sources, the optional vol_filter), with the §4 dead band,
  * SPEC §2 segment returns (fill close / next_open, commission + slippage),
  * the SPEC §3 window (default warmup 3 x the largest period of the grid, default
    W = bars - 1 - warmup) and every SPEC §6 metric,
and compares them with `wfo sweep --json --no-selection` (one-combo grids) and
`wfo positions`; then SPEC §7 rankings of 20-50 combo grids (top-K ids in order); then
SPEC §8 walk-forward (`wfo walk --json --no-selection`, rolling and anchored): fold
boundaries, winners, IS/OOS metrics per fold, the concatenated OOS metrics and WFE.

Float metrics must agree within 1e-9 relative or 1e-12 absolute (SPEC §9), integer counts
and ids exactly. Exit 0 when everything agrees; 1 at the first disagreement, printing the
combo, the quantity, both values and the exact wfo command that reproduces it; 2 on a
usage error.

Readings where SPEC is silent follow docs/spec-notes.md and are marked "spec-notes" below:
  - sharpe is 0 when sigma is 0 (SPEC says "(0 when the denominator is 0)" after sortino);
  - SPEC v1.2 §6: a trade wins if r > 1e-12 sum|v| and loses if r < -1e-12 sum|v| (r and
    sum|v| over its segments), else it is flat; profit_factor is 0 when no trade wins, 1e9
    when some win and none loses, else min(gain / |loss|, 1e9);
  - SPEC v1.2 §7: combos rank by the objective rounded to 8 significant digits (half to
    even; |x| < 1e-12 as 0), ties by the lower id;
  - "STD counts as 0" compares STD(n) with SMA(n) of the same n;
  - a fold without a ranked combo is flat and the next fold pays the switch from flat;
  - +inf metrics (cagr overflow) are JSON null; ranking puts NaN below every number.
Comparisons that land within 1e-12 relative of the dead band's edge (SPEC §9's exception)
are reported as notes; a position mismatch at such a bar is reported as that, not as a
defect.
"""

import bisect
import csv
import decimal
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time
from decimal import Decimal, getcontext

getcontext().prec = 50

DELTA = 1e-10          # SPEC §4 dead band
REL_TOL = 1e-9         # SPEC §9
ABS_TOL = 1e-12
EDGE_REL = 1e-12       # SPEC §9: "within 1e-12 relative of the dead band's edge"

INT_METRICS = ("trades", "wins", "long_bars", "short_bars", "flat_bars", "changes")
FLOAT_METRICS = ("total_return", "cagr", "sharpe", "sortino", "max_drawdown", "calmar",
                 "win_rate", "profit_factor", "exposure")
ALL_METRICS = FLOAT_METRICS[:6] + ("trades", "wins") + FLOAT_METRICS[6:8] + (
    "exposure", "long_bars", "short_bars", "flat_bars", "changes")

NOTES = []
ROUNDING_ZERO_TRADES = []   # trades whose return is within rounding of 0 (sign order-dependent)


class Disagreement(Exception):
    pass


def note(msg):
    NOTES.append(msg)
    print("  note: " + msg)


# --------------------------------------------------------------------------- data

def load_csv(path):
    with open(path, newline="") as fh:
        rd = csv.reader(fh)
        header = [h.strip().lower() for h in next(rd)]
        ts_col = None
        for name in ("timestamp", "date", "datetime", "time", "close_time"):
            if name in header:
                ts_col = header.index(name)
                break
        if ts_col is None:
            raise SystemExit("no timestamp/date column in " + path)
        cols = [header.index(c) for c in ("open", "high", "low", "close", "volume")]
        ts, o, h, l, c = [], [], [], [], []
        for row in rd:
            if not row:
                continue
            ts.append(row[ts_col].strip())
            o.append(float(row[cols[0]]))
            h.append(float(row[cols[1]]))
            l.append(float(row[cols[2]]))
            c.append(float(row[cols[3]]))
    return {"ts": ts, "open": o, "high": h, "low": l, "close": c}


# --------------------------------------------------------------------------- §4 indicators

def dyadic(x):
    num, den = x.as_integer_ratio()
    return num, den.bit_length() - 1


class Indicators:
    """SPEC §4 indicators for one series, exactly rounded (None where undefined)."""

    def __init__(self, bars):
        self.bars = bars
        self.c = bars["close"]
        self.N = len(self.c)
        # closes as integers C_i with c_i = C_i / 2^K (exact)
        parts = [dyadic(x) for x in self.c]
        self.K = max(e for _, e in parts)
        self.C = [m << (self.K - e) for m, e in parts]
        self.cache = {}

    def get(self, name, n):
        key = (name, n)
        if key not in self.cache:
            self.cache[key] = getattr(self, "_" + name)(n)
        return self.cache[key]

    def _sma(self, n):
        out = [None] * self.N
        s = 0
        den = n << self.K
        for t in range(self.N):
            s += self.C[t]
            if t >= n:
                s -= self.C[t - n]
            if t >= n - 1:
                out[t] = s / den          # int / int: correctly rounded
        return out

    def _wsum(self, n):
        """exact integer WS_t = sum_{k=1..n} k*C_{t-n+k} (None before n-1)."""
        out = [None] * self.N
        ws = 0
        s = 0  # sum of C_{t-n+1..t}
        for t in range(self.N):
            # WS_t = WS_{t-1} + n*C_t - S_{t-1}, with S_{t-1} = sum C_{t-n..t-1}
            ws = ws + n * self.C[t] - s
            s += self.C[t]
            if t >= n:
                s -= self.C[t - n]
            if t >= n - 1:
                out[t] = ws
        return out

    def _wma(self, n):
        ws = self.get("wsum", n)
        den = (n * (n + 1) // 2) << self.K
        return [None if w is None else w / den for w in ws]

    def _hma(self, n):
        h = n // 2
        s = math.isqrt(n)
        out = [None] * self.N
        if h == 0 or s == 0:
            return out
        wh, wn = self.get("wsum", h), self.get("wsum", n)
        dh, dn = h * (h + 1) // 2, n * (n + 1) // 2
        # D_t * dh*dn*2^K = 2*WS^h_t*dn - WS^n_t*dh   (exact)
        D = [None if wn[t] is None else 2 * wh[t] * dn - wn[t] * dh for t in range(self.N)]
        den = ((s * (s + 1) // 2) * dh * dn) << self.K
        for t in range(self.N):
            if t - s + 1 < 0 or D[t - s + 1] is None:
                continue
            acc = 0
            for k in range(1, s + 1):
                acc += k * D[t - s + k]
            out[t] = acc / den
        return out

    def _ema(self, n):
        out = [None] * self.N
        if self.N < n:
            return out
        alpha = Decimal(2) / Decimal(n + 1)
        e = Decimal(sum(self.C[:n])) / Decimal(n << self.K)
        out[n - 1] = float(e)
        for t in range(n, self.N):
            e = e + alpha * (Decimal(self.c[t]) - e)
            out[t] = float(e)
        return out

    def _std(self, n):
        out = [None] * self.N
        s = q = 0
        P = 96
        den = (n << self.K) << P
        for t in range(self.N):
            s += self.C[t]
            q += self.C[t] * self.C[t]
            if t >= n:
                s -= self.C[t - n]
                q -= self.C[t - n] * self.C[t - n]
            if t >= n - 1:
                num = n * q - s * s          # var * n^2 * 4^K, exact, >= 0
                out[t] = math.isqrt(num << (2 * P)) / den
        return out

    def donchian(self, n, source):
        key = ("donchian", n, source)
        if key not in self.cache:
            xs = self.bars["close"] if source == "close" else self.bars["high"]
            ys = self.bars["close"] if source == "close" else self.bars["low"]
            hh = [None] * self.N
            ll = [None] * self.N
            for t in range(n, self.N):
                hh[t] = max(xs[t - n:t])
                ll[t] = min(ys[t - n:t])
            self.cache[key] = (hh, ll)
        return self.cache[key]


# --------------------------------------------------------------------------- dead band

class Cmp:
    """SPEC §4 dead-band comparisons, recording near-edge cases (SPEC §9)."""

    def __init__(self):
        self.edges = []   # (bar, what)

    def rel(self, x, y, t, what):
        """+1 if x > y, -1 if x < y, 0 if equal, all within the dead band."""
        m = max(abs(x), abs(y))
        d = x - y
        if m > 0 and abs(abs(d) - DELTA * m) <= EDGE_REL * m:
            self.edges.append((t, what))
        if d > DELTA * m:
            return 1
        if -d > DELTA * m:
            return -1
        return 0

    def counts_zero(self, sd, mean, t, what):
        lim = DELTA * mean
        if lim > 0 and abs(sd - lim) <= 1e-3 * lim:
            self.edges.append((t, what + " STD~δ·SMA"))
        return sd <= lim


# --------------------------------------------------------------------------- §5 positions

FAMILY_AXES = {
    "ma_cross": ("fast", "slow", "ma", "side", "entry"),
    "channel_breakout": ("n", "source", "side"),
}
VOL_AXES = ("vol_short", "vol_long", "vol_threshold")
DEFAULTS = {"ma": "sma", "side": "long_short", "entry": "state", "source": "close"}
FLAG = {"fast": "--fast", "slow": "--slow", "ma": "--ma", "side": "--side", "entry": "--entry",
        "n": "--n", "source": "--source", "vol_short": "--vol-short",
        "vol_long": "--vol-long", "vol_threshold": "--vol-threshold"}


def combo_valid(combo):
    if combo["family"] == "ma_cross" and not combo["fast"] < combo["slow"]:
        return False
    if "vol_short" in combo and not combo["vol_short"] < combo["vol_long"]:
        return False
    return True


def positions(ind, combo, cmp):
    """p_t for every bar (SPEC §5), from the anchor (bar 0)."""
    N = ind.N
    c = ind.c
    fam = combo["family"]
    long_only = combo.get("side", "long_short") == "long_only"
    short = 0 if long_only else -1
    vol = "vol_short" in combo
    if vol:
        vs, vl, thr = combo["vol_short"], combo["vol_long"], float(combo["vol_threshold"])
        sd_s, sd_l = ind.get("std", vs), ind.get("std", vl)
        mu_s, mu_l = ind.get("sma", vs), ind.get("sma", vl)
    if fam == "ma_cross":
        F = ind.get(combo.get("ma", "sma"), combo["fast"])
        S = ind.get(combo.get("ma", "sma"), combo["slow"])
        cross = combo.get("entry", "state") == "cross"
    else:
        HH, LL = ind.donchian(combo["n"], combo.get("source", "close"))
    out = [0] * N
    p = 0
    prev_rel = None
    for t in range(N):
        rel = None
        if fam == "ma_cross":
            defined = F[t] is not None and S[t] is not None
            if defined:
                rel = cmp.rel(F[t], S[t], t, "MA_fast vs MA_slow")
        else:
            defined = HH[t] is not None
        if vol and (sd_s[t] is None or sd_l[t] is None):
            defined = False
        if not defined:
            p = 0
        else:
            is_open = True
            if vol:
                if cmp.counts_zero(sd_l[t], mu_l[t], t, "vol_long"):
                    is_open = False
                else:
                    v = 0.0 if cmp.counts_zero(sd_s[t], mu_s[t], t, "vol_short") else sd_s[t] / sd_l[t]
                    is_open = cmp.rel(v, thr, t, "vol ratio vs threshold") > 0
            if is_open:
                if fam == "ma_cross":
                    if not cross:
                        if rel > 0:
                            p = 1
                        elif rel < 0:
                            p = short
                    else:
                        if prev_rel is not None and prev_rel < 0 and rel > 0:
                            p = 1
                        elif prev_rel is not None and prev_rel > 0 and rel < 0:
                            p = short
                else:
                    if c[t] > HH[t]:
                        p = 1
                    elif c[t] < LL[t]:
                        p = short
            # closed: p_t = p_{t-1} (p unchanged)
        out[t] = p
        prev_rel = rel
    return out


# --------------------------------------------------------------------------- §2 returns

def bar_segments(bars, t, p2, p1, fill, cost):
    """(exit, body) segment values of bar t >= 1 held at p_{t-2} = p2, p_{t-1} = p1."""
    c1 = bars["close"][t - 1]
    ct = bars["close"][t]
    x = c1 if fill == "close" else bars["open"][t]
    if p1 != p2:
        e, nn = abs(p2), abs(p1)
    else:
        e = nn = 0
    exit_v = p2 * (x - c1) / c1 - cost * e
    body_v = p1 * (ct - x) / c1 - cost * nn
    return exit_v, body_v


def window_records(bars, pos, first, last, fill, cost, p2_override=None):
    """[(p2, p1, exit, body)] for t in [first, last]; p2_override replaces p_{t-2} at first."""
    recs = []
    for t in range(first, last + 1):
        p1 = pos[t - 1] if t >= 1 else 0
        p2 = pos[t - 2] if t >= 2 else 0
        if t == first and p2_override is not None:
            p2 = p2_override
        ev, bv = bar_segments(bars, t, p2, p1, fill, cost)
        recs.append((p2, p1, ev, bv))
    return recs


# --------------------------------------------------------------------------- §6 metrics

def metrics(recs, A):
    """SPEC §6 over the window's float64 strategy returns s_t = exit + body. The sums,
    product, drawdown and powers are carried in 60-digit decimal from the exact float64
    s_t and rounded once at the end (a naive float64 product of 1 + s_t loses up to
    ~n ulp absolutely, which for small total returns is more than 1e-9 relative)."""
    n = len(recs)
    s = [ev + bv for (_, _, ev, bv) in recs]
    ds = [Decimal(x) for x in s]
    dn = Decimal(n)
    mu = sum(ds) / dn
    var = sum((x - mu) * (x - mu) for x in ds) / dn
    var_d = sum(x * x for x in ds if x < 0) / dn
    sqA = Decimal(A).sqrt()
    P = Decimal(1)
    peak = Decimal(1)
    mdd = Decimal(0)
    for x in ds:
        P *= 1 + x                       # E_t
        if P > peak:
            peak = P
        dd = 1 - P / peak
        if dd > mdd:
            mdd = dd
    total_return = float(P - 1)
    if P <= 0:
        cagr_d = Decimal(-1)
    else:
        try:
            cagr_d = (P.ln() * Decimal(A) / dn).exp() - 1
        except ArithmeticError:           # decimal overflow: cagr is +inf (spec-notes 10)
            cagr_d = Decimal("Infinity")
    cagr = float(cagr_d)
    sigma = var.sqrt()
    sigma_d = var_d.sqrt()
    sharpe = float(mu / sigma * sqA) if sigma != 0 else 0.0      # spec-notes 1
    sortino = float(mu / sigma_d * sqA) if sigma_d != 0 else 0.0
    calmar = float(cagr_d / mdd) if mdd != 0 else 0.0
    if cagr_d.is_infinite():
        calmar = math.inf if mdd != 0 else 0.0
    mdd = float(mdd)
    # A trade's return is "the sum of its segments' values"; the float64 segment values are
    # summed exactly and rounded once (math.fsum), which fixes the result independently of
    # summation order. SPEC v1.2 §6 classifies it against a dead band of 1e-12 sum|v|; a
    # return within rounding of that band's edge (SPEC §9's exception) is noted.
    trades = []
    cur, segs = 0, []

    def close_trade():
        r = math.fsum(segs)
        scale = math.fsum(abs(v) for v in segs)
        band = 1e-12 * scale
        if r != 0 and abs(abs(r) - band) <= 4 * len(segs) * 2.0 ** -53 * scale:
            ROUNDING_ZERO_TRADES.append((r, scale))
        trades.append((r, band))

    for (p2, p1, ev, bv) in recs:
        for h, v in ((p2, ev), (p1, bv)):
            if h != cur:
                if cur != 0:
                    close_trade()
                cur, segs = h, [v]
            else:
                segs.append(v)
    if cur != 0:
        close_trade()
    won = [r for r, band in trades if r > band]
    lost = [r for r, band in trades if r < -band]
    wins = len(won)
    gain = math.fsum(won)
    loss = math.fsum(lost)
    if not won:
        pf = 0.0
    elif not lost:
        pf = 1e9
    else:
        pf = min(gain / abs(loss), 1e9)
    held = [p1 for (_, p1, _, _) in recs]
    return {
        "total_return": total_return, "cagr": cagr, "sharpe": sharpe, "sortino": sortino,
        "max_drawdown": mdd, "calmar": calmar, "trades": len(trades), "wins": wins,
        "win_rate": wins / len(trades) if trades else 0.0, "profit_factor": pf,
        "exposure": sum(1 for p in held if p != 0) / n,
        "long_bars": sum(1 for p in held if p > 0),
        "short_bars": sum(1 for p in held if p < 0),
        "flat_bars": sum(1 for p in held if p == 0),
        "changes": sum(1 for (p2, p1, _, _) in recs if p1 != p2),
    }


# --------------------------------------------------------------------------- §7 ranking

def objective_key(v):
    """SPEC v1.2 §7's rank key, larger is better: the value rounded to 8 significant decimal
    digits (half to even, on the double's exact decimal value), |x| < 1e-12 as 0, infinities
    at the ends, NaN below every number (spec-notes 10)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return (0, 0)
    if math.isinf(v):
        return (3, 0) if v > 0 else (1, 0)
    if abs(v) < 1e-12:
        return (2, decimal.Decimal(0))
    d = decimal.Decimal(v)  # exact
    q = decimal.Decimal(1).scaleb(d.copy_abs().adjusted() - 7)
    return (2, d.quantize(q, rounding=decimal.ROUND_HALF_EVEN))


def rank(results, objective, min_trades, max_dd, min_exposure, top):
    """results: {id: metrics}. SPEC §7: constraints, maximise, ties by lower id."""
    ok = []
    for cid, m in results.items():
        if m["trades"] < min_trades:
            continue
        if not (m["max_drawdown"] <= max_dd):
            continue
        if min_exposure is not None and not (m["exposure"] >= min_exposure):
            continue
        ok.append(cid)
    ok.sort(key=lambda cid: (tuple(-x for x in objective_key(results[cid][objective])), cid))
    return ok[:top], ok


# --------------------------------------------------------------------------- grids

def expand_grid(family, axes):
    """axes: {param: [values]}; returns [(id, combo)] in SPEC §5 mixed-radix order."""
    names = list(FAMILY_AXES[family]) + ([a for a in VOL_AXES if a in axes])
    lists = [axes.get(nm, [DEFAULTS.get(nm)]) for nm in names]
    total = 1
    for l in lists:
        total *= len(l)
    out = []
    for cid in range(total):
        r = cid
        combo = {"family": family}
        for nm, l in zip(names, lists):
            combo[nm] = l[r % len(l)]
            r //= len(l)
        out.append((cid, combo))
    return out


def grid_periods(family, axes):
    ps = []
    for nm in ("fast", "slow", "n", "vol_short", "vol_long"):
        if nm in axes:
            ps += list(axes[nm])
    return ps


def grid_flags(family, axes):
    args = ["--family", family]
    for nm in list(FAMILY_AXES[family]) + list(VOL_AXES):
        if nm in axes:
            args += [FLAG[nm], ",".join(str(v) for v in axes[nm])]
    return args


def combo_str(combo):
    return " ".join("%s=%s" % (k, v) for k, v in combo.items())


# --------------------------------------------------------------------------- wfo calls

def run_wfo(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise Disagreement("wfo failed (rc %d): %s\n  command: %s" % (
            p.returncode, p.stderr.strip()[-2000:], shlex.join(cmd)))
    return p.stdout


def close(a, b):
    if a is None or b is None:
        # JSON null = a non-finite number (spec-notes 10)
        fa = math.nan if a is None else a
        fb = math.nan if b is None else b
        return not math.isfinite(fa) and not math.isfinite(fb)
    if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
        return a == b or (math.isnan(a) and math.isnan(b))
    return abs(a - b) <= max(REL_TOL * max(abs(a), abs(b)), ABS_TOL)


def fail(what, combo, key, mine, theirs, cmd, extra="", labels=("oracle", "wfo")):
    raise Disagreement(
        "DISAGREEMENT in %s\n  combo: %s\n  quantity: %s\n  %-8s %r\n  %-8s %r\n%s"
        "  reproduce: %s" % (what, combo, key, labels[0] + ":", mine, labels[1] + ":", theirs, extra,
                             shlex.join(cmd)))


def compare_metrics(what, combo, mine, theirs, cmd, extra="", labels=("oracle", "wfo")):
    """mine: the oracle's metrics (or the reference backend's). Float metrics within SPEC §9's
    1e-9 relative / 1e-12 absolute, integer metrics exactly, with no allowance for how a
    product rounds: the oracle's total return is exactly rounded, and so must wfo's be where
    Π(1 + s_t) is near 1 (cagr multiplies its error by A/n, calmar divides it by the drawdown)."""
    for k in ALL_METRICS:
        a = mine[k]
        b = theirs.get(k, "<missing>")
        if k in INT_METRICS:
            if a != b:
                fail(what, combo, k, a, b, cmd, extra, labels)
        else:
            if b == "<missing>" or not close(a, b):
                fail(what, combo, k, a, b, cmd, extra, labels)


def edge_near(cmp, bars_of_interest):
    return [e for e in cmp.edges if e[0] in bars_of_interest]


# --------------------------------------------------------------------------- checks

class FileCtx:
    def __init__(self, wfo, path, bars, A, backends):
        self.wfo, self.path, self.bars, self.A, self.backends = wfo, path, bars, A, backends
        self.ind = Indicators(bars)
        self.N = len(bars["close"])
        self.pos_cache = {}

    def pos(self, combo):
        key = tuple(sorted(combo.items()))
        if key not in self.pos_cache:
            cmp = Cmp()
            p = positions(self.ind, combo, cmp)
            self.pos_cache[key] = (p, cmp)
        return self.pos_cache[key]


def run_opts(opts):
    args = []
    for k, flag in (("fill", "--fill"), ("cost_bps", "--cost-bps"), ("slippage_bps", "--slippage-bps"),
                    ("window", "--window"), ("warmup", "--warmup"), ("objective", "--objective"),
                    ("min_trades", "--min-trades"), ("max_drawdown", "--max-drawdown"),
                    ("min_exposure", "--min-exposure"), ("top", "--top")):
        if k in opts:
            args += [flag, str(opts[k])]
    return args


def cost_of(opts):
    return (float(opts.get("cost_bps", 0)) + float(opts.get("slippage_bps", 0))) / 1e4


def default_warmup(family, axes, opts):
    if "warmup" in opts:
        return int(opts["warmup"])
    return 3 * max(grid_periods(family, axes))


def check_single(ctx, family, axes, opts):
    """One-combo grid: positions + every §6 metric (SPEC §2, §3, §5, §6)."""
    (cid, combo), = expand_grid(family, axes)
    fill = opts.get("fill", "close")
    cost = cost_of(opts)
    warmup = default_warmup(family, axes, opts)
    W = int(opts["window"]) if "window" in opts else ctx.N - 1 - warmup
    T = ctx.N
    first, last = T - W, T - 1
    if T - W - 1 < warmup:
        raise SystemExit("test case needs more bars: %s" % combo_str(combo))
    p, cmp = ctx.pos(combo)
    n0 = len(ROUNDING_ZERO_TRADES)
    mine = metrics(window_records(ctx.bars, p, first, last, fill, cost), ctx.A)
    zt = ROUNDING_ZERO_TRADES[n0:]
    if zt:
        note("%s %s: %d trade(s) whose return is within rounding of the dead band's edge (fsum %s); "
             "'wins' there depends on summation order" % (os.path.basename(ctx.path), combo_str(combo), len(zt),
                                              ", ".join("%.3g" % r for r, _ in zt)))
    ref = None
    edges_w = [e for e in cmp.edges if e[0] <= last]
    if edges_w:
        note("%s %s: %d comparison(s) within 1e-12 of the dead-band edge, first %s" % (
            os.path.basename(ctx.path), combo_str(combo), len(edges_w), edges_w[0]))
    for be in ctx.backends:
        # positions
        pcmd = [ctx.wfo, "positions", "--csv", ctx.path] + grid_flags(family, axes) + [
            "--fill", fill, "--backend", be, "--id", str(cid)]
        out = run_wfo(pcmd)
        rows = list(csv.reader(out.splitlines()))
        if rows[0][:4] != ["bar", "timestamp", "ts_ns", "position"]:
            fail("wfo positions header", combo_str(combo), "header", "bar,timestamp,ts_ns,position", rows[0], pcmd)
        theirs = [int(r[3]) for r in rows[1:]]
        if len(theirs) != ctx.N:
            fail("positions", combo_str(combo), "number of bars", ctx.N, len(theirs), pcmd)
        for t in range(ctx.N):
            if theirs[t] != p[t]:
                edges = [e for e in cmp.edges if abs(e[0] - t) <= 0]
                extra = "  bar %d (%s), close %r\n" % (t, ctx.bars["ts"][t], ctx.bars["close"][t])
                if edges:
                    extra += "  (SPEC §9 exception: a comparison within 1e-12 of the dead-band edge at this bar: %s)\n" % edges
                fail("positions (SPEC §5)", combo_str(combo), "p_%d" % t, p[t], theirs[t], pcmd, extra)
        # sweep
        scmd = [ctx.wfo, "sweep", "--csv", ctx.path] + grid_flags(family, axes) + run_opts(opts) + [
            "--bars-per-year", str(ctx.A), "--backend", be, "--no-selection", "--json"]
        d = json.loads(run_wfo(scmd))
        win = d["window"]
        for k, v in (("bars", W), ("first", first), ("last", last)):
            if win[k] != v:
                fail("window (SPEC §3)", combo_str(combo), "window." + k, v, win[k], scmd)
        if d["evaluated"] != 1 or d["skipped"] != 0:
            fail("sweep counts", combo_str(combo), "evaluated/skipped", (1, 0), (d["evaluated"], d["skipped"]), scmd)
        exp_ranked = 1 if mine["trades"] >= int(opts.get("min_trades", 1)) and mine["max_drawdown"] <= float(opts.get("max_drawdown", 1.0)) else 0
        if d["ranked"] != exp_ranked:
            fail("ranking (SPEC §7)", combo_str(combo), "ranked", exp_ranked, d["ranked"], scmd)
        if exp_ranked:
            top = d["top"][0]
            if top["id"] != cid:
                fail("sweep", combo_str(combo), "id", cid, top["id"], scmd)
            compare_metrics("metrics (SPEC §6), window [%d, %d]" % (first, last), combo_str(combo),
                            mine, top["metrics"], scmd)
            if ref is None:
                ref = dict(top["metrics"])
            else:
                compare_metrics("SPEC §9 backend %s vs %s" % (be, ctx.backends[0]), combo_str(combo),
                                ref, top["metrics"], scmd, labels=(ctx.backends[0], be))
    return mine


def check_ranking(ctx, family, axes, opts):
    combos = expand_grid(family, axes)
    fill = opts.get("fill", "close")
    cost = cost_of(opts)
    warmup = default_warmup(family, axes, opts)
    W = int(opts["window"]) if "window" in opts else ctx.N - 1 - warmup
    first, last = ctx.N - W, ctx.N - 1
    results = {}
    edges = []
    for cid, combo in combos:
        if not combo_valid(combo):
            continue
        p, cmp = ctx.pos(combo)
        edges += [(cid, e) for e in cmp.edges if e[0] <= last]
        results[cid] = metrics(window_records(ctx.bars, p, first, last, fill, cost), ctx.A)
    ref_top = {}
    obj = opts.get("objective", "sharpe")
    top_ids, ranked = rank(results, obj, int(opts.get("min_trades", 1)), float(opts.get("max_drawdown", 1.0)),
                           float(opts["min_exposure"]) if "min_exposure" in opts else None, int(opts.get("top", 10)))
    for be in ctx.backends:
        scmd = [ctx.wfo, "sweep", "--csv", ctx.path] + grid_flags(family, axes) + run_opts(opts) + [
            "--bars-per-year", str(ctx.A), "--backend", be, "--no-selection", "--json"]
        d = json.loads(run_wfo(scmd))
        gridname = "%s grid %s" % (family, json.dumps(axes))
        if (d["evaluated"], d["skipped"]) != (len(results), len(combos) - len(results)):
            fail("grid counts (SPEC §5)", gridname, "evaluated/skipped", (len(results), len(combos) - len(results)),
                 (d["evaluated"], d["skipped"]), scmd)
        if d["ranked"] != len(ranked):
            fail("ranking (SPEC §7)", gridname, "ranked", len(ranked), d["ranked"], scmd)
        theirs = [e["id"] for e in d["top"]]
        if theirs != top_ids:
            # a near-tie (objectives within the §9 tolerance but not equal) may order either way
            i = next(i for i in range(min(len(theirs), len(top_ids)) + 1)
                     if i >= len(theirs) or i >= len(top_ids) or theirs[i] != top_ids[i])
            extra = ""
            if i < len(theirs) and i < len(top_ids) and theirs[i] in results:
                a, b = results[top_ids[i]][obj], results[theirs[i]][obj]
                extra = "  at rank %d: oracle id %d %s=%r, wfo id %d (oracle %s=%r)\n" % (
                    i, top_ids[i], obj, a, theirs[i], obj, b)
                if close(a, b) and a != b:
                    extra += "  (near-tie within SPEC §9 tolerance)\n"
            fail("top-K ids (SPEC §7), objective " + obj, gridname, "top ids", top_ids, theirs, scmd, extra)
        for e in d["top"]:
            cs = "id %d %s" % (e["id"], combo_str(dict(combos)[e["id"]]))
            compare_metrics("top-K metrics (SPEC §6)", cs, results[e["id"]], e["metrics"], scmd)
            if be == ctx.backends[0]:
                ref_top[e["id"]] = dict(e["metrics"])
            else:
                compare_metrics("SPEC §9 backend %s vs %s" % (be, ctx.backends[0]), cs, ref_top[e["id"]],
                                e["metrics"], scmd, labels=(ctx.backends[0], be))
            prm = e["params"]
            for k, v in dict(combos)[e["id"]].items():
                if k == "family":
                    continue
                pv = prm.get(k)
                if k == "vol_threshold":
                    ok = pv is not None and float(pv) == float(v)
                else:
                    ok = pv == v
                if not ok:
                    fail("combo id -> params (SPEC §5 mixed radix)", "id %d" % e["id"], k, v, pv, scmd)
    if edges:
        note("%s: %d dead-band edge comparison(s) in ranking grid (SPEC §9)" % (os.path.basename(ctx.path), len(edges)))
    return top_ids


def check_walk(ctx, family, axes, opts, IS, k, mode):
    combos = expand_grid(family, axes)
    fill = opts.get("fill", "close")
    cost = cost_of(opts)
    warmup = default_warmup(family, axes, opts)
    obj = opts.get("objective", "sharpe")
    mt = int(opts.get("min_trades", 1))
    mdd = float(opts.get("max_drawdown", 1.0))
    mexp = float(opts["min_exposure"]) if "min_exposure" in opts else None
    valid = [(cid, c) for cid, c in combos if combo_valid(c)]
    pos = {cid: ctx.pos(c)[0] for cid, c in valid}
    folds = []
    f = 0
    while True:
        is_last = warmup + IS + f * k
        oos_last = is_last + k
        if oos_last > ctx.N - 1:
            break
        is_first = warmup + 1 + (f * k if mode == "rolling" else 0)
        res = {cid: metrics(window_records(ctx.bars, pos[cid], is_first, is_last, fill, cost), ctx.A)
               for cid, _ in valid}
        top, _ = rank(res, obj, mt, mdd, mexp, 1)
        win = top[0] if top else None
        folds.append({"is": (is_first, is_last), "oos": (is_last + 1, oos_last), "id": win,
                      "is_m": res[win] if win is not None else None})
        f += 1
    # OOS series (SPEC §8 boundary rule)
    all_recs = []
    prev_pos = None
    for fd in folds:
        o1, o2 = fd["oos"]
        wp = pos[fd["id"]] if fd["id"] is not None else [0] * ctx.N
        p2o = 0 if prev_pos is None else prev_pos[o1 - 2]
        recs = window_records(ctx.bars, wp, o1, o2, fill, cost, p2_override=p2o)
        fd["oos_m"] = metrics(recs, ctx.A)
        all_recs += recs
        prev_pos = wp
    oos_m = metrics(all_recs, ctx.A) if all_recs else None
    ratios = [fd["oos_m"]["cagr"] / fd["is_m"]["cagr"] for fd in folds
              if fd["is_m"] is not None and fd["is_m"]["cagr"] > 0]
    wfe = sum(ratios) / len(ratios) if ratios else 0.0
    ref_walk = {}
    for be in ctx.backends:
        wcmd = [ctx.wfo, "walk", "--csv", ctx.path] + grid_flags(family, axes) + run_opts(opts) + [
            "--is", str(IS), "--oos", str(k), "--mode", mode,
            "--bars-per-year", str(ctx.A), "--backend", be, "--no-selection", "--json"]
        d = json.loads(run_wfo(wcmd))
        gridname = "%s walk %s %s" % (family, mode, json.dumps(axes))
        if len(d["folds"]) != len(folds):
            fail("walk folds (SPEC §8)", gridname, "number of folds", len(folds), len(d["folds"]), wcmd)
        for i, (fd, tf) in enumerate(zip(folds, d["folds"])):
            for part, key in (("is", "is"), ("oos", "oos")):
                if (tf[part]["first"], tf[part]["last"]) != fd[key]:
                    fail("walk fold %d boundaries (SPEC §8)" % i, gridname, part + " first/last", fd[key],
                         (tf[part]["first"], tf[part]["last"]), wcmd)
            if tf["id"] != fd["id"]:
                fail("walk fold %d winner (SPEC §7/§8)" % i, gridname, "id", fd["id"], tf["id"], wcmd)
            if fd["id"] is not None:
                compare_metrics("walk fold %d IS metrics" % i, "id %d" % fd["id"], fd["is_m"], tf["is"]["metrics"], wcmd)
            compare_metrics("walk fold %d OOS metrics (SPEC §8 boundary rule)" % i, "id %s" % fd["id"],
                            fd["oos_m"], tf["oos"]["metrics"], wcmd)
            for part in ("is", "oos"):
                if tf[part].get("metrics") is None:
                    continue
                key = (i, part)
                if be == ctx.backends[0]:
                    ref_walk[key] = dict(tf[part]["metrics"])
                else:
                    compare_metrics("SPEC §9 backend %s vs %s, walk fold %d %s" % (be, ctx.backends[0], i, part),
                                    "id %s" % fd["id"], ref_walk[key], tf[part]["metrics"], wcmd,
                                    labels=(ctx.backends[0], be))
        if oos_m is not None:
            compare_metrics("walk concatenated OOS metrics (SPEC §8)", gridname, oos_m, d["oos"], wcmd)
            if be == ctx.backends[0]:
                ref_walk["oos"] = dict(d["oos"])
            else:
                compare_metrics("SPEC §9 backend %s vs %s, walk concatenated OOS" % (be, ctx.backends[0]),
                                gridname, ref_walk["oos"], d["oos"], wcmd, labels=(ctx.backends[0], be))
        if not close(wfe, d["wfe"]):
            fail("walk WFE (SPEC §8)", gridname, "wfe", wfe, d["wfe"], wcmd)
        # wfe_aggregate: spec-notes 30 (an addition, not SPEC §8)
        pooled_g, pooled_n = 1.0, 0
        for fd in folds:
            n_is = fd["is"][1] - fd["is"][0] + 1
            pooled_n += n_is
            if fd["is_m"] is not None:
                pooled_g *= 1.0 + fd["is_m"]["total_return"]
        pooled = pooled_g ** (ctx.A / pooled_n) - 1.0 if pooled_n and pooled_g > 0 else -1.0
        agg = oos_m["cagr"] / pooled if oos_m is not None and pooled > 0 else None
        ta = d.get("wfe_aggregate")
        if not ((agg is None and ta is None) or (agg is not None and ta is not None and close(agg, ta))):
            fail("walk wfe_aggregate (spec-notes 30)", gridname, "wfe_aggregate", agg, ta, wcmd)
    return folds


# --------------------------------------------------------------------------- case matrix

def bars_per_year(bars):
    ts = bars["ts"]
    if len(ts[0]) <= 10:
        # daily or monthly
        return 12 if len(ts) < 400 and ts[0][5:7] != ts[1][5:7] and ts[1][5:7] != ts[2][5:7] else 252
    m0 = int(ts[1][14:16]) - int(ts[0][14:16])
    h0 = int(ts[1][11:13]) - int(ts[0][11:13])
    if m0 == 0 and h0 != 0:
        return 6048           # hourly: 252 * 24
    return 362880             # minute: 252 * 24 * 60


SINGLE = [
    ("ma_cross", {"fast": [10], "slow": [30], "ma": ["sma"]}, {}),
    ("ma_cross", {"fast": [12], "slow": [26], "ma": ["ema"]}, {"fill": "next_open", "cost_bps": 2, "slippage_bps": 1}),
    ("ma_cross", {"fast": [5], "slow": [20], "ma": ["wma"], "side": ["long_only"], "entry": ["cross"]},
     {"cost_bps": 1}),
    ("ma_cross", {"fast": [9], "slow": [25], "ma": ["hma"], "entry": ["cross"]},
     {"fill": "next_open", "cost_bps": 0.5, "slippage_bps": 0.5}),
    ("ma_cross", {"fast": [16], "slow": [49], "ma": ["hma"], "side": ["long_only"]}, {"window": 300}),
    ("ma_cross", {"fast": [2], "slow": [3], "ma": ["hma"]}, {"fill": "next_open"}),
    ("ma_cross", {"fast": [1], "slow": [4], "ma": ["sma"], "entry": ["cross"]}, {"cost_bps": 3}),
    ("ma_cross", {"fast": [3], "slow": [7], "ma": ["ema"], "side": ["long_only"], "entry": ["cross"]},
     {"fill": "next_open", "warmup": 40, "window": 500}),
    ("channel_breakout", {"n": [20]}, {"fill": "next_open", "cost_bps": 1}),
    ("channel_breakout", {"n": [15], "source": ["high_low"], "side": ["long_only"]}, {"cost_bps": 2}),
    ("channel_breakout", {"n": [5], "source": ["high_low"]}, {"fill": "next_open", "slippage_bps": 1}),
    ("ma_cross", {"fast": [5], "slow": [40], "ma": ["sma"], "vol_short": [10], "vol_long": [50],
                  "vol_threshold": ["0.9"]}, {"cost_bps": 1}),
    ("ma_cross", {"fast": [4], "slow": [12], "ma": ["wma"], "entry": ["cross"], "vol_short": [5], "vol_long": [30],
                  "vol_threshold": ["0.8"]}, {"fill": "next_open", "cost_bps": 1}),
    ("channel_breakout", {"n": [30], "source": ["high_low"], "vol_short": [5], "vol_long": [30],
                          "vol_threshold": ["1.1"]}, {"fill": "next_open", "cost_bps": 0.5}),
    ("channel_breakout", {"n": [10], "side": ["long_only"], "vol_short": [3], "vol_long": [20],
                          "vol_threshold": ["0.5"]}, {}),
    # short vol lookbacks: on minute data with flat stretches STD(vol_long) counts as 0 (closed)
    # and STD(vol_short) counts as 0 (v = 0)
    ("ma_cross", {"fast": [2], "slow": [6], "ma": ["sma"], "entry": ["cross"], "vol_short": [2],
                  "vol_long": [4], "vol_threshold": ["0.5"]}, {"cost_bps": 1}),
    ("channel_breakout", {"n": [1], "source": ["high_low"]}, {"fill": "next_open"}),
    ("channel_breakout", {"n": [3]}, {"window": 60}),
]

RANKING = [
    ("ma_cross", {"fast": [3, 5, 10, 20], "slow": [10, 30, 60], "ma": ["sma", "ema", "wma", "hma"]},
     {"cost_bps": 1, "top": 10}),
    ("channel_breakout", {"n": [5, 10, 15, 20, 25, 30, 35, 40, 45, 50], "source": ["close", "high_low"],
                          "side": ["long_short", "long_only"]},
     {"objective": "calmar", "min_trades": 3, "max_drawdown": 0.6, "top": 8, "fill": "next_open"}),
    ("ma_cross", {"fast": [5, 10], "slow": [20, 40], "ma": ["sma", "ema"], "entry": ["state", "cross"],
                  "side": ["long_only"], "vol_short": [5, 10], "vol_long": [30], "vol_threshold": ["0.8", "1.0"]},
     {"objective": "profit_factor", "min_exposure": 0.2, "top": 5, "cost_bps": 2}),
    ("ma_cross", {"fast": [2, 4, 8], "slow": [16, 32], "ma": ["ema", "hma"], "side": ["long_short", "long_only"]},
     {"objective": "sortino", "min_trades": 5, "top": 6, "fill": "next_open", "slippage_bps": 1}),
    ("channel_breakout", {"n": [8, 16, 24, 32], "source": ["close", "high_low"]},
     {"objective": "total_return", "top": 8}),
    ("ma_cross", {"fast": [5, 10, 15], "slow": [30, 45], "ma": ["wma", "sma"], "entry": ["cross"]},
     {"objective": "cagr", "top": 4, "max_drawdown": 0.4, "window": 400}),
]

WALK = [
    ("ma_cross", {"fast": [5, 10, 20], "slow": [30, 60], "ma": ["sma", "ema"]},
     {"cost_bps": 1, "fill": "next_open"}, 500, 200, "rolling"),
    ("ma_cross", {"fast": [5, 10, 20], "slow": [30, 60], "ma": ["sma", "ema"]},
     {"cost_bps": 1, "fill": "next_open"}, 500, 200, "anchored"),
    ("channel_breakout", {"n": [10, 20, 40], "source": ["close", "high_low"]},
     {"cost_bps": 2, "objective": "calmar"}, 400, 150, "rolling"),
    # a tight drawdown cap leaves some folds without a winner (flat, spec-notes 8)
    ("ma_cross", {"fast": [3, 8], "slow": [21, 34], "ma": ["hma", "wma"], "side": ["long_only", "long_short"]},
     {"max_drawdown": 0.12, "cost_bps": 1}, 300, 100, "anchored"),
    ("ma_cross", {"fast": [5, 10], "slow": [30], "entry": ["cross"], "vol_short": [10], "vol_long": [40],
                  "vol_threshold": ["0.7", "1.0"]}, {"min_trades": 2, "slippage_bps": 2}, 400, 120, "rolling"),
]


def main(argv):
    args = [a for a in argv[1:]]
    backends = ["cpu_ref", "cpu"]
    max_bars = 4000
    do_walk = True
    keep_going = False
    pos_args = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--backends":
            backends = args[i + 1].split(",")
            i += 2
        elif a == "--max-bars":
            max_bars = int(args[i + 1])
            i += 2
        elif a == "--no-walk":
            do_walk = False
            i += 1
        elif a == "--keep-going":
            keep_going = True
            i += 1
        elif a.startswith("--"):
            print(__doc__)
            return 2
        else:
            pos_args.append(a)
            i += 1
    if len(pos_args) < 2:
        print(__doc__)
        return 2
    wfo, files = pos_args[0], pos_args[1:]
    t_start = time.time()
    # truncated copies live at a fixed place so that the printed commands stay runnable
    tmpdir = os.path.join(tempfile.gettempdir(), "metrics_oracle")
    os.makedirs(tmpdir, exist_ok=True)
    counts = {"single": 0, "ranking": 0, "walk": 0, "files": 0}
    failures = []

    def attempt(fn, *a):
        try:
            return True, fn(*a)
        except Disagreement as e:
            print(str(e))
            failures.append(str(e))
            if not keep_going:
                raise
            return False, None

    try:
        for path in files:
            with open(path) as fh:
                lines = fh.readlines()
            use = path
            if len(lines) - 1 > max_bars:
                # keep runs small: the first max_bars bars (the anchor stays the file's first bar)
                use = os.path.join(tmpdir, "%s.first%d.csv" % (os.path.basename(path)[:-4], max_bars))
                # written aside, then renamed: runs at once (ctest -j) never read half a file
                part = "%s.%d.part" % (use, os.getpid())
                with open(part, "w") as out:
                    out.writelines(lines[:max_bars + 1])
                os.replace(part, use)
                print("== %s  (= head -n %d %s)" % (use, max_bars + 1, path))
            else:
                print("== %s" % use)
            bars = load_csv(use)
            A = bars_per_year(bars)
            ctx = FileCtx(wfo, use, bars, A, backends)
            counts["files"] += 1
            print("   %d bars, bars_per_year %d" % (ctx.N, A))
            for family, axes, opts in SINGLE:
                warm = default_warmup(family, axes, opts)
                need = warm + 1 + int(opts.get("window", 50))
                if ctx.N < need:
                    continue
                ok, m = attempt(check_single, ctx, family, axes, opts)
                counts["single"] += 1
                if ok:
                    print("  ok single %-16s %-90s trades=%d sharpe=%.4f" % (
                        family, json.dumps(axes) + " " + json.dumps(opts), m["trades"], m["sharpe"]))
            for family, axes, opts in RANKING:
                warm = default_warmup(family, axes, opts)
                if ctx.N < warm + 1 + int(opts.get("window", 100)):
                    continue
                ok, top = attempt(check_ranking, ctx, family, axes, opts)
                counts["ranking"] += 1
                if ok:
                    print("  ok ranking %-16s objective=%-13s top=%s" % (
                        family, opts.get("objective", "sharpe"), top))
            if do_walk:
                for family, axes, opts, IS, k, mode in WALK:
                    warm = default_warmup(family, axes, opts)
                    if ctx.N < warm + IS + 2 * k + 1:
                        continue
                    ok, folds = attempt(check_walk, ctx, family, axes, opts, IS, k, mode)
                    counts["walk"] += 1
                    if ok:
                        print("  ok walk %-16s %-8s IS=%d OOS=%d folds=%d winners=%s" % (
                            family, mode, IS, k, len(folds), [fd["id"] for fd in folds]))
    except Disagreement:
        return 1
    summary = "%d files, %d single-combo cases, %d ranking grids, %d walk-forwards, backends %s, %.1f s" % (
        counts["files"], counts["single"], counts["ranking"], counts["walk"], ",".join(backends),
        time.time() - t_start)
    if NOTES:
        print("%d note(s) above (dead-band edges, SPEC §9; trades within rounding of 0)" % len(NOTES))
    if failures:
        print("%d DISAGREEMENT(S): %s" % (len(failures), summary))
        return 1
    print("ALL AGREE: " + summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
