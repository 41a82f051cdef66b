"""Live wfod daemons on loopback for the client tests: configs, start / kill -9 / restart on
the same endpoints and state, a bar feed (a PUB the daemons' SUB connects to), snapshot
requests with timeouts. Paths come from the environment: WFOD (the daemon) and WFOD_CSV
(daily bars, timestamp,open,high,low,close,volume)."""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import random
import signal
import socket
import subprocess
import tempfile
import time
from typing import Any, Optional

import zmq

WINDOW, EVERY = 60, 5  # a small ma_cross stream: first run at 60 + 60 + 1 bars


def load_bars(path: str) -> list[tuple[int, float, float, float, float, float]]:
    """The CSV's bars as (ts_ns, open, high, low, close, volume)."""
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            day = dt.datetime.strptime(row["timestamp"][:10], "%Y-%m-%d").replace(tzinfo=dt.timezone.utc)
            ts = int(day.timestamp()) * 1_000_000_000
            out.append((ts, float(row["open"]), float(row["high"]), float(row["low"]),
                        float(row["close"]), float(row["volume"])))
    return out


def free_port() -> int:
    """A loopback port nothing listens on, below the kernel's ephemeral range (so no
    outgoing connection holds it when a daemon binds it again after a restart)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    span = max(low - 20000, 1000)
    for _ in range(200):
        port = 20000 + random.randrange(span)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port")


def strategy_toml(name: str, symbols: list[str]) -> str:
    """A small ma_cross strategy (window 60, every 5) on `symbols`."""
    syms = ", ".join(json.dumps(s) for s in symbols)
    return f"""
[[strategy]]
name = "{name}"
symbols = [{syms}]
family = "ma_cross"
window = {WINDOW}
every = {EVERY}
cost_bps = 1.0
top = 2
[strategy.grid]
fast = [3, 5]
slow = [10, 20]
ma = ["sma", "ema"]
entry = ["state", "cross"]
"""


class Feed:
    """A bar publisher (PROTOCOL §1, json) bound on an ephemeral loopback port."""

    def __init__(self, context: zmq.Context) -> None:
        self.socket = context.socket(zmq.PUB)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.SNDHWM, 0)
        self.socket.bind("tcp://127.0.0.1:*")
        self.endpoint = self.socket.getsockopt_string(zmq.LAST_ENDPOINT)

    def send(self, symbol: str, bar: tuple[int, float, float, float, float, float]) -> None:
        ts, o, h, low, c, v = bar
        payload = {"ts": ts, "open": o, "high": h, "low": low, "close": c, "volume": v}
        self.socket.send_multipart([f"bars.{symbol}".encode(), json.dumps(payload).encode()])

    def close(self) -> None:
        self.socket.close(linger=0)


class Wfod:
    """One daemon: a config on fixed free ports, its state dir and log in `workdir`."""

    def __init__(self, context: zmq.Context, workdir: str, feed: Feed, symbols: list[str],
                 strategies: str) -> None:
        self.context = context
        self.workdir = workdir
        self.pub = f"tcp://127.0.0.1:{free_port()}"
        self.snapshot = f"tcp://127.0.0.1:{free_port()}"
        self.config = os.path.join(workdir, "wfod.toml")
        self.log = os.path.join(workdir, "wfod.log")
        self.proc: Optional[subprocess.Popen[bytes]] = None
        symbol_tables = "\n".join(f'[[symbol]]\nname = "{s}"\nbars_per_year = 252\n' for s in symbols)
        with open(self.config, "w", encoding="utf-8") as f:
            f.write(f"""[daemon]
state_dir = "{os.path.join(workdir, 'state')}"
backend = "cpu"
threads = 1
checkpoint_every_s = 0

[publish]
endpoint = "{self.pub}"
snapshot = "{self.snapshot}"
http = ""

[[feed]]
endpoint = "{feed.endpoint}"
format = "json"

{symbol_tables}
{strategies}
""")

    @property
    def endpoints(self) -> tuple[str, str]:
        return self.pub, self.snapshot

    def start(self) -> None:
        exe = os.environ["WFOD"]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([exe, "--config", self.config], stdout=log,
                                         stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"wfod exited at start: {self.tail()}")
            if self.request(["health"], 0.3) is not None:
                return
        raise RuntimeError(f"wfod did not answer health within 20 s: {self.tail()}")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def tail(self) -> str:
        try:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-20:])
        except OSError:
            return "(no log)"

    def request(self, frames: list[str], timeout_s: float = 2.0) -> Optional[dict[str, Any]]:
        """One snapshot request on a fresh REQ socket; None without a reply in time."""
        sock = self.context.socket(zmq.REQ)
        sock.setsockopt(zmq.LINGER, 0)
        try:
            sock.connect(self.snapshot)
            sock.send_multipart([f.encode() for f in frames])
            if not sock.poll(int(timeout_s * 1000)):
                return None
            return json.loads(b"".join(sock.recv_multipart()))
        finally:
            sock.close(linger=0)

    def bars(self, symbol: str) -> int:
        h = self.request(["health"]) or {}
        return int(h.get("symbols", {}).get(symbol, {}).get("bars", -1))

    def get_seq(self, symbol: str, strategy: str) -> int:
        r = self.request(["get", symbol, strategy]) or {}
        return int(r.get("seq", 0))


def feed_bars(feed: Feed, daemons: list[Wfod], symbol: str,
              bars: list[tuple[int, float, float, float, float, float]], first: int,
              end: int) -> None:
    """Bars [first, end) of `symbol` into every daemon of `daemons` that has it, waiting
    until each holds them. The first one is sent until a daemon counts it (its SUB may join
    late: a repeat is a duplicate, dropped and counted)."""
    deadline = time.monotonic() + 20
    feed.send(symbol, bars[first])
    while any(d.bars(symbol) < first + 1 for d in daemons):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{symbol}: bar {first} never arrived")
        time.sleep(0.05)
        feed.send(symbol, bars[first])
    for i in range(first + 1, end):
        feed.send(symbol, bars[i])
    while any(d.bars(symbol) < end for d in daemons):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{symbol}: {end} bars never arrived")
        time.sleep(0.05)


def settle(daemon: Wfod, symbol: str, strategy: str, quiet_s: float = 0.6) -> int:
    """Waits until the stream's seq stays the same for quiet_s; returns it."""
    deadline = time.monotonic() + 20
    prev = -1
    while time.monotonic() < deadline:
        seq = daemon.get_seq(symbol, strategy)
        if seq == prev and seq > 0:
            return seq
        prev = seq
        time.sleep(quiet_s)
    raise RuntimeError(f"{symbol}.{strategy} did not settle")


def temp_dir() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="wfod_py.")
