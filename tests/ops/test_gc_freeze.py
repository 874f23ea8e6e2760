"""A served process leaves what it holds at start out of later garbage collections.

`app.web.serving.freeze_start_up_objects` (`gc.freeze` once the server has started): the
full collections that visited every module, route and template the process holds were
155-172 ms pauses on whichever request ran at the time.
"""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import uvicorn

from app.web.serving import GracefulServer


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    raise AssertionError("no request is made")


def test_a_started_server_freezes_what_it_holds() -> None:
    config = uvicorn.Config(_app, host="127.0.0.1", port=0, lifespan="off", log_config=None)
    server = GracefulServer(config)
    gc.unfreeze()
    before = gc.get_freeze_count()
    thread = threading.Thread(target=server.run, daemon=True)
    try:
        thread.start()
        deadline = time.monotonic() + 30
        while not gc.get_freeze_count() and time.monotonic() < deadline:
            time.sleep(0.01)  # `started` is set just before the freeze
        assert server.started
        frozen = gc.get_freeze_count()
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        gc.unfreeze()  # the rest of the suite collects as it did
    assert before == 0
    # the interpreter, pytest and the app's imports: tens of thousands of objects
    assert frozen > 10_000
    assert gc.get_freeze_count() == 0
