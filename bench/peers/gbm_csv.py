#!/usr/bin/env python3
"""A seeded geometric random walk as a wfo CSV (daily bars), for the peer comparisons.

usage: gbm_csv.py BARS SEED OUT.csv
Standard library only: the same file on every machine for a given BARS and SEED.
"""
import datetime
import math
import random
import sys


def main() -> None:
    bars, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    start = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
    prev = 100.0
    with open(out, "w", encoding="ascii") as f:
        f.write("timestamp,open,high,low,close,volume\n")
        for t in range(bars):
            o = prev * math.exp(0.002 * rng.gauss(0, 1))
            c = o * math.exp(0.0002 + 0.01 * rng.gauss(0, 1))
            h = max(o, c) * (1 + 0.004 * abs(rng.gauss(0, 1)))
            lo = min(o, c) * (1 - 0.004 * abs(rng.gauss(0, 1)))
            ts = (start + datetime.timedelta(days=t)).strftime("%Y-%m-%dT%H:%M:%SZ")
            f.write(f"{ts},{o!r},{h!r},{lo!r},{c!r},1000\n")
            prev = c


if __name__ == "__main__":
    main()
