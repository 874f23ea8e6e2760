"""SIGTERM stops `stratagem serve` gracefully, with one process or several: the request in
flight is answered, the exit status is 0, and the PDF pool leaves nothing behind.

QA: one process exited 143 (uvicorn raised the SIGTERM again after its shutdown, so the
process died of it) where `--workers 2` exited 0, and both printed the resource tracker's
"There appear to be N leaked semaphore objects" once the PDF pool had started: a process
killed by a signal never runs the finalizers that remove the pool's semaphores.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.ops import procs
from tests.ops.conftest import Proc, wait_ready

ESTIMATE = json.dumps({"model": {"preset": "llama-3.1-8b"}, "task": "lora"}).encode()


def _descendants(pid: int) -> list[int]:
    out, pending = [], [pid]
    while pending:
        for child in procs.children(pending.pop()):
            out.append(child)
            pending.append(child)
    return out


def _wait_gone(pids: list[int], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if all(procs.state(p) in ("gone", "Z") for p in pids):
            return
        time.sleep(0.2)
    raise AssertionError(f"still running: {[p for p in pids if procs.state(p) != 'gone']}")


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_answers_the_request_in_flight_and_exits_0(
    workers: int, tmp_path: Path, start_serve: Callable[..., Proc]
) -> None:
    proc = start_serve(
        f"sqlite:///{tmp_path / 'app.db'}",
        "--workers",
        str(workers),
        # The pool (and its semaphores) is made at start, as a first quote would make it.
        STRATAGEM_PDF_WORKERS="1",
        STRATAGEM_PDF_WARM="1",
    )
    wait_ready(proc)
    # Every worker serving, not only the one /readyz reached: a connection the kernel queued
    # on a worker still starting (SO_REUSEPORT, a socket each) is reset when that worker's
    # socket closes, before the worker ever saw the request (seen once under a loaded suite).
    deadline = time.monotonic() + 60
    while proc.output().count("Application startup complete") < workers:
        assert time.monotonic() < deadline, proc.output()
        time.sleep(0.2)
    everyone = _descendants(proc.popen.pid)  # workers, PDF pools, resource trackers
    port = int(proc.base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        head = (
            f"POST /api/v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(ESTIMATE)}\r\n\r\n"
        ).encode()
        sock.sendall(head + ESTIMATE[:10])  # in flight: its body not all sent yet
        time.sleep(1.0)
        os.kill(proc.popen.pid, signal.SIGTERM)  # the parent only, as a service manager does
        time.sleep(1.5)
        assert proc.popen.poll() is None, proc.output()  # waiting for the request
        sock.sendall(ESTIMATE[10:])
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            assert chunk, answer
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
    assert proc.popen.wait(timeout=120) == 0, proc.output()
    _wait_gone(everyone, timeout_s=60)  # the resource tracker writes its warning as it ends
    assert "leaked" not in proc.output(), proc.output()
