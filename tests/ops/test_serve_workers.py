"""`stratagem serve --workers N` and `stratagem migrate` as real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text

from app.db import (
    MIGRATION_LOCK_KEY,
    current_revisions,
    head_revisions,
    make_engine,
    migration_lock,
)
from tests.ops.conftest import REPO, Proc, wait_ready

CLI = [sys.executable, "-c", "from app.cli import main; main()"]


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO), **env}
    return subprocess.run(
        [*CLI, *args], cwd=REPO, env=full, capture_output=True, text=True, timeout=300
    )


def test_several_workers_without_a_secret_key_refuse_to_start(tmp_path) -> None:
    r = _cli(
        "serve", "--workers", "2", DATABASE_URL=f"sqlite:///{tmp_path / 'x.db'}",
        STRATAGEM_SECRET_KEY="",
    )  # fmt: skip
    assert r.returncode == 2
    assert "error: --workers 2: set STRATAGEM_SECRET_KEY" in r.stderr
    assert not (tmp_path / "x.db").exists()  # refused before touching the database


@pytest.mark.postgres
def test_migrate_takes_the_advisory_lock_serve_waits_for(pg_database: Callable[[], str]) -> None:
    url = pg_database()
    engine = make_engine(url)
    entered = threading.Event()
    with migration_lock(url):
        with engine.connect() as conn:  # another session cannot take the lock meanwhile
            got = conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
            assert got.scalar() is False

        def second() -> None:
            with migration_lock(url):
                entered.set()

        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.5)
        assert not entered.is_set()  # waits while the first holds it
    t.join(timeout=10)
    assert entered.is_set()

    r = _cli("migrate", DATABASE_URL=url)
    assert r.returncode == 0, r.stderr
    assert "Database at the latest migration." in r.stdout
    assert current_revisions(engine) == head_revisions()
    with engine.connect() as conn:  # released: free again
        assert conn.execute(
            text("SELECT pg_try_advisory_lock(:k)"), {"k": MIGRATION_LOCK_KEY}
        ).scalar()
    engine.dispose()


@pytest.mark.postgres
def test_two_workers_answer_and_metrics_add_up_across_them(
    pg_database: Callable[[], str], start_serve: Callable[..., Proc]
) -> None:
    proc = start_serve(pg_database(), "--workers", "2")
    wait_ready(proc)
    n = 30
    pids: set[str] = set()
    with httpx.Client(timeout=60) as c:
        for _ in range(n):
            r = c.post(
                f"{proc.base}/api/v1/estimate",
                json={"model": {"preset": "llama-3.1-8b"}, "task": "lora"},
            )
            assert r.status_code == 200
        for _ in range(40):
            pids.add(c.get(f"{proc.base}/api/v1/models").headers.get("x-request-id", ""))
        text_ = c.get(f"{proc.base}/metrics").text  # from 127.0.0.1: allowed by default
    total = sum(
        s.value
        for fam in text_string_to_metric_families(text_)
        for s in fam.samples
        if s.name == "stratagem_http_requests_total"
        and s.labels.get("route") == "/api/v1/estimate"
        and s.labels.get("status") == "200"
    )
    # Whichever worker answered /metrics, it reports both workers' requests.
    assert total == n
    out = proc.output()
    assert "2 processes" in out
    assert out.count('"message": "Started server process') == 2, out


def test_first_admin_hint_names_the_command_of_this_install(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.accounts.admin_hint import HINT
    from app.cli import _hint_for_this_install

    image_bin = tmp_path / "opt" / "venv" / "bin"
    image_bin.mkdir(parents=True)
    exe = image_bin / "stratagem"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{image_bin}:{os.environ['PATH']}")
    monkeypatch.setattr(sys, "argv", [str(exe), "serve"])  # as the image's CMD runs it
    assert "First admin: stratagem users create" in _hint_for_this_install(HINT)
    venv = REPO / ".venv" / "bin" / "stratagem"
    monkeypatch.setattr(sys, "argv", [str(venv), "serve"])  # make run, in a checkout
    if venv.exists():
        assert _hint_for_this_install(HINT) == HINT
