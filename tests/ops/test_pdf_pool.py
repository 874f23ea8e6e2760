"""PDF quotes rendered in the worker pool: the same document, cached the same way."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.accounts.models import User
from app.main import create_app
from app.plans.models import Plan
from app.quotes import pdf, worker
from app.settings import Settings
from tests.accounts.helpers import make_account
from tests.ops import procs
from tests.plan_quotes import create_plan


def _text(data: bytes, tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(data)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def plan_id(client: TestClient) -> int:
    return int(create_plan(client, make_account(client, "sales"))["id"])


def test_the_pool_renders_in_another_process_the_same_quote_as_inline(
    client: TestClient, plan_id: int, tmp_path: Path
) -> None:
    assert worker.pool_size() >= 1  # the default settings: a pool of one
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        pooled = pdf.render_quote_pdf(plan, lang="en", session=s)
        inline = pdf.write_pdf(plan, lang="en", session=s)
    pool = worker._pool
    assert pool is not None
    pids = {p.pid for p in pool._processes.values()}  # type: ignore[attr-defined]
    assert pids and os.getpid() not in pids
    assert pooled.startswith(b"%PDF-")
    assert _text(pooled, tmp_path, "pooled") == _text(inline, tmp_path, "inline")
    assert plan.quote_number in _text(pooled, tmp_path, "pooled")


def test_the_priority_setting_reaches_the_pool(tmp_path: Path) -> None:
    """STRATAGEM_PDF_PRIORITY=nice is the priority the workers start at (a second, bare
    `configure` call once put every app back to the default 'idle')."""
    settings = Settings(
        DATABASE_URL=f"sqlite:///{tmp_path / 'p.db'}",
        STRATAGEM_SECRET_KEY="test-secret",
        STRATAGEM_PDF_PRIORITY="nice",
    )
    try:
        create_app(settings)
        assert worker._priority == "nice"
        create_app(Settings(DATABASE_URL=f"sqlite:///{tmp_path / 'p.db'}",
                            STRATAGEM_SECRET_KEY="test-secret"))  # fmt: skip
        assert worker._priority == "idle"  # the default
    finally:
        worker.configure(1)


def test_cached_bytes_come_back_until_the_plan_or_the_seller_changes(
    client: TestClient, plan_id: int, tmp_path: Path
) -> None:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        first = pdf.render_quote_pdf(plan, lang="zh-TW", session=s)
        assert pdf.render_quote_pdf(plan, lang="zh-TW", session=s) == first  # cached: same bytes
        owner = s.get(User, plan.owner_id)
        assert owner is not None
        owner.name = "Renamed Seller"
        s.add(owner)
        s.commit()
        s.refresh(plan)
        renamed = pdf.render_quote_pdf(plan, lang="zh-TW", session=s)
    assert "Renamed Seller" in _text(renamed, tmp_path, "renamed")
    assert "Renamed Seller" not in _text(first, tmp_path, "first")


def test_quotes_over_http_come_from_the_pool(client: TestClient) -> None:
    who = make_account(client, "sales")
    plan = create_plan(client, who)
    r = client.get(f"/api/v1/plans/{plan['id']}/pdf?lang=en", headers=who.headers)
    assert r.status_code == 200 and r.content.startswith(b"%PDF-")
    assert (
        r.headers["content-disposition"] == f'attachment; filename="{plan["quote_number"]}-en.pdf"'
    )


def test_no_pool_renders_inline(client: TestClient, plan_id: int) -> None:
    size = worker.pool_size()
    worker.configure(0)
    try:
        with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
            plan = s.get(Plan, plan_id)
            assert plan is not None
            assert pdf.render_quote_pdf(plan, lang="en", session=s).startswith(b"%PDF-")
        assert worker._pool is None
    finally:
        worker.configure(size)


def test_pool_workers_and_their_chromium_run_as_background_work(
    client: TestClient, plan_id: int
) -> None:
    """SCHED_IDLE: the kernel gives a PDF worker (and the Chromium it started, which inherits
    the policy) only CPU time no normal-priority process wants."""
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        pdf._pdfs.clear()
        assert pdf.render_quote_pdf(plan, lang="zh-TW", session=s).startswith(b"%PDF-")
    pool = worker._pool
    assert pool is not None
    for pid in [p.pid for p in pool._processes.values()]:  # type: ignore[attr-defined]
        assert os.sched_getscheduler(pid) == os.SCHED_IDLE
        family, todo = [], [pid]
        while todo:
            kids = procs.children(todo.pop())
            family += kids
            todo += kids
        assert family, "the worker drew the charts: its Chromium runs under it"
        assert all(
            os.sched_getscheduler(k) == os.SCHED_IDLE for k in family if Path(f"/proc/{k}").exists()
        )
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the app's own process is untouched


# Linux lets a process leave SCHED_IDLE only with CAP_SYS_NICE or a raised RLIMIT_NICE, which
# an unprivileged user cannot raise (sched(7)). CI runs as root and runs this test; the image's
# non-root user gets "where permitted" (`_normal_priority` then leaves the worker as it is).
@pytest.mark.skipif(os.geteuid() != 0, reason="leaving SCHED_IDLE needs root or RLIMIT_NICE")
def test_a_stuck_worker_is_put_back_to_normal_priority_before_it_is_killed() -> None:
    """A killed process runs its own exit: under SCHED_IDLE on a busy machine that took
    8 s for a 300 MB worker (0.03 s once lifted; four busy loops on two cores), long
    enough for CI to see the 'stopped' worker alive 10 s after the kill."""
    code = (
        "import os, threading, time; os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0)); "
    )
    code += "threading.Thread(target=time.sleep, args=(60,)).start(); print('ready', flush=True); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        threads = [int(t) for t in os.listdir(f"/proc/{child.pid}/task")]
        assert len(threads) == 2
        assert all(os.sched_getscheduler(t) == os.SCHED_IDLE for t in threads)
        worker._normal_priority(child.pid)
        assert all(os.sched_getscheduler(t) == os.SCHED_OTHER for t in threads)  # every thread
    finally:
        child.kill()
        child.wait()


def _chromium_under(pid: int) -> list[int]:
    """Descendants of `pid` whose command line names Chromium (not the short-lived helpers,
    such as the shell commands of Debian's /usr/bin/chromium wrapper, that come and go)."""
    found, todo = [], [pid]
    while todo:
        for kid in procs.children(todo.pop()):
            todo.append(kid)
            if b"chrom" in procs.cmdline(kid).lower():
                found.append(kid)
    return found


def test_pdf_warm_starts_the_worker_with_the_app(settings: Settings) -> None:
    warm = settings.model_copy(update={"pdf_warm": True})
    size = worker.pool_size()
    worker.shutdown()
    try:
        with TestClient(create_app(warm)):
            pool = worker._pool
            assert pool is not None  # started by the app's start-up, before any quote
            # the warm-up ran in the worker: its Chromium is already up, and stays up
            deadline = time.monotonic() + 120
            pids = [p.pid for p in pool._processes.values()]  # type: ignore[attr-defined]
            while time.monotonic() < deadline and not any(_chromium_under(p) for p in pids):
                time.sleep(0.2)
            time.sleep(1.0)
            assert any(_chromium_under(p) for p in pids)
    finally:
        worker.configure(size)


_APP_WITH_A_POOL = """
import os, sys, time
from app.quotes import worker
if __name__ == "__main__":
    worker.configure(1, "idle")
    worker.warm(os.getpid)  # starts the worker process
    pool = worker._pool
    while not pool._processes:
        time.sleep(0.05)
    print(next(iter(pool._processes)), flush=True)
    time.sleep(600)
"""


def test_a_pool_worker_ends_when_the_app_process_is_killed(tmp_path: Path) -> None:
    """A pool worker blocks on its task queue and would otherwise outlive an app killed
    without a clean shutdown (SIGKILL, an OOM kill), with its Chromium, reparented to
    PID 1. It checks its parent every PARENT_CHECK_S seconds. The app is killed while the
    worker may still be starting: the worker must know the app by its pid, not by whoever
    its parent is when it gets there."""
    script = tmp_path / "app_with_a_pool.py"
    script.write_text(_APP_WITH_A_POOL)
    repo = Path(__file__).resolve().parents[2]
    app = subprocess.Popen(
        [sys.executable, str(script)], cwd=repo, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )  # fmt: skip
    try:
        assert app.stdout is not None
        child = int(app.stdout.readline())
        assert Path(f"/proc/{child}").exists()
        app.kill()
        app.wait(timeout=10)
        deadline = time.monotonic() + 10 * worker.PARENT_CHECK_S
        while time.monotonic() < deadline and Path(f"/proc/{child}").exists():
            time.sleep(0.1)
        gone = not Path(f"/proc/{child}").exists() or procs.state(child) == "Z"
        assert gone, f"worker {child} outlived the app"
    finally:
        if app.poll() is None:
            app.kill()
