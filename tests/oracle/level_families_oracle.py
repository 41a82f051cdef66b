#!/usr/bin/env python3
"""An independent oracle for SPEC v1.1's level families (bollinger, rsi_reversion).

Written from SPEC §4-5 alone, sharing nothing with wfod's C++: closes are read as the IEEE
doubles the CSV text denotes, sums and variances are exact (integers on a common binary
scale), standard deviations and the RSI recursion are carried at 60 significant digits and
rounded once. Positions follow §5 rule by rule. The script compares p_t of every bar with
`wfo positions --backend B` for several combos and exits 1 on the first difference.

usage: level_families_oracle.py WFO CSV BACKEND [BACKEND...]
"""
import csv
import decimal
import subprocess
import sys
from fractions import Fraction

DELTA = 1e-10
decimal.getcontext().prec = 60


def closes_of(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [float(r["close"]) for r in rows]


def scaled(closes):
    """Each close as an integer times 2^-E (exact: doubles are dyadic rationals)."""
    fr = [Fraction(c) for c in closes]
    e = max(f.denominator.bit_length() - 1 for f in fr)
    return [int(f * (1 << e)) for f in fr], e


def to_double(num, den):
    return float(Fraction(num, den))  # correctly rounded


def sqrt_double(frac):
    d = decimal.Decimal(frac.numerator) / decimal.Decimal(frac.denominator)
    return float(d.sqrt())


def sma_std(ints, e, n):
    """SMA(n) and population STD(n) per bar, each exactly rounded; None while undefined."""
    sma, std = [None] * len(ints), [None] * len(ints)
    s = q = 0
    for t, x in enumerate(ints):
        s += x
        q += x * x
        if t >= n:
            s -= ints[t - n]
            q -= ints[t - n] ** 2
        if t >= n - 1:
            sma[t] = to_double(s, n << e)
            var = Fraction(n * q - s * s, (n * n) << (2 * e))
            std[t] = sqrt_double(var)
    return sma, std


def rsi(ints, n):
    """Wilder's RSI(n), §4: seeded with the means of the first n gains/losses at bar n."""
    out = [None] * len(ints)
    if len(ints) <= n:
        return out
    D = decimal.Decimal
    gains = sum(max(ints[i] - ints[i - 1], 0) for i in range(1, n + 1))
    losses = sum(max(ints[i - 1] - ints[i], 0) for i in range(1, n + 1))
    g, l = D(gains) / n, D(losses) / n  # the common scale cancels in the ratio

    def value(g, l):
        return 50.0 if g + l == 0 else float(100 * g / (g + l))

    out[n] = value(g, l)
    for t in range(n + 1, len(ints)):
        d = ints[t] - ints[t - 1]
        g = g + (D(max(d, 0)) - g) / n
        l = l + (D(max(-d, 0)) - l) / n
        out[t] = value(g, l)
    return out


def above(x, y):  # x ≻ y, §4
    return x - y > DELTA * max(abs(x), abs(y))


def level_positions(x, upper, lower, middle, reversion, short):
    p, prev = [], 0
    for t in range(len(x)):
        if x[t] is None or upper[t] is None:
            cur = 0
        else:
            xu, xl, xm = x[t], upper[t], lower[t]
            m = middle[t]
            if reversion:
                if above(xu, upper[t]):
                    cur = short
                elif above(lower[t], xu):
                    cur = 1
                elif prev == 1 and above(m, xu):
                    cur = 1
                elif prev == -1 and above(xu, m):
                    cur = -1
                else:
                    cur = 0
            else:
                if above(xu, upper[t]):
                    cur = 1
                elif above(lower[t], xu):
                    cur = short
                elif prev == 1 and above(xu, m):
                    cur = 1
                elif prev == -1 and above(m, xu):
                    cur = -1
                else:
                    cur = 0
        p.append(cur)
        prev = cur
    return p


def bollinger(closes, ints, e, n, k, style, side):
    sma, std = sma_std(ints, e, n)
    up, lo = [None] * len(closes), [None] * len(closes)
    for t in range(len(closes)):
        if sma[t] is None:
            continue
        off = 0.0 if std[t] <= DELTA * sma[t] else k * std[t]  # k·STD rounded once
        up[t], lo[t] = sma[t] + off, sma[t] - off
    x = [c if s is not None else None for c, s in zip(closes, sma)]
    short = -1 if side == "long_short" else 0
    return level_positions(x, up, lo, sma, style == "reversion", short)


def rsi_reversion(ints, n, lo, hi, side):
    r = rsi(ints, n)
    const = lambda v: [v if x is not None else None for x in r]
    short = -1 if side == "long_short" else 0
    return level_positions(r, const(hi), const(lo), const(50.0), True, short)


def wfo_positions(wfo, path, backend, flags):
    cmd = [wfo, "positions", "--csv", path, "--backend", backend, "--id", "0"] + flags
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {res.returncode}: {res.stderr.strip()}")
    lines = res.stdout.strip().splitlines()[1:]
    return [int(line.rsplit(",", 1)[1]) for line in lines]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    wfo, path, backends = sys.argv[1], sys.argv[2], sys.argv[3:]
    closes = closes_of(path)
    ints, e = scaled(closes)
    cases = []
    for n, k, style, side in [(20, 2.0, "reversion", "long_short"), (10, 1.5, "breakout", "long_short"),
                              (35, 2.5, "reversion", "long_only"), (2, 0.5, "breakout", "long_only")]:
        cases.append((f"bollinger n={n} k={k} {style} {side}",
                      ["--family", "bollinger", "--n", str(n), "--k", str(k), "--style", style,
                       "--side", side],
                      bollinger(closes, ints, e, n, k, style, side)))
    for n, lo, hi, side in [(14, 30.0, 70.0, "long_short"), (2, 10.0, 90.0, "long_short"),
                            (21, 45.5, 55.5, "long_only")]:
        cases.append((f"rsi_reversion n={n} lo={lo} hi={hi} {side}",
                      ["--family", "rsi_reversion", "--n", str(n), "--lo", str(lo), "--hi", str(hi),
                       "--side", side],
                      rsi_reversion(ints, n, lo, hi, side)))
    failed = False
    for backend in backends:
        for name, flags, want in cases:
            got = wfo_positions(wfo, path, backend, flags)
            changes = sum(1 for a, b in zip(want, want[1:]) if a != b)
            if got != want:
                t = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b) if len(got) == len(want) else -1
                print(f"FAIL {backend} {name}: first difference at bar {t}: wfo {got[t] if t >= 0 else len(got)}"
                      f" oracle {want[t] if t >= 0 else len(want)}")
                failed = True
            else:
                print(f"ok   {backend} {name}: {len(want)} bars, {changes} position changes equal")
            if changes == 0:
                print(f"FAIL {name}: the case never trades; it would prove nothing")
                failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
