"""WfodClient: follows streams of one or several wfod daemons (docs/protocol.md "Consuming
wfod").

The zguide's clone pattern per stream: subscribe first, then ask the owning daemon ``get``,
apply only updates whose ``seq`` is greater than the snapshot's; a jump in ``seq`` (or a
signal naming a publication not seen) is a gap: the update is applied (it is the whole
state) and ``get`` asked again. Topics are compared whole (ZeroMQ filters are prefixes and
symbols may contain ``.``). A daemon is stale when nothing came from it (PUB traffic or a
snapshot reply; a ``health`` probe is sent when it is quiet) for ``stale_after_s``; its
streams are reported stale, and re-synced with ``get`` when it is heard again (a restart:
``seq`` goes on increasing). Requests have deadlines and a REQ socket whose peer died is
replaced, so nothing waits on a dead daemon.

Single-threaded: call ``poll()`` from your loop; callbacks run inside it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence, Union

import zmq

from .messages import (
    PARAMS_PREFIX,
    SIGNAL_PREFIX,
    Publication,
    Signal,
    StreamKey,
    parse_topic,
)
from .requester import Requester


@dataclass(frozen=True)
class DaemonEndpoints:
    """Where one daemon (a shard) is reached: its ``[publish] endpoint`` (PUB, or a proxy's
    XPUB shared by several shards) and its ``[publish] snapshot`` (REP)."""

    pub: str
    snapshot: str


DaemonSpec = Union[DaemonEndpoints, tuple[str, str]]
StreamSpec = Union[StreamKey, tuple[str, str]]


@dataclass
class _Daemon:
    index: int
    endpoints: DaemonEndpoints
    requester: Requester
    last_heard: float
    stale: bool = False
    next_list_at: float = 0.0


@dataclass
class _Stream:
    key: StreamKey
    created: float
    owner: Optional[int] = None  # daemon index: the one whose get knows the stream
    ask_next: int = 0  # while the owner is unknown: the daemon to ask next
    last_seq: Optional[int] = None  # None until a snapshot (0: it has none yet)
    publication: Optional[Publication] = None
    signal: Optional[Signal] = None
    buffered: list[dict[str, Any]] = field(default_factory=list)
    get_in_flight: bool = False
    get_wanted: bool = True
    next_get_at: float = 0.0
    stale: bool = False


class WfodClient:
    """Follows publications and per-bar signals of wfod streams, from several daemons.

    Args:
        daemons: one ``(pub, snapshot)`` endpoint pair (or DaemonEndpoints) per daemon.
            Several daemons may share one pub endpoint (a proxy); snapshots are asked of
            the daemon whose ``get`` knows the stream (each is asked in turn).
        streams: ``(symbol, strategy)`` pairs to follow; None follows every stream that
            publishes (found through ``list`` and the PUB traffic).
        signals: also receive per-bar signals (PROTOCOL §2a).
        stale_after_s: a daemon silent this long makes its streams stale.
        request_timeout_s: a snapshot request without a reply this long is abandoned and
            its REQ socket replaced.
        on_publication, on_signal: called for each new publication (snapshots included,
            ``from_snapshot`` True) and each new signal, in order per stream.
        on_stale: called with (stream, True) when a stream becomes stale, (stream, False)
            when it is fresh again.
        context: a ZeroMQ context to use (default: the process's shared one).
    """

    def __init__(
        self,
        daemons: Sequence[DaemonSpec],
        streams: Optional[Iterable[StreamSpec]] = None,
        *,
        signals: bool = True,
        stale_after_s: float = 10.0,
        request_timeout_s: float = 2.0,
        on_publication: Optional[Callable[[Publication], None]] = None,
        on_signal: Optional[Callable[[Signal], None]] = None,
        on_stale: Optional[Callable[[StreamKey, bool], None]] = None,
        context: Optional[zmq.Context] = None,
    ) -> None:
        if not daemons:
            raise ValueError("WfodClient: no daemon given")
        if stale_after_s <= 0 or request_timeout_s <= 0:
            raise ValueError("WfodClient: stale_after_s and request_timeout_s must be > 0")
        self.signals = signals
        self.stale_after_s = stale_after_s
        self.request_timeout_s = request_timeout_s
        self.on_publication = on_publication
        self.on_signal = on_signal
        self.on_stale = on_stale
        self.gaps = 0  # seq jumps seen (each followed by a fresh get)
        self.resyncs = 0  # get replies applied after the first of a stream
        self._context = context or zmq.Context.instance()
        self._closed = False
        now = time.monotonic()
        self._daemons: list[_Daemon] = []
        for i, d in enumerate(daemons):
            ep = d if isinstance(d, DaemonEndpoints) else DaemonEndpoints(str(d[0]), str(d[1]))
            self._daemons.append(
                _Daemon(i, ep, Requester(self._context, ep.snapshot, request_timeout_s), now))
        self._follow_all = streams is None
        self._streams: dict[StreamKey, _Stream] = {}
        for s in streams or ():
            key = s if isinstance(s, StreamKey) else StreamKey(str(s[0]), str(s[1]))
            self._streams[key] = _Stream(key, now)
        # One SUB per distinct pub endpoint; subscribed before any snapshot is asked.
        self._subs: dict[str, zmq.Socket] = {}
        self._sub_daemons: dict[str, list[int]] = {}
        for d in self._daemons:
            ep = d.endpoints.pub
            if ep not in self._subs:
                sock = self._context.socket(zmq.SUB)
                sock.setsockopt(zmq.LINGER, 0)
                sock.setsockopt(zmq.RCVHWM, 0)
                for prefix in self._prefixes():
                    sock.setsockopt(zmq.SUBSCRIBE, prefix.encode("utf-8"))
                sock.connect(ep)
                self._subs[ep] = sock
                self._sub_daemons[ep] = []
            self._sub_daemons[ep].append(d.index)

    # ----- queries -----------------------------------------------------------------------

    def streams(self) -> list[StreamKey]:
        """The streams followed (with streams=None: those seen publishing so far)."""
        return sorted(self._streams)

    def publication(self, symbol: str, strategy: str) -> Optional[Publication]:
        """The newest publication of a stream, or None before its first."""
        s = self._streams.get(StreamKey(symbol, strategy))
        return s.publication if s else None

    def last_signal(self, symbol: str, strategy: str) -> Optional[Signal]:
        """The newest signal of a stream, or None before its first."""
        s = self._streams.get(StreamKey(symbol, strategy))
        return s.signal if s else None

    def position(self, symbol: str, strategy: str) -> Optional[int]:
        """What the stream holds now: its newest signal's position, else its newest
        publication's; None when neither is known."""
        s = self._streams.get(StreamKey(symbol, strategy))
        if s is None:
            return None
        sig, pub = s.signal, s.publication
        if sig is not None and (pub is None or pub.position_ts is None or sig.ts >= pub.position_ts):
            return sig.position
        return pub.position if pub is not None else None

    def is_stale(self, symbol: str, strategy: str) -> bool:
        """True while the stream's daemon has been silent for stale_after_s (or, for a
        stream no daemon has claimed yet, since the client started)."""
        s = self._streams.get(StreamKey(symbol, strategy))
        return s.stale if s else True

    def stale_streams(self) -> list[StreamKey]:
        """The streams that are stale now."""
        return sorted(k for k, s in self._streams.items() if s.stale)

    # ----- the loop --------------------------------------------------------------------

    def poll(self, timeout_s: float = 0.1) -> int:
        """Receives and applies what arrives within ``timeout_s`` (at least one pass);
        returns how many publications and signals were delivered."""
        if self._closed:
            raise RuntimeError("WfodClient: closed")
        deadline = time.monotonic() + max(timeout_s, 0.0)
        delivered = 0
        while True:
            now = time.monotonic()
            self._housekeeping(now)
            poller = zmq.Poller()
            for sock in self._subs.values():
                poller.register(sock, zmq.POLLIN)
            requesters = {}
            for d in self._daemons:
                sock = d.requester.socket
                if sock is not None:
                    poller.register(sock, zmq.POLLIN)
                    requesters[sock] = d
            # Wake at least every 50 ms for deadlines and staleness.
            wait_ms = max(0, min(int((deadline - now) * 1000), 50))
            for sock, _ in poller.poll(wait_ms):
                if sock in requesters:
                    requesters[sock].requester.on_readable()
                else:
                    delivered += self._drain(sock)
            if time.monotonic() >= deadline:
                self._housekeeping(time.monotonic())
                return delivered

    def close(self) -> None:
        """Closes every socket. The client cannot be used afterwards."""
        if self._closed:
            return
        self._closed = True
        for d in self._daemons:
            d.requester.close()
        for sock in self._subs.values():
            sock.close(linger=0)
        self._subs.clear()

    def __enter__(self) -> "WfodClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----- internals -------------------------------------------------------------------

    def _prefixes(self) -> list[str]:
        kinds = [PARAMS_PREFIX] + ([SIGNAL_PREFIX] if self.signals else [])
        if self._follow_all:
            return kinds
        # Narrows the traffic; the whole-topic comparison in _on_message decides.
        out = [k.params_topic() for k in self._streams]
        if self.signals:
            out += [k.signal_topic() for k in self._streams]
        return out

    def _heard(self, d: _Daemon, now: float) -> None:
        d.last_heard = now
        if d.stale:
            # Back (a restart, a network cut healed): what was missed comes from get.
            d.stale = False
            d.next_list_at = 0.0
            for s in self._streams.values():
                if s.owner == d.index:
                    s.get_wanted = True

    def _housekeeping(self, now: float) -> None:
        probe_after = self.stale_after_s / 3
        for d in self._daemons:
            d.requester.check_deadline(now)
            if not d.stale and now - d.last_heard > self.stale_after_s:
                d.stale = True
            # A quiet daemon is asked for its health: a reply is a sign of life.
            if now - d.last_heard > probe_after and not d.requester.busy():
                d.requester.submit(["health"], lambda r, d=d: self._on_health(d, r))
            # Following every stream: "list" names those that have published, again and
            # again (a new stream shows up in it after its first publication).
            if self._follow_all and now >= d.next_list_at and not d.requester.busy():
                self._ask_list(d)
        for s in self._streams.values():
            if s.get_wanted and not s.get_in_flight and now >= s.next_get_at:
                if s.owner is not None:
                    self._ask_get(s, self._daemons[s.owner])
                else:
                    # Which daemon has it: each in turn until one's get knows the stream
                    # (a payload, or "no publication yet"; others say "unknown stream").
                    d = self._daemons[s.ask_next % len(self._daemons)]
                    s.ask_next += 1
                    self._ask_get(s, d)
            owner = self._daemons[s.owner] if s.owner is not None else None
            stale = owner.stale if owner else now - s.created > self.stale_after_s
            if stale != s.stale:
                s.stale = stale
                if self.on_stale:
                    self.on_stale(s.key, stale)

    def _ask_list(self, d: _Daemon) -> None:
        d.next_list_at = time.monotonic() + max(1.0, self.stale_after_s / 3)
        d.requester.submit(["list"], lambda r, d=d: self._on_list(d, r))

    def _on_health(self, d: _Daemon, reply: Optional[dict[str, Any]]) -> None:
        if reply is not None:
            self._heard(d, time.monotonic())

    def _on_list(self, d: _Daemon, reply: Optional[dict[str, Any]]) -> None:
        if reply is None or not isinstance(reply.get("streams"), list):
            return
        now = time.monotonic()
        self._heard(d, now)
        for item in reply["streams"]:
            try:
                key = StreamKey(str(item["symbol"]), str(item["strategy"]))
            except (KeyError, TypeError):
                continue
            s = self._streams.get(key)
            if s is None:
                if not self._follow_all:
                    continue
                s = self._streams[key] = _Stream(key, now)
            if s.owner != d.index:
                s.owner = d.index
                s.get_wanted = True
            if s.owner == d.index and s.last_seq is None:
                s.get_wanted = True

    def _ask_get(self, s: _Stream, d: _Daemon) -> None:
        s.get_in_flight = True
        s.get_wanted = False
        d.requester.submit(["get", s.key.symbol, s.key.strategy],
                           lambda r, s=s, d=d: self._on_get(s, d, r))

    def _on_get(self, s: _Stream, d: _Daemon, reply: Optional[dict[str, Any]]) -> None:
        s.get_in_flight = False
        now = time.monotonic()
        if reply is None:  # no reply in time: asked again (another daemon, if unowned)
            s.get_wanted = True
            if s.owner is not None or s.ask_next % len(self._daemons) == 0:
                s.next_get_at = now + min(1.0, self.request_timeout_s)
            return
        self._heard(d, now)
        if "error" in reply:
            error = str(reply["error"])
            if error.startswith("unknown stream"):
                # Not this daemon's (or no longer: moved to another shard): ask the next,
                # pausing after a round of all.
                s.owner = None
                s.get_wanted = True
                if s.ask_next % len(self._daemons) == 0:
                    s.next_get_at = now + max(1.0, self.stale_after_s / 3)
                return
            s.owner = d.index
            if s.last_seq is None:
                s.last_seq = 0  # "no publication yet": every update is new
        else:
            try:
                pub = Publication.from_payload(reply, from_snapshot=True)
            except (KeyError, TypeError, ValueError):
                s.get_wanted = True
                s.next_get_at = now + 1.0
                return
            s.owner = d.index
            if s.last_seq is None or pub.seq > s.last_seq:
                if s.last_seq is not None:
                    self.resyncs += 1
                s.last_seq = pub.seq
                self._deliver_publication(s, pub)
        buffered, s.buffered = s.buffered, []
        for payload in sorted(buffered, key=lambda p: int(p.get("seq", 0))):
            self._apply_update(s, payload)

    def _drain(self, sock: zmq.Socket) -> int:
        delivered = 0
        ep = next(e for e, s in self._subs.items() if s is sock)
        only = self._sub_daemons[ep]
        while True:
            try:
                parts = sock.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return delivered
            now = time.monotonic()
            if len(only) == 1:
                self._heard(self._daemons[only[0]], now)
            if len(parts) == 2:
                delivered += self._on_message(parts[0], parts[1], only, now)

    def _on_message(self, topic_b: bytes, payload_b: bytes, daemons: list[int],
                    now: float) -> int:
        try:
            topic = topic_b.decode("utf-8")
        except UnicodeDecodeError:
            return 0
        parsed = parse_topic(topic)
        if parsed is None:
            return 0
        kind, key = parsed
        if kind == "signal" and not self.signals:
            return 0
        s = self._streams.get(key)
        if s is None:
            if not self._follow_all:
                return 0  # another stream whose topic starts like ours (BRK.B vs BRK.B.x)
            s = self._streams[key] = _Stream(key, now)
            if len(daemons) == 1:
                s.owner = daemons[0]
        if s.owner is not None:
            self._heard(self._daemons[s.owner], now)
        try:
            payload = json.loads(payload_b.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return 0
        if not isinstance(payload, dict):
            return 0
        if kind == "params":
            return self._apply_update(s, payload)
        return self._apply_signal(s, payload)

    def _apply_update(self, s: _Stream, payload: dict[str, Any]) -> int:
        if s.last_seq is None:
            s.buffered.append(payload)  # before the snapshot: kept, applied after it
            return 0
        try:
            pub = Publication.from_payload(payload)
        except (KeyError, TypeError, ValueError):
            return 0
        if pub.seq <= s.last_seq:
            return 0  # the snapshot (or an earlier update) already has it
        if pub.seq != s.last_seq + 1:
            self._gap(s)
        s.last_seq = pub.seq
        self._deliver_publication(s, pub)
        return 1

    def _apply_signal(self, s: _Stream, payload: dict[str, Any]) -> int:
        try:
            sig = Signal.from_payload(payload)
        except (KeyError, TypeError, ValueError):
            return 0
        if s.signal is not None and sig.ts <= s.signal.ts:
            return 0
        if (s.last_seq is not None and sig.params_seq > s.last_seq and not s.get_in_flight
                and not s.get_wanted):
            self._gap(s)  # it follows a publication this client has not seen
        s.signal = sig
        if self.on_signal:
            self.on_signal(sig)
        return 1

    def _gap(self, s: _Stream) -> None:
        self.gaps += 1
        if s.owner is not None and not s.get_in_flight:
            s.get_wanted = True
            s.next_get_at = 0.0

    def _deliver_publication(self, s: _Stream, pub: Publication) -> None:
        s.publication = pub
        if self.on_publication:
            self.on_publication(pub)
