"""WfodClient against live wfod daemons on loopback (run by ctest python_client_*; needs
WFOD and WFOD_CSV in the environment, see tests/run_tests.sh)."""

from __future__ import annotations

import time
import unittest
from typing import Any, Callable

import zmq

import os
import subprocess
import sys

from harness import EVERY, Feed, Wfod, feed_bars, load_bars, settle, strategy_toml, temp_dir
from wfod_client import Publication, Signal, StreamKey, WfodClient

BARS = load_bars(os.environ["WFOD_CSV"])
FIRST_RUN = 121  # window 60 + warmup 60 (3 x slow 20) + 1


def poll_until(client: WfodClient, done: Callable[[], bool], timeout_s: float, what: str) -> float:
    """Polls until done(); returns the seconds it took, fails the test after timeout_s."""
    t0 = time.monotonic()
    while not done():
        if time.monotonic() - t0 > timeout_s:
            raise AssertionError(f"not within {timeout_s} s: {what}")
        client.poll(0.05)
    return time.monotonic() - t0


class Recorder:
    """Everything a client delivers, in order."""

    def __init__(self) -> None:
        self.pubs: list[Publication] = []
        self.signals: list[Signal] = []
        self.stale: list[tuple[StreamKey, bool, float]] = []

    def kwargs(self) -> dict[str, Any]:
        return {"on_publication": self.pubs.append, "on_signal": self.signals.append,
                "on_stale": lambda k, s: self.stale.append((k, s, time.monotonic()))}


class DaemonCase(unittest.TestCase):
    """One context, feed and temp dir per test; daemons stopped at the end."""

    def setUp(self) -> None:
        self.context = zmq.Context()
        self.tmp = temp_dir()
        self.feed = Feed(self.context)
        self.daemons: list[Wfod] = []
        self.clients: list[WfodClient] = []

    def tearDown(self) -> None:
        for c in self.clients:
            c.close()
        for d in self.daemons:
            d.stop()
        self.feed.close()
        self.context.term()
        self.tmp.cleanup()

    def daemon(self, name: str, symbols: list[str], strategies: str) -> Wfod:
        path = os.path.join(self.tmp.name, name)
        os.makedirs(path)
        d = Wfod(self.context, path, self.feed, symbols, strategies)
        self.daemons.append(d)
        d.start()
        return d

    def client(self, *args: Any, **kwargs: Any) -> WfodClient:
        kwargs.setdefault("context", self.context)
        c = WfodClient(*args, **kwargs)
        self.clients.append(c)
        return c


class CloneTest(DaemonCase):
    def test_snapshot_then_only_newer_updates_and_every_signal(self) -> None:
        d = self.daemon("a", ["GOOG"], strategy_toml("t", ["GOOG"]))
        feed_bars(self.feed, [d], "GOOG", BARS, 0, 200)
        seq0 = settle(d, "GOOG", "t")
        rec = Recorder()
        c = self.client([d.endpoints], [("GOOG", "t")], stale_after_s=5, **rec.kwargs())
        poll_until(c, lambda: bool(rec.pubs), 5, "the snapshot")
        self.assertTrue(rec.pubs[0].from_snapshot)
        self.assertEqual(rec.pubs[0].seq, seq0)
        self.assertEqual(rec.pubs[0].payload, d.request(["get", "GOOG", "t"]))
        feed_bars(self.feed, [d], "GOOG", BARS, 200, 300)
        last = settle(d, "GOOG", "t")
        poll_until(c, lambda: rec.pubs[-1].seq == last and len(rec.signals) == 100, 10,
                   f"seq {last} and 100 signals")
        seqs = [p.seq for p in rec.pubs]
        self.assertEqual(seqs, list(range(seq0, last + 1)), "each update once, none older")
        self.assertTrue(all(not p.from_snapshot for p in rec.pubs[1:]))
        self.assertEqual(c.gaps, 0)
        self.assertEqual([s.ts for s in rec.signals], [b[0] for b in BARS[200:300]])
        self.assertEqual(c.position("GOOG", "t"), rec.signals[-1].position)
        self.assertEqual(rec.signals[-1].params_seq, last)
        final = d.request(["get", "GOOG", "t"])
        self.assertEqual(c.publication("GOOG", "t").payload, final)
        self.assertEqual(rec.signals[-1].position, final["position"]["value"])
        self.assertEqual(c.stale_streams(), [])

    def test_a_gap_makes_the_client_ask_get_again(self) -> None:
        d = self.daemon("a", ["GOOG"], strategy_toml("t", ["GOOG"]))
        feed_bars(self.feed, [d], "GOOG", BARS, 0, 150)
        seq0 = settle(d, "GOOG", "t")
        rec = Recorder()
        c = self.client([d.endpoints], [("GOOG", "t")], **rec.kwargs())
        dropped: list[int] = []
        gets: list[float] = []
        original_on_message, original_ask_get = c._on_message, c._ask_get

        def lossy(topic: bytes, payload: bytes, *rest: Any) -> int:
            # The next publication after the snapshot is lost on the way.
            if topic.startswith(b"params.") and not dropped and rec.pubs:
                dropped.append(1)
                return 0
            return original_on_message(topic, payload, *rest)

        def counting_get(s: Any, d: Any) -> None:
            gets.append(time.monotonic())
            original_ask_get(s, d)

        c._on_message = lossy  # type: ignore[method-assign]
        c._ask_get = counting_get  # type: ignore[method-assign]
        poll_until(c, lambda: bool(rec.pubs), 5, "the snapshot")
        feed_bars(self.feed, [d], "GOOG", BARS, 150, 150 + 4 * EVERY)
        last = settle(d, "GOOG", "t")
        poll_until(c, lambda: rec.pubs[-1].seq == last, 10, f"seq {last}")
        self.assertEqual(dropped, [1])
        self.assertGreaterEqual(c.gaps, 1)
        self.assertGreaterEqual(len(gets), 2, "a get after the gap")
        self.assertNotIn(seq0 + 1, [p.seq for p in rec.pubs if not p.from_snapshot])
        self.assertEqual([p.seq for p in rec.pubs], sorted({p.seq for p in rec.pubs}))
        self.assertEqual(c.publication("GOOG", "t").payload, d.request(["get", "GOOG", "t"]))


class RestartTest(DaemonCase):
    def test_stale_after_kill9_then_resumes_with_increasing_seq(self) -> None:
        d = self.daemon("a", ["GOOG"], strategy_toml("t", ["GOOG"]))
        feed_bars(self.feed, [d], "GOOG", BARS, 0, 160)
        seq0 = settle(d, "GOOG", "t")
        rec = Recorder()
        stale_after = 1.5
        c = self.client([d.endpoints], [("GOOG", "t")], stale_after_s=stale_after,
                        request_timeout_s=0.5, **rec.kwargs())
        poll_until(c, lambda: bool(rec.pubs), 5, "the snapshot")
        c.poll(0.5)
        self.assertFalse(c.is_stale("GOOG", "t"))
        killed = time.monotonic()
        d.kill9()
        took = poll_until(c, lambda: c.is_stale("GOOG", "t"), stale_after + 3, "stale")
        self.assertLessEqual(time.monotonic() - killed, stale_after + 1.0,
                             "stale within its timeout (plus a probe)")
        self.assertEqual(rec.stale[-1][:2], (StreamKey("GOOG", "t"), True))
        c.poll(1.0)  # requests to the dead daemon time out meanwhile: nothing blocks
        self.assertGreaterEqual(sum(dd.requester.timeouts for dd in c._daemons), 1)
        d.start()  # same endpoints, same state
        poll_until(c, lambda: not c.is_stale("GOOG", "t"), 10, "fresh again")
        self.assertEqual(rec.stale[-1][:2], (StreamKey("GOOG", "t"), False))
        c.poll(0.5)  # the SUB has reconnected and subscribed again
        feed_bars(self.feed, [d], "GOOG", BARS, 160, 160 + 4 * EVERY)
        last = settle(d, "GOOG", "t")
        self.assertGreater(last, seq0)
        poll_until(c, lambda: rec.pubs[-1].seq == last and bool(rec.signals)
                   and rec.signals[-1].ts == BARS[160 + 4 * EVERY - 1][0], 10,
                   f"seq {last} and the last bar's signal")
        seqs = [p.seq for p in rec.pubs]
        self.assertEqual(seqs, sorted(set(seqs)), "seq only increases across the restart")
        self.assertEqual([s.ts for s in rec.signals], [b[0] for b in BARS[160:180]])
        print(f"stale {took:.2f} s after kill -9 (stale_after_s {stale_after}); seq {seq0} -> {last}")


class TopicTest(DaemonCase):
    def test_whole_topics_only_though_prefixes_collide(self) -> None:
        # params.BRK.B (strategy B of BRK) is a prefix of params.BRK.B.x (x of BRK.B), and
        # signal.BRK.B of signal.BRK.B.x; BRK.B/x.x shares the symbol's start too.
        d = self.daemon("a", ["BRK", "BRK.B", "BRK.B/x"],
                        strategy_toml("B", ["BRK"]) + strategy_toml("x", ["BRK.B", "BRK.B/x"]))
        raw = self.context.socket(zmq.SUB)
        raw.setsockopt(zmq.SUBSCRIBE, b"params.BRK.B")
        raw.connect(d.pub)
        rec_b, rec_x = Recorder(), Recorder()
        cb = self.client([d.endpoints], [("BRK", "B")], **rec_b.kwargs())
        cx = self.client([d.endpoints], [("BRK.B", "x")], **rec_x.kwargs())
        for c in (cb, cx):
            c.poll(0.3)
        for sym in ("BRK.B/x", "BRK.B", "BRK"):  # the others first
            feed_bars(self.feed, [d], sym, BARS, 0, FIRST_RUN + 2 * EVERY)
        for key in (("BRK", "B"), ("BRK.B", "x"), ("BRK.B/x", "x")):
            settle(d, *key)
        poll_until(cb, lambda: bool(rec_b.pubs) and bool(rec_b.signals) and
                   rec_b.pubs[-1].seq == d.get_seq("BRK", "B"), 10, "BRK.B")
        poll_until(cx, lambda: bool(rec_x.pubs) and rec_x.pubs[-1].seq == d.get_seq("BRK.B", "x"),
                   10, "BRK.B.x")
        topics = set()
        while raw.poll(100):
            topics.add(raw.recv_multipart()[0])
        raw.close(linger=0)
        self.assertEqual(topics, {b"params.BRK.B", b"params.BRK.B.x", b"params.BRK.B/x.x"},
                         "the prefixes do collide")
        self.assertEqual({p.stream for p in rec_b.pubs}, {StreamKey("BRK", "B")})
        self.assertEqual({s.stream for s in rec_b.signals}, {StreamKey("BRK", "B")})
        self.assertEqual({p.stream for p in rec_x.pubs}, {StreamKey("BRK.B", "x")})
        self.assertEqual({s.stream for s in rec_x.signals}, {StreamKey("BRK.B", "x")})
        self.assertEqual(cb.streams(), [StreamKey("BRK", "B")])


class SeveralDaemonsTest(DaemonCase):
    def test_every_stream_of_every_daemon_and_one_going_stale(self) -> None:
        a = self.daemon("a", ["AAA"], strategy_toml("t", ["AAA"]))
        b = self.daemon("b", ["BBB", "B.B"], strategy_toml("t", ["BBB", "B.B"]))
        rec = Recorder()
        c = self.client([a.endpoints, (b.pub, b.snapshot)], None, stale_after_s=1.5,
                        request_timeout_s=0.5, **rec.kwargs())
        keys = [StreamKey("AAA", "t"), StreamKey("B.B", "t"), StreamKey("BBB", "t")]
        c.poll(0.3)
        feed_bars(self.feed, [a], "AAA", BARS, 0, FIRST_RUN + EVERY)
        feed_bars(self.feed, [b], "BBB", BARS, 0, FIRST_RUN + EVERY)
        feed_bars(self.feed, [b], "B.B", BARS, 0, FIRST_RUN + EVERY)
        want = {k: settle(a if k.symbol == "AAA" else b, *k) for k in keys}
        poll_until(c, lambda: c.streams() == keys, 5, f"streams {keys} found")
        poll_until(c, lambda: all(c.publication(*k) is not None and
                                  c.publication(*k).seq == want[k] for k in keys), 10,
                   "every stream's newest publication")
        b.kill9()
        poll_until(c, lambda: c.stale_streams() == keys[1:], 4, "daemon b's streams stale")
        before = len([s for s in rec.signals if s.stream == keys[0]])
        feed_bars(self.feed, [a], "AAA", BARS, FIRST_RUN + EVERY, FIRST_RUN + 3 * EVERY)
        poll_until(c, lambda: len([s for s in rec.signals if s.stream == keys[0]]) ==
                   before + 2 * EVERY, 10, "daemon a's signals go on")
        self.assertEqual(c.stale_streams(), keys[1:])
        self.assertFalse(c.is_stale("AAA", "t"))


class ExampleTest(DaemonCase):
    def test_python_follow_prints_each_position_change(self) -> None:
        d = self.daemon("a", ["GOOG"], strategy_toml("t", ["GOOG"]))
        feed_bars(self.feed, [d], "GOOG", BARS, 0, FIRST_RUN + EVERY)
        settle(d, "GOOG", "t")
        example = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples",
                               "python_follow.py")
        proc = subprocess.Popen([sys.executable, example, "GOOG", "t", "--pub", d.pub,
                                 "--snapshot", d.snapshot, "--size", "100", "--seconds", "8"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ))
        rec = Recorder()  # the same stream through the library, for the expected position
        c = self.client([d.endpoints], [("GOOG", "t")], **rec.kwargs())
        poll_until(c, lambda: bool(rec.pubs), 5, "the snapshot")
        time.sleep(1.0)  # the example has subscribed and snapshotted too
        feed_bars(self.feed, [d], "GOOG", BARS, FIRST_RUN + EVERY, 400)
        poll_until(c, lambda: bool(rec.signals) and rec.signals[-1].ts == BARS[399][0], 10,
                   "the last bar's signal")
        out, _ = proc.communicate(timeout=20)
        self.assertEqual(proc.returncode, 0, out)
        self.assertIn("(snapshot)", out)
        trades = [line for line in out.splitlines() if " BUY " in line or " SELL " in line]
        self.assertGreaterEqual(len(trades), 3, out)
        # Each trade goes from what it held to the new position, in steps of 100; the last
        # leaves it holding the last signal's position.
        held = None
        for line in trades:
            before, after = (int(x) for x in line.split("(")[1].split(",")[0].split(" -> "))
            if held is not None:
                self.assertEqual(before, held, line)
            self.assertEqual(float(line.split()[4]), abs(after - before) * 100, line)
            held = after
        self.assertEqual(held, rec.signals[-1].position, out)


if __name__ == "__main__":
    unittest.main()
