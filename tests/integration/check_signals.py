#!/usr/bin/env python3
"""Checks one stream's publications and signals (PROTOCOL §2, §2a) against `wfo positions`.

Reads the JSON payloads a subscriber printed in arrival order (wfo-sub --json, every topic),
keeps those of SYMBOL.STRATEGY, and checks, exactly:
- every bar from the first publication's last bar up to the last bar fed has one signal, in
  bar order, none for earlier bars;
- a signal of bar t follows the newest publication whose window ends at or before t: its
  params_seq and id are that publication's, and that publication arrived before it (so a
  publication at bar t goes before bar t's signal, and no bar keeps the previous combo);
- its position is p_t of that combo per `wfo positions` (cpu_ref: the plain SPEC path);
- every publication's position is p_T of its combo at its window's last bar T, with T's ts.
Standard library only. Exit 0 pass, 1 fail.

With FROM (a restart: the daemon signals the bars accepted after its start, from bar FROM)
the signals start at bar max(FROM, the first publication's last bar).

usage: check_signals.py MESSAGES CSV BARS SYMBOL STRATEGY WFO CONFIG [FROM]
"""

import json
import subprocess
import sys


def fail(msg: str) -> None:
    print(f"FAIL: {msg}")
    sys.exit(1)


def positions_of(wfo: str, config: str, strategy: str, csv: str, combo: int) -> dict[int, int]:
    """ts_ns -> p_t of combo `combo` over the CSV, from `wfo positions`."""
    out = subprocess.run(
        [wfo, "positions", "--config", config, "--strategy", strategy, "--csv", csv,
         "--id", str(combo), "--backend", "cpu_ref"],
        check=False, capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"wfo positions --id {combo}: exit {out.returncode}: {out.stderr.strip()}")
    lines = out.stdout.splitlines()
    if lines[0] != "bar,timestamp,ts_ns,position":
        fail(f"wfo positions header: {lines[0]!r}")
    result = {}
    for line in lines[1:]:
        _, _, ts, p = line.split(",")
        result[int(ts)] = int(p)
    return result


def main() -> None:
    if len(sys.argv) not in (8, 9):
        fail(__doc__.strip().splitlines()[-1])
    messages, csv, bars, symbol, strategy, wfo, config = sys.argv[1:8]
    bars = int(bars)
    start = int(sys.argv[8]) if len(sys.argv) == 9 else 0

    pubs, signals, order = [], [], []  # order: ("p", seq) / ("s", index) in arrival order
    with open(messages, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            m = json.loads(line)
            if m.get("symbol") != symbol or m.get("strategy") != strategy:
                continue
            if "params_seq" in m:
                order.append(("s", len(signals)))
                signals.append(m)
            elif "window" in m:
                order.append(("p", m["seq"]))
                pubs.append(m)
    if len(pubs) < 3:
        fail(f"{symbol}.{strategy}: {len(pubs)} publications received, expected several")
    seqs = [p["seq"] for p in pubs]
    if seqs != sorted(set(seqs)):
        fail(f"{symbol}.{strategy}: publications not in seq order or repeated: {seqs}")

    # The bars fed: ts of rows 0 .. bars-1 (wfo positions prints them all).
    first_pos = positions_of(wfo, config, strategy, csv, pubs[0]["id"])
    all_ts = sorted(first_pos)
    if len(all_ts) != bars:
        fail(f"the CSV prefix has {len(all_ts)} bars, expected {bars}")
    index = {ts: i for i, ts in enumerate(all_ts)}
    cache = {pubs[0]["id"]: first_pos}

    def p_of(combo: int, ts: int) -> int:
        if combo not in cache:
            cache[combo] = positions_of(wfo, config, strategy, csv, combo)
        return cache[combo][ts]

    # Publications: position = p_T of their combo at the window's last bar.
    for p in pubs:
        t = p["window"]["last_ts"]
        want = {"value": p_of(p["id"], t), "ts": t}
        if p.get("position") != want:
            fail(f"publication seq {p['seq']} (bar {index[t]}, id {p['id']}): position "
                 f"{p.get('position')} != {want}")

    # Signals: exactly the bars from the first publication's last bar on, in order.
    first_bar = max(start, index[pubs[0]["window"]["last_ts"]])
    got_bars = [index.get(s["ts"], -1) for s in signals]
    want_bars = list(range(first_bar, bars))
    if got_bars != want_bars:
        missing = sorted(set(want_bars) - set(got_bars))[:5]
        extra = [b for b in got_bars if b not in set(want_bars)][:5]
        fail(f"{symbol}.{strategy}: signals of bars {got_bars[:3]}..{got_bars[-3:]} "
             f"({len(got_bars)}), expected {first_bar}..{bars - 1} ({len(want_bars)}); "
             f"missing {missing}, unexpected {extra}")

    seen_pubs = set()
    changes = switches = 0
    pi = 0  # index of the newest publication whose window ends at or before the signal
    prev = None
    for kind, v in order:
        if kind == "p":
            seen_pubs.add(v)
            continue
        s = signals[v]
        t = s["ts"]
        while pi + 1 < len(pubs) and pubs[pi + 1]["window"]["last_ts"] <= t:
            pi += 1
        p = pubs[pi]
        where = f"{symbol}.{strategy} bar {index[t]} (ts {t})"
        if s["params_seq"] != p["seq"] or s["id"] != p["id"]:
            fail(f"{where}: signal follows publication seq {s['params_seq']} id {s['id']}, "
                 f"expected seq {p['seq']} id {p['id']} (window to bar "
                 f"{index[p['window']['last_ts']]})")
        if p["seq"] not in seen_pubs:
            fail(f"{where}: signal arrived before publication seq {p['seq']}")
        want = p_of(p["id"], t)
        if s["position"] != want:
            fail(f"{where}: position {s['position']} != p_t {want} of combo {p['id']}")
        if prev is not None and prev["id"] != s["id"]:
            switches += 1
        if prev is not None and prev["position"] != s["position"]:
            changes += 1
        prev = s
    ids = sorted({p["id"] for p in pubs})
    if switches < 1 or changes < 1:
        fail(f"{symbol}.{strategy}: the data exercised too little: {switches} combo switches, "
             f"{changes} position changes")
    print(f"{symbol}.{strategy}: {len(pubs)} publications ({len(ids)} combos), {len(signals)} "
          f"signals from bar {first_bar}: every one exact; {switches} combo switches, "
          f"{changes} position changes")


if __name__ == "__main__":
    main()
