"""What a wfod daemon sends (PROTOCOL §2, §2a), as typed values, and its topic names.

A topic is ``params.<SYMBOL>.<STRATEGY>`` or ``signal.<SYMBOL>.<STRATEGY>``. Symbols may
contain ``.`` (``BRK.B``) but strategy names may not, so the strategy is the text after the
last ``.``. ZeroMQ subscriptions are prefix matches (``params.BRK.B`` matches
``params.BRK.B.x`` too): a client compares whole topics, never prefixes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional

PARAMS_PREFIX = "params."
SIGNAL_PREFIX = "signal."


class StreamKey(NamedTuple):
    """One (symbol, strategy) stream of a daemon."""

    symbol: str
    strategy: str

    def params_topic(self) -> str:
        """The exact topic of its publications."""
        return f"{PARAMS_PREFIX}{self.symbol}.{self.strategy}"

    def signal_topic(self) -> str:
        """The exact topic of its per-bar signals."""
        return f"{SIGNAL_PREFIX}{self.symbol}.{self.strategy}"

    def __str__(self) -> str:
        return f"{self.symbol}.{self.strategy}"


def parse_topic(topic: str) -> Optional[tuple[str, StreamKey]]:
    """Splits ``params.S.N`` / ``signal.S.N`` into its kind and stream; None otherwise."""
    for kind, prefix in (("params", PARAMS_PREFIX), ("signal", SIGNAL_PREFIX)):
        if topic.startswith(prefix):
            rest = topic[len(prefix):]
            symbol, dot, strategy = rest.rpartition(".")
            if not dot or not symbol or not strategy:
                return None
            return kind, StreamKey(symbol, strategy)
    return None


@dataclass(frozen=True)
class Publication:
    """One parameter update (PROTOCOL §2): the combo a stream's last optimisation chose.

    ``position`` is the combo's p_T at the window's last bar (``position_ts``), what it holds
    from the next bar on; None when the daemon sent none (a v1 daemon). ``from_snapshot`` is
    True when it came from a ``get`` reply rather than the PUB socket.
    """

    stream: StreamKey
    seq: int
    id: int
    params: dict[str, Any]
    position: Optional[int]
    position_ts: Optional[int]
    window_last_ts: int
    payload: dict[str, Any] = field(repr=False)
    from_snapshot: bool = False

    @staticmethod
    def from_payload(payload: dict[str, Any], from_snapshot: bool = False) -> "Publication":
        """Builds it from a parsed payload; KeyError/TypeError when a field is missing."""
        pos = payload.get("position")
        return Publication(
            stream=StreamKey(str(payload["symbol"]), str(payload["strategy"])),
            seq=int(payload["seq"]),
            id=int(payload["id"]),
            params=dict(payload["params"]),
            position=int(pos["value"]) if isinstance(pos, dict) else None,
            position_ts=int(pos["ts"]) if isinstance(pos, dict) else None,
            window_last_ts=int(payload["window"]["last_ts"]),
            payload=payload,
            from_snapshot=from_snapshot,
        )


@dataclass(frozen=True)
class Signal:
    """One per-bar signal (PROTOCOL §2a): p_t of the published combo at bar ``ts`` (ns)."""

    stream: StreamKey
    ts: int
    position: int
    id: int
    params_seq: int

    @staticmethod
    def from_payload(payload: dict[str, Any]) -> "Signal":
        """Builds it from a parsed payload; KeyError/TypeError when a field is missing."""
        return Signal(
            stream=StreamKey(str(payload["symbol"]), str(payload["strategy"])),
            ts=int(payload["ts"]),
            position=int(payload["position"]),
            id=int(payload["id"]),
            params_seq=int(payload["params_seq"]),
        )
