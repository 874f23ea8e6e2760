"""Worker processes that take their time to start, for tests/ops/test_start_grace.py.

Importable by the spawned worker (it unpickles these classes): the sleep stands for a fresh
interpreter on a saturated machine, before the worker's pong thread runs.
"""

from __future__ import annotations

import socket
import time
from typing import Any

from app.web.serving import OwnSocketProcess

SLOW_START_S = 4.0


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The smallest ASGI app: 200 "ok" to any HTTP request."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


class SlowStartProcess(OwnSocketProcess):
    def target(self, sockets: list[socket.socket] | None = None) -> None:
        time.sleep(SLOW_START_S)
        super().target(sockets)


class HungStartProcess(OwnSocketProcess):
    def target(self, sockets: list[socket.socket] | None = None) -> None:
        time.sleep(3600)
