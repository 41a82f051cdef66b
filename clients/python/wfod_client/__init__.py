"""wfod_client: follow a wfod daemon's parameter updates and per-bar signals.

Five lines to act on a stream::

    from wfod_client import WfodClient
    client = WfodClient([("tcp://127.0.0.1:5560", "tcp://127.0.0.1:5561")], [("BTCUSD", "trend")],
                        on_signal=lambda s: print(s.stream, s.ts, "hold", s.position))
    while True:
        client.poll(1.0)

See docs/protocol.md "Consuming wfod" in the wfod repository.
"""

from .client import DaemonEndpoints, WfodClient
from .messages import Publication, Signal, StreamKey, parse_topic

__all__ = ["WfodClient", "DaemonEndpoints", "Publication", "Signal", "StreamKey", "parse_topic"]
__version__ = "1.1.0"
