"""A worker that is slow to start is waited for; one hung in its start is replaced.

QA: under load a spawned worker took longer than uvicorn's 5 s health check to start the
thread that answers it, and the supervisor killed it as hung and started another, which met
the same fate. Here the check is 1 s and the worker takes 4 s (tests/ops/start_grace_app.py).
"""

from __future__ import annotations

import socket
import time

import httpx
import uvicorn

from app.web.serving import Supervisor
from tests.ops.start_grace_app import SLOW_START_S, HungStartProcess, SlowStartProcess


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _supervisor(port: int) -> Supervisor:
    config = uvicorn.Config(
        "tests.ops.start_grace_app:app",
        host="127.0.0.1",
        port=port,
        timeout_worker_healthcheck=1,
        log_level="warning",
    )
    return Supervisor(config, 1)


def _stop(sup: Supervisor) -> None:
    for process in sup.processes:
        process.kill()
        process.join()


def test_a_worker_slower_to_start_than_the_health_check_is_not_killed() -> None:
    port = _free_port()
    sup = _supervisor(port)
    sup.process_class = SlowStartProcess
    sup.processes = [sup._start_one()]
    pid = sup.processes[0].pid
    served = False
    deadline = time.monotonic() + SLOW_START_S + 30
    try:
        while not served and time.monotonic() < deadline:
            sup._keep_alive()
            assert sup.processes[0].pid == pid, "the starting worker was killed as hung"
            try:
                served = httpx.get(f"http://127.0.0.1:{port}/", timeout=1).text == "ok"
            except httpx.HTTPError:
                time.sleep(0.5)
        assert served
        # Started: from now on the full health check applies, and it answers.
        sup._keep_alive()
        assert sup.processes[0].pid == pid
    finally:
        _stop(sup)


def test_a_worker_hung_in_its_start_is_replaced_after_the_grace() -> None:
    sup = _supervisor(_free_port())
    sup.process_class = HungStartProcess
    sup.start_grace_s = 2.0
    sup.processes = [sup._start_one()]
    first = sup.processes[0].pid
    try:
        sup._keep_alive()
        assert sup.processes[0].pid == first  # within the grace: waited for
        time.sleep(sup.start_grace_s + 0.5)
        sup._keep_alive()
        assert sup.processes[0].pid != first  # past it: killed and replaced
        assert not sup.failed
    finally:
        _stop(sup)
