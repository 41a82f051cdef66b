#!/usr/bin/env python3
"""A minimal trading loop on wfod: follows one stream's per-bar signals (PROTOCOL §2a) and
prints the position changes a trading system would make, in units of --size.

It starts from the snapshot's position (what the published combo holds), then trades each
signal whose position differs from what it holds. When the daemon goes stale it says so
(a real system would stop opening positions, or flatten); when a publication changes the
combo it prints the new parameters. Stop with Ctrl-C (or --seconds).

usage: python_follow.py SYMBOL STRATEGY [--pub EP] [--snapshot EP] [--size N] [--seconds S]
needs: pip install ./clients/python   (or PYTHONPATH=clients/python), python3-zmq
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from typing import Optional

from wfod_client import Publication, Signal, StreamKey, WfodClient


def when(ts_ns: int) -> str:
    return dt.datetime.fromtimestamp(ts_ns / 1e9, dt.timezone.utc).strftime("%Y-%m-%d %H:%M")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("symbol")
    ap.add_argument("strategy")
    ap.add_argument("--pub", default="tcp://127.0.0.1:5560", help="[publish] endpoint")
    ap.add_argument("--snapshot", default="tcp://127.0.0.1:5561", help="[publish] snapshot")
    ap.add_argument("--size", type=float, default=1.0, help="units per position step")
    ap.add_argument("--seconds", type=float, default=0.0, help="stop after this long (0: never)")
    args = ap.parse_args()

    held: Optional[int] = None  # the position this system holds, in steps (-1, 0, +1)

    def trade(target: int, ts: int, why: str) -> None:
        nonlocal held
        if target == held:
            return
        before = held or 0
        side = "BUY" if target > before else "SELL"
        print(f"{when(ts)} {args.symbol}: {side} {abs(target - before) * args.size:g} "
              f"({before:+d} -> {target:+d}, {why})", flush=True)
        held = target

    def on_publication(p: Publication) -> None:
        print(f"publication seq {p.seq}{' (snapshot)' if p.from_snapshot else ''}: combo {p.id} "
              f"{p.params}", flush=True)
        if held is None and p.position is not None and p.position_ts is not None:
            trade(p.position, p.position_ts, f"snapshot of seq {p.seq}")

    def on_signal(s: Signal) -> None:
        trade(s.position, s.ts, f"signal of combo {s.id}, seq {s.params_seq}")

    def on_stale(key: StreamKey, stale: bool) -> None:
        print(f"{key}: {'STALE: no word from the daemon' if stale else 'fresh again'}", flush=True)

    client = WfodClient([(args.pub, args.snapshot)], [(args.symbol, args.strategy)],
                        on_publication=on_publication, on_signal=on_signal, on_stale=on_stale)
    end = time.monotonic() + args.seconds if args.seconds > 0 else float("inf")
    try:
        while time.monotonic() < end:
            client.poll(min(1.0, max(end - time.monotonic(), 0.0)))
    except KeyboardInterrupt:
        pass
    finally:
        client.close()


if __name__ == "__main__":
    main()
