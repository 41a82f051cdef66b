#!/usr/bin/env python3
"""A seeded synthetic universe of daily bars for `wfo walk --universe` (issue 47's benchmark).

usage: universe_gen.py OUT_DIR SYMBOLS BARS SEED [REAL_CSV...]

Writes OUT_DIR/S000.csv ... (one file per symbol) and OUT_DIR/universe.csv listing them, then
the REAL_CSV files (absolute paths, symbol = file stem) after them. Each synthetic symbol:
- trades on weekdays only, from its own start date (a later listing: calendars differ);
- has holidays (about 9 weekdays a year closed) and, for one symbol in eight, a halt of 5-30
  weekdays (a hole in its calendar), so lengths differ by symbol around BARS;
- follows a regime-switching walk: bull, bear and sideways states with their own drift and
  volatility, switching with a small daily probability; overnight gaps between close and
  next open; the high and low around them.
Standard library only, one seeded generator per symbol: the same files on every machine for a
given SYMBOLS, BARS and SEED (Python's `random` is fixed across versions for a seed).
"""
import datetime
import math
import os
import random
import sys

# (daily drift, daily volatility) per regime; the switch probability per day.
REGIMES = {"bull": (0.0008, 0.011), "bear": (-0.0009, 0.022), "sideways": (0.0, 0.008)}
SWITCH_PROBABILITY = 0.01
HOLIDAYS_PER_YEAR = 9
FIRST_DAY = datetime.date(2005, 1, 3)


def write_symbol(path: str, bars: int, seed: int) -> int:
    rng = random.Random(seed)
    day = FIRST_DAY + datetime.timedelta(days=rng.randrange(0, 400))
    halt_at = rng.randrange(bars // 4, bars) if rng.random() < 0.125 else -1
    halt_days = rng.randrange(5, 31)
    regime = rng.choice(sorted(REGIMES))
    price = rng.uniform(10.0, 300.0)
    written = 0
    with open(path, "w", encoding="ascii") as f:
        f.write("timestamp,open,high,low,close,volume\n")
        while written < bars:
            day += datetime.timedelta(days=1)
            if day.weekday() >= 5 or rng.random() < HOLIDAYS_PER_YEAR / 261:
                continue
            if written == halt_at and halt_days > 0:
                halt_days -= 1
                continue
            if rng.random() < SWITCH_PROBABILITY:
                regime = rng.choice([r for r in sorted(REGIMES) if r != regime])
            drift, vol = REGIMES[regime]
            o = price * math.exp(0.3 * vol * rng.gauss(0, 1))
            c = o * math.exp(drift + vol * rng.gauss(0, 1))
            h = max(o, c) * (1 + 0.4 * vol * abs(rng.gauss(0, 1)))
            lo = min(o, c) * (1 - 0.4 * vol * abs(rng.gauss(0, 1)))
            volume = int(1e6 * math.exp(0.5 * rng.gauss(0, 1)))
            f.write(f"{day.isoformat()},{o:.4f},{h:.4f},{lo:.4f},{c:.4f},{volume}\n")
            price = c
            written += 1
    return written


def main() -> None:
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    out, symbols, bars, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(out, exist_ok=True)
    rows = []
    for k in range(symbols):
        name = f"S{k:03d}"
        # Lengths differ by symbol: BARS less up to 5 %.
        length = bars - random.Random(seed * 7919 + k).randrange(0, max(1, bars // 20))
        write_symbol(os.path.join(out, name + ".csv"), length, seed * 1_000_003 + k)
        rows.append(f"{name},{name}.csv,252")
    for real in sys.argv[5:]:
        stem = os.path.splitext(os.path.basename(real))[0]
        rows.append(f"{stem},{os.path.abspath(real)},252")
    with open(os.path.join(out, "universe.csv"), "w", encoding="ascii") as f:
        f.write("symbol,path,bars_per_year\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
