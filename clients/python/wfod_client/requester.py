"""A daemon's snapshot socket (PROTOCOL §3) asked without ever blocking or getting stuck.

A ZeroMQ REQ socket whose peer died never gets its reply and refuses to send again, so
each request has a deadline: past it the socket is closed (linger 0) and a fresh one made
(the zguide's "lazy pirate"), and the caller hears ``None``. One request is in flight at a
time; the others wait in order.
"""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any, Callable, Optional

import zmq

ReplyHandler = Callable[[Optional[dict[str, Any]]], None]


class Requester:
    """Requests to one snapshot endpoint, answered through callbacks from ``on_readable``
    (a reply) or ``check_deadline`` (``None``: no reply in time, or not JSON)."""

    def __init__(self, context: zmq.Context, endpoint: str, timeout_s: float) -> None:
        self.endpoint = endpoint
        self.timeout_s = timeout_s
        self._context = context
        self._socket: Optional[zmq.Socket] = None
        self._in_flight: Optional[tuple[ReplyHandler, float]] = None
        self._queue: deque[tuple[list[str], ReplyHandler]] = deque()
        self.timeouts = 0  # requests that got no reply in time (the socket was remade)

    @property
    def socket(self) -> Optional[zmq.Socket]:
        """The socket to poll for a reply; None while nothing is in flight."""
        return self._socket if self._in_flight else None

    def busy(self) -> bool:
        """A request is in flight or queued."""
        return self._in_flight is not None or bool(self._queue)

    def submit(self, frames: list[str], on_reply: ReplyHandler) -> None:
        """Queues a request (e.g. ``["get", "BTCUSD", "trend"]``); sent when its turn comes."""
        self._queue.append((frames, on_reply))
        self._send_next()

    def on_readable(self) -> None:
        """Takes the reply of the request in flight and hands it to its handler."""
        if self._socket is None or self._in_flight is None:
            return
        try:
            parts = self._socket.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            return
        handler, _ = self._in_flight
        self._in_flight = None
        try:
            reply = json.loads(b"".join(parts).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            reply = None
        if not isinstance(reply, dict):
            reply = None
        self._send_next()
        handler(reply)

    def check_deadline(self, now: float) -> None:
        """Past the deadline: a fresh socket, the handler told ``None``, the next one sent."""
        if self._in_flight is None or now < self._in_flight[1]:
            return
        handler, _ = self._in_flight
        self._in_flight = None
        self.timeouts += 1
        self._close_socket()
        self._send_next()
        handler(None)

    def close(self) -> None:
        """Closes the socket; queued requests are dropped unanswered."""
        self._queue.clear()
        self._in_flight = None
        self._close_socket()

    def _close_socket(self) -> None:
        if self._socket is not None:
            self._socket.close(linger=0)
            self._socket = None

    def _send_next(self) -> None:
        if self._in_flight is not None or not self._queue:
            return
        if self._socket is None:
            self._socket = self._context.socket(zmq.REQ)
            self._socket.setsockopt(zmq.LINGER, 0)
            self._socket.connect(self.endpoint)
        frames, handler = self._queue.popleft()
        deadline = time.monotonic() + self.timeout_s
        try:
            # connect() made the pipe (ZMQ_IMMEDIATE off): the request queues even before
            # the peer is up, and the deadline covers a peer that never comes.
            self._socket.send_multipart([f.encode("utf-8") for f in frames], zmq.NOBLOCK)
        except zmq.Again:
            deadline = 0.0  # answered None by the next check_deadline
        self._in_flight = (handler, deadline)
