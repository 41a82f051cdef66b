"""Sharding on loopback (docs/operations.md "Sharding"): 3 wfod daemons x 10 symbols behind one
wfo-proxy; a Python client (clients/python) subscribed to the proxy alone, asking each shard for
snapshots, sees every stream; kill -9 of one shard makes exactly its streams stale within the
client's timeout while the others keep flowing; restarted, they resume with increasing seq. The
proxy's /metrics and /healthz follow along, and SIGTERM stops it with exit 0.

Run by ctest proxy_shards (run_proxy_test.sh): WFOD, WFOD_CSV, WFO_PROXY in the environment.
Reuses the Python client's test harness (clients/python/tests/harness.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import unittest
import urllib.error
import urllib.request
from typing import Callable

import zmq

from harness import EVERY, Feed, Wfod, free_port, load_bars, strategy_toml, temp_dir
from wfod_client import Signal, StreamKey, WfodClient

BARS = load_bars(os.environ["WFOD_CSV"])
FIRST_RUN = 121  # window 60 + warmup 60 + 1: the first publication
SHARDS, PER_SHARD = 3, 10
STALE_AFTER = 2.0


def http_get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{name} not in /metrics:\n{text}")


class ProxyShardsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.t0 = time.monotonic()
        self.context = zmq.Context()
        self.tmp = temp_dir()
        self.feed = Feed(self.context)
        self.shards: list[Wfod] = []
        self.symbols: list[list[str]] = []
        for i in range(SHARDS):
            syms = [f"S{i}{j}" for j in range(PER_SHARD)]
            path = os.path.join(self.tmp.name, f"shard{i}")
            os.makedirs(path)
            d = Wfod(self.context, path, self.feed, syms, strategy_toml("t", syms))
            self.shards.append(d)
            self.symbols.append(syms)
        for d in self.shards:
            d.start()
        self.proxy_ep = f"tcp://127.0.0.1:{free_port()}"
        self.http = f"http://127.0.0.1:{free_port()}"
        self.proxy_log = open(os.path.join(self.tmp.name, "proxy.log"), "w+b")
        self.proxy = subprocess.Popen(
            [os.environ["WFO_PROXY"], "--upstream", ",".join(d.pub for d in self.shards),
             "--bind", self.proxy_ep, "--http", self.http[len("http://"):]],
            stdout=self.proxy_log, stderr=subprocess.STDOUT)
        self.client: WfodClient | None = None

    def tearDown(self) -> None:
        if self.client:
            self.client.close()
        if self.proxy.poll() is None:
            self.proxy.kill()
            self.proxy.wait(5)
        for d in self.shards:
            d.stop()
        self.feed.close()
        self.context.term()
        self.proxy_log.close()
        self.tmp.cleanup()
        print(f"proxy_shards: {time.monotonic() - self.t0:.1f} s")

    def proxy_output(self) -> str:
        self.proxy_log.seek(0)
        return self.proxy_log.read().decode(errors="replace")

    def poll_until(self, done: Callable[[], bool], timeout_s: float, what: str) -> float:
        assert self.client is not None
        t0 = time.monotonic()
        while not done():
            if time.monotonic() - t0 > timeout_s:
                raise AssertionError(f"not within {timeout_s} s: {what}")
            self.client.poll(0.05)
        return time.monotonic() - t0

    def settled(self, keys: list[list[StreamKey]]) -> dict[StreamKey, int]:
        """Every stream's seq once all have published and none changed for 0.6 s (bars fed
        at once may make one run of several due ones)."""
        prev: dict[StreamKey, int] = {}
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            now = {k: self.shards[i].get_seq(k.symbol, "t")
                   for i in range(SHARDS) for k in keys[i]}
            if now == prev and all(v > 0 for v in now.values()):
                return now
            prev = now
            assert self.client is not None
            self.client.poll(0.6)
        raise AssertionError(f"streams did not settle: {prev}")

    def feed_all(self, shards: list[int], first: int, end: int) -> None:
        """Bars [first, end) of every symbol of `shards`; waits until each daemon has them.
        Each symbol's first bar is repeated until its daemon counts it (a late SUB)."""
        assert self.client is not None
        deadline = time.monotonic() + 20
        for i in shards:
            for sym in self.symbols[i]:
                while self.shards[i].bars(sym) < first + 1:
                    if time.monotonic() > deadline:
                        raise AssertionError(f"{sym}: bar {first} never arrived")
                    self.feed.send(sym, BARS[first])
                    self.client.poll(0.02)
        for t in range(first + 1, end):
            for i in shards:
                for sym in self.symbols[i]:
                    self.feed.send(sym, BARS[t])
        for i in shards:
            for sym in self.symbols[i]:
                while self.shards[i].bars(sym) < end:
                    if time.monotonic() > deadline:
                        raise AssertionError(f"{sym}: {end} bars never arrived")
                    self.client.poll(0.05)

    def test_three_shards_behind_one_proxy(self) -> None:
        signals: list[Signal] = []
        stale_events: list[tuple[StreamKey, bool, float]] = []
        endpoints = [(self.proxy_ep, d.snapshot) for d in self.shards]  # one pub, 3 snapshots
        self.client = c = WfodClient(
            endpoints, None, stale_after_s=STALE_AFTER, request_timeout_s=0.5,
            on_signal=signals.append,
            on_stale=lambda k, s: stale_events.append((k, s, time.monotonic())))
        keys = [[StreamKey(s, "t") for s in syms] for syms in self.symbols]
        every = sorted(k for ks in keys for k in ks)
        c.poll(0.5)  # subscribed through the proxy (the proxy's XSUB passes it to each shard)

        end1 = FIRST_RUN + EVERY
        self.feed_all(list(range(SHARDS)), 0, end1)
        seqs = self.settled(keys)
        self.poll_until(lambda: c.streams() == every, 10, "every stream found")
        self.poll_until(lambda: all(c.publication(*k) is not None and
                                    c.publication(*k).seq == seqs[k] for k in every), 10,
                        "every stream's newest publication")

        def signalled(k: StreamKey) -> list[int]:
            return [s.ts for s in signals if s.stream == k]
        # Signals come only on the PUB side: through the proxy, for every stream of every shard.
        self.poll_until(lambda: all(signalled(k) and signalled(k)[-1] == BARS[end1 - 1][0]
                                    for k in every), 10, "every stream's last signal via the proxy")
        self.assertEqual(c.stale_streams(), [])
        status, text = http_get(self.http + "/metrics")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(metric(text, 'wfo_proxy_messages_total{direction="downstream"}'),
                                sum(seqs.values()) + 30, "every publication and signal forwarded")
        self.assertGreater(metric(text, 'wfo_proxy_messages_total{direction="upstream"}'), 0)
        for d in self.shards:
            self.assertEqual(metric(text, f'wfo_proxy_upstream_connected{{endpoint="{d.pub}"}}'), 1)
        self.assertEqual(http_get(self.http + "/healthz"), (200, "ok\n"))

        # kill -9 shard 1: its 10 streams go stale within the client's timeout, the rest flow.
        killed = time.monotonic()
        self.shards[1].kill9()
        took = self.poll_until(lambda: c.stale_streams() == sorted(keys[1]), STALE_AFTER + 3,
                               "shard 1's streams stale")
        self.assertLessEqual(time.monotonic() - killed, STALE_AFTER + 1.0,
                             "stale within stale_after_s (plus one probe)")
        before = {k: len(signalled(k)) for k in every}
        end2 = end1 + EVERY
        self.feed_all([0, 2], end1, end2)
        others = keys[0] + keys[2]
        self.poll_until(lambda: all(len(signalled(k)) == before[k] + EVERY for k in others), 10,
                        "shards 0 and 2 keep flowing")
        self.assertEqual(c.stale_streams(), sorted(keys[1]))
        status, body = http_get(self.http + "/healthz")
        self.assertEqual(status, 503)
        self.assertIn(self.shards[1].pub, body)

        # Restart it (same endpoints, same state): fresh again, then newer seq and signals.
        self.shards[1].start()
        self.poll_until(lambda: c.stale_streams() == [], 10, "shard 1 fresh again")
        c.poll(0.5)  # the proxy's XSUB has reconnected and passed the subscriptions on
        self.feed_all([1], end1, end2)
        after: dict[StreamKey, int] = {}
        self.poll_until(lambda: after.update({k: self.shards[1].get_seq(k.symbol, "t")
                                              for k in keys[1]})
                        or all(after[k] > seqs[k] for k in keys[1]), 15,
                        "shard 1 publishes at bar 131")
        self.poll_until(lambda: all(c.publication(*k).seq == after[k] and
                                    signalled(k)[-1] == BARS[end2 - 1][0] for k in keys[1]),
                        10, "shard 1's streams resume")
        for k in keys[1]:
            self.assertGreater(after[k], seqs[k], f"{k}: seq goes on increasing")
            ts = signalled(k)
            self.assertEqual(ts, sorted(set(ts)), f"{k}: signals in bar order, once each")
        self.assertEqual(http_get(self.http + "/healthz"), (200, "ok\n"))
        text = http_get(self.http + "/metrics")[1]
        self.assertGreaterEqual(metric(text, "wfo_proxy_upstream_disconnects_total"), 1)

        self.proxy.send_signal(signal.SIGTERM)
        self.assertEqual(self.proxy.wait(10), 0, self.proxy_output())
        self.assertIn("stopped exit=0", self.proxy_output())
        print(f"stale {took:.2f} s after kill -9 (stale_after_s {STALE_AFTER}); "
              f"shard 1 seq {min(seqs[k] for k in keys[1])} -> {min(after.values())}")


if __name__ == "__main__":
    unittest.main()
