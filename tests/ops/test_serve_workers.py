"""`stratagem serve --workers N` and `stratagem migrate` as real processes."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

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
from tests.ops import procs
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


# Each bad setting, and the one line that must name it (QA: 44–496 lines of traceback).
BAD_SETTINGS = [
    pytest.param(
        {"DATABASE_URL": "notaurl"},
        "error: DATABASE_URL (notaurl): not a database URL",
        id="not-a-url",
    ),
    pytest.param(
        {"DATABASE_URL": "mysql://a@b/c"},
        "error: DATABASE_URL (mysql://a@b/c): no driver for this database",
        id="no-driver",
    ),
    pytest.param(
        {"DATABASE_URL": "postgresql+psycopg://u:SuperSecretPW@127.0.0.1:1/x"},
        "error: DATABASE_URL (postgresql+psycopg://u:***@127.0.0.1:1/x): cannot open or "
        "reach the database",
        id="unreachable",
    ),
    pytest.param(
        {"DATABASE_URL": "sqlite:////proc/stratagem.db"},
        "error: DATABASE_URL (sqlite:////proc/stratagem.db): cannot",
        id="unwritable",
    ),
    pytest.param(
        {"STRATAGEM_WORKERS": "abc"},
        "error: STRATAGEM_WORKERS: Input should be a valid integer",
        id="workers",
    ),
    pytest.param(
        {"REDIS_URL": "notredis"},
        "error: REDIS_URL: must start with redis://, rediss:// or unix://",
        id="redis",
    ),
    # QA: each of these started, and then /metrics was a 500 on every scrape, pages showed
    # TWD, or every X-Forwarded-For was ignored.
    pytest.param(
        {"STRATAGEM_METRICS_ALLOW": "127.0.0.1, 300.1.1.1"},
        "error: STRATAGEM_METRICS_ALLOW: must be comma-separated IP addresses or networks "
        "(got '300.1.1.1')",
        id="metrics-allow",
    ),
    pytest.param(
        {"STRATAGEM_TRUSTED_PROXIES": "not-an-ip"},
        "error: STRATAGEM_TRUSTED_PROXIES: must be comma-separated IP addresses or networks "
        "(got 'not-an-ip')",
        id="trusted-proxies",
    ),
    pytest.param(
        {"STRATAGEM_CURRENCY": "EUR"},
        "error: STRATAGEM_CURRENCY: Input should be 'TWD' or 'USD'",
        id="currency",
    ),
]


@pytest.mark.parametrize("env, line", BAD_SETTINGS)
@pytest.mark.parametrize("command", ["serve", "migrate"])
def test_a_bad_setting_is_one_line_naming_it(
    tmp_path: Path, env: dict[str, str], line: str, command: str
) -> None:
    full = {"DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}", **env}
    r = _cli(command, "--port", "1", **full) if command == "serve" else _cli(command, **full)
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if not ln.startswith("warning: ")]
    assert len(errors) == 1 and errors[0].startswith(line), r.stderr
    assert "Traceback" not in r.stderr + r.stdout and "SuperSecretPW" not in r.stderr


def test_a_short_secret_key_is_warned_about(tmp_path: Path) -> None:
    r = _cli(
        "serve", "--port", "1", DATABASE_URL="notaurl", STRATAGEM_SECRET_KEY="x" * 12
    )  # fmt: skip
    assert "warning: STRATAGEM_SECRET_KEY is only 12 characters long" in r.stderr


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
    assert "created at the latest migration (" in r.stdout  # a new database: all applied
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


# --- the supervisor: one SO_REUSEPORT socket per worker (app.web.serving) ---------------------


def _workers(parent: int) -> list[int]:
    """The uvicorn workers of `serve` (spawned children; not multiprocessing's tracker)."""
    return [p for p in procs.children(parent) if b"spawn_main" in procs.cmdline(p)]


def _established_by_pid(port: int, pids: list[int]) -> dict[int, int]:
    """How many established TCP connections to `port` each process holds (from /proc)."""
    inodes: dict[str, int] = {}
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                link = os.readlink(fd)
                if link.startswith("socket:["):
                    inodes[link[8:-1]] = pid
    counts = dict.fromkeys(pids, 0)
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == "01" and fields[9] in inodes:  # ESTABLISHED
                counts[inodes[fields[9]]] += 1
    return counts


@pytest.mark.postgres
def test_a_burst_of_keep_alive_connections_spreads_over_both_workers(
    pg_database: Callable[[], str], start_serve: Callable[..., Proc]
) -> None:
    """With one shared socket, the worker that woke first accepted the whole burst (asyncio
    accepts up to `backlog` connections per wake-up) and kept it: 20/0. With a socket per
    worker the kernel spreads new connections by hash: binomial(20, ½), so a worker with
    none has probability 2 × 2⁻²⁰."""
    proc = start_serve(pg_database(), "--workers", "2")
    wait_ready(proc)
    port = int(proc.base.rsplit(":", 1)[1])
    workers = _workers(proc.popen.pid)
    assert len(workers) == 2
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]  # all at once
    try:
        for s in socks:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n")
        for s in socks:
            assert s.recv(4096).startswith(b"HTTP/1.1 200")
        counts = _established_by_pid(port, workers)
    finally:
        for s in socks:
            s.close()
    assert sum(counts.values()) == 20
    assert all(n >= 1 for n in counts.values()), counts


@pytest.mark.postgres
def test_a_worker_that_dies_is_replaced_and_sigterm_stops_them_all(
    pg_database: Callable[[], str], start_serve: Callable[..., Proc]
) -> None:
    proc = start_serve(pg_database(), "--workers", "2")
    wait_ready(proc)
    first, second = _workers(proc.popen.pid)
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        now = _workers(proc.popen.pid)
        if len(now) == 2 and first not in now:
            break
        time.sleep(0.25)
    now = _workers(proc.popen.pid)
    assert len(now) == 2 and first not in now and second in now
    for _ in range(10):  # the new worker serves as well
        assert httpx.get(f"{proc.base}/healthz", timeout=30).status_code == 200
    assert "died (exit code -9); starting another" in proc.output()

    os.kill(proc.popen.pid, signal.SIGTERM)  # the parent only, as a service manager does
    assert proc.popen.wait(timeout=60) == 0
    assert not [p for p in now if Path(f"/proc/{p}").exists()]


@pytest.mark.postgres
def test_a_second_server_on_a_taken_port_refuses_to_start(
    pg_database: Callable[[], str], start_serve: Callable[..., Proc]
) -> None:
    """SO_REUSEPORT would let a second server's workers quietly share the first's port."""
    url = pg_database()
    proc = start_serve(url, "--workers", "2")
    wait_ready(proc)
    port = proc.base.rsplit(":", 1)[1]
    r = _cli(
        "serve", "--host", "127.0.0.1", "--port", port, "--workers", "2",
        DATABASE_URL=url, STRATAGEM_SECRET_KEY="two-processes-share-this-secret-key",
        STRATAGEM_PDF_WORKERS="0",
    )  # fmt: skip
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"error: --port {port}: 127.0.0.1:{port} is already in use" in r.stderr


@pytest.mark.parametrize(
    ("port", "message"),
    [
        ("0", "error: --port 0: name the port --workers 2 processes share"),
        ("70000", "Invalid value for '--port'"),
    ],
)
def test_a_port_the_workers_cannot_share_is_refused_before_the_database(
    tmp_path: Path, port: str, message: str
) -> None:
    r = _cli(
        "serve", "--port", port, "--workers", "2",
        DATABASE_URL=f"sqlite:///{tmp_path / 'x.db'}", STRATAGEM_SECRET_KEY="k" * 32,
    )  # fmt: skip
    assert r.returncode == 2
    assert message in r.stderr
    assert not (tmp_path / "x.db").exists()


def test_the_bare_alembic_command_uses_database_url(tmp_path: Path) -> None:
    """alembic.ini names no database: `alembic current` takes DATABASE_URL, as the app does
    (it stopped at `assert url is not None`)."""
    url = f"sqlite:///{tmp_path / 'a.db'}"
    assert _cli("migrate", DATABASE_URL=url).returncode == 0
    r = subprocess.run(
        [sys.executable, "-m", "alembic", "current"], cwd=REPO, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "DATABASE_URL": url}, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "(head)" in r.stdout


def test_one_process_on_a_taken_port_says_so_before_the_banner(tmp_path: Path) -> None:
    """One process: it printed "Stratagem on http://…" and migrated, then uvicorn logged the
    bind error and the command exited 0."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        r = _cli(
            "serve", "--host", "127.0.0.1", "--port", port,
            DATABASE_URL=f"sqlite:///{tmp_path / 'x.db'}", STRATAGEM_SECRET_KEY="k" * 32,
        )  # fmt: skip
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"error: --port {port}: 127.0.0.1:{port} is already in use" in r.stderr
    assert "Stratagem on" not in r.stdout
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize(
    ("host", "message"),
    [
        # TEST-NET-1 (RFC 5737): never an address of this machine.
        ("192.0.2.1", "error: --host 192.0.2.1: 192.0.2.1 is not an address of this machine"),
        ("no-such-host.invalid", "error: --host no-such-host.invalid: no-such-host.invalid is not"),
    ],
)
def test_a_host_this_machine_cannot_listen_on_is_named(
    tmp_path: Path, host: str, message: str
) -> None:
    r = _cli(
        "serve", "--host", host, "--port", "8000",
        DATABASE_URL=f"sqlite:///{tmp_path / 'x.db'}", STRATAGEM_SECRET_KEY="k" * 32,
    )  # fmt: skip
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr
    assert "already in use" not in r.stderr
    assert not (tmp_path / "x.db").exists()


def test_good_network_and_currency_settings_are_kept() -> None:
    from app.settings import Settings

    s = Settings(
        STRATAGEM_METRICS_ALLOW="127.0.0.1, ::1, 10.0.0.0/8",
        STRATAGEM_TRUSTED_PROXIES="*",
        STRATAGEM_CURRENCY="usd",
    )
    assert (s.metrics_allow, s.trusted_proxies, s.default_currency) == (
        "127.0.0.1, ::1, 10.0.0.0/8",
        "*",
        "USD",
    )


def test_serve_on_a_file_that_is_no_sqlite_database_is_one_line(tmp_path: Path) -> None:
    """QA: a text file at DATABASE_URL's path ended `serve` in a traceback."""
    junk = tmp_path / "notes.db"
    junk.write_text("hello\n")
    r = _cli("serve", "--port", "1", DATABASE_URL=f"sqlite:///{junk}")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        f"error: DATABASE_URL (sqlite:///{junk}): not a usable SQLite database: "
        "file is not a database"
    )
    assert "Traceback" not in r.stderr + r.stdout
