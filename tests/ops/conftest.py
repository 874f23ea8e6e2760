"""Real app processes (uvicorn in a subprocess) on a fresh PostgreSQL database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.postgres import postgres_url

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
def pg_database() -> Iterator[Callable[[], str]]:
    """Makes throw-away PostgreSQL databases on TEST_POSTGRES_URL's server; drops them after."""
    base = make_url(postgres_url())
    admin = create_engine(base.set(database="postgres"), isolation_level="AUTOCOMMIT")
    made: list[str] = []

    def make() -> str:
        name = f"stratagem_ops_{uuid.uuid4().hex[:10]}"
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        made.append(name)
        return base.set(database=name).render_as_string(hide_password=False)

    yield make
    with admin.connect() as conn:
        for name in made:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


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
