"""Real app processes (uvicorn in a subprocess) on a fresh PostgreSQL database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.scratch_db import scratch_databases

REPO = Path(__file__).resolve().parents[2]
SECRET = "two-processes-share-this-secret-key"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Proc:
    base: str
    popen: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def wait_ready(proc: Proc, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.popen.poll() is not None:
            raise AssertionError(f"{proc.base} exited {proc.popen.returncode}:\n{proc.output()}")
        try:
            if httpx.get(f"{proc.base}/readyz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise AssertionError(f"{proc.base} not ready in {timeout_s} s:\n{proc.output()}")


@pytest.fixture(scope="session")
def pg_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], str]]:
    """Makes throw-away PostgreSQL databases on TEST_POSTGRES_URL's server; drops them after."""
    with scratch_databases("postgres", tmp_path_factory.mktemp("pg")) as create:
        yield create


@pytest.fixture
def start_serve(tmp_path: Path) -> Iterator[Callable[..., Proc]]:
    """Starts `stratagem serve` (this checkout's) in a subprocess; stops them all after."""
    procs: list[Proc] = []

    def start(database_url: str, *args: str, **env: str) -> Proc:
        port = free_port()
        log = tmp_path / f"serve-{port}.log"
        full_env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "STRATAGEM_SECRET_KEY": SECRET,
            "STRATAGEM_PDF_WORKERS": "0",
            "PYTHONPATH": str(REPO),
            **env,
        }
        full_env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        cmd = [sys.executable, "-c", "from app.cli import main; main()", "serve"]
        with log.open("wb") as out:
            popen = subprocess.Popen(
                [*cmd, "--host", "127.0.0.1", "--port", str(port), *args],
                cwd=REPO,
                env=full_env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        proc = Proc(f"http://127.0.0.1:{port}", popen, log)
        procs.append(proc)
        return proc

    yield start
    for p in procs:
        if p.popen.poll() is None:
            os.killpg(p.popen.pid, 15)  # the serve process and its uvicorn workers
    for p in procs:
        try:
            p.popen.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.popen.pid, 9)
            p.popen.wait(timeout=10)
