"""Helpers for the service benchmarks: a fresh PostgreSQL database, `stratagem serve`
subprocesses on loopback ports, and `wrk` runs with p50/p95/p99 read from its Lua hook.

Loopback only (127.0.0.1), every run bounded by its duration; servers are stopped (their
whole process group) when the block ends.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


@contextlib.contextmanager
def fresh_database(server_url: str | None = None) -> Iterator[str]:
    """A new, empty database on the server of `server_url` (or TEST_POSTGRES_URL)."""
    base = make_url(server_url or os.environ.get("TEST_POSTGRES_URL") or DEFAULT_PG)
    admin = create_engine(base.set(database="postgres"), isolation_level="AUTOCOMMIT")
    name = f"stratagem_bench_{uuid.uuid4().hex[:8]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    base: str
    port: int
    log: Path
    pgid: int = 0  # the server's process group: uvicorn, its workers, PDF workers, Chromium


@contextlib.contextmanager
def serve(database_url: str, *, workers: int = 1, **env: str) -> Iterator[Server]:
    """`stratagem serve --workers N` on a free loopback port, ready when this yields."""
    port = free_port()
    log = Path(tempfile.mkstemp(prefix=f"stratagem-serve-{port}-", suffix=".log")[1])
    full_env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "STRATAGEM_SECRET_KEY": "benchmark-secret-key",
        "PYTHONPATH": str(REPO),
        **env,
    }
    full_env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    cmd = [sys.executable, "-c", "from app.cli import main; main()", "serve"]
    if cpus := env.pop("STRATAGEM_TASKSET", None):  # pin the server (and its children)
        cmd = ["taskset", "-c", cpus, *cmd]
        full_env.pop("STRATAGEM_TASKSET", None)
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=REPO, env=full_env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    server = Server(f"http://127.0.0.1:{port}", port, log, proc.pid)
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"serve exited {proc.returncode}: {log.read_text()[-2000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{server.base}/readyz", timeout=5).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"serve not ready: {log.read_text()[-2000:]}")
            time.sleep(0.3)
        yield server
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# --- CPU accounting ----------------------------------------------------------------------

TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_by_group(pgid: int) -> dict[str, float]:
    """CPU seconds so far: the server's process group, PostgreSQL, wrk, and the whole box."""
    out = {"app": 0.0, "postgres": 0.0, "wrk": 0.0}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        used = (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime
        if pgid and int(fields[2]) == pgid:
            out["app"] += used
        elif comm == "postgres":
            out["postgres"] += used
    # wrk runs and exits inside the measured block: its CPU is counted as a waited-for child.
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    out["wrk"] = children.ru_utime + children.ru_stime
    cpu = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    busy = sum(int(x) for i, x in enumerate(cpu[:8]) if i not in (3, 4))  # all but idle, iowait
    out["box"] = busy / TICKS
    return out


@contextlib.contextmanager
def cpu_share(pgid: int) -> Iterator[dict[str, float]]:
    """CPU used during the block, in % of one core: app / postgres / wrk / other / idle.

    Processes that exit during the block (PostgreSQL backends of closed connections) are
    missed, so their share shows under "other"; wrk is this process's child (its CPU is read
    from getrusage once it has been waited for), the app lives through the block.
    """
    result: dict[str, float] = {}
    before, t = _cpu_by_group(pgid), time.monotonic()
    yield result
    after, dt = _cpu_by_group(pgid), time.monotonic() - t
    share = {k: 100 * (after[k] - before[k]) / dt for k in after}
    share["other"] = share["box"] - share["app"] - share["postgres"] - share["wrk"]
    share["idle"] = 100 * (os.cpu_count() or 1) - share["box"]
    result.update(share)


def cpu_line(share: dict[str, float]) -> str:
    return (
        f"CPU % of one core: app {share['app']:.0f}, postgres {share['postgres']:.0f}, "
        f"wrk {share['wrk']:.0f}, other {share['other']:.0f}, idle {share['idle']:.0f} "
        f"(of {100 * (os.cpu_count() or 1)})"
    )


# --- wrk ---------------------------------------------------------------------------------

LUA_DONE = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max,
    e.connect + e.read + e.write + e.status + e.timeout))
end
"""


@dataclass
class LoadResult:
    requests: int
    seconds: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    errors: int

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def line(self) -> str:
        return (
            f"{self.rps:8.1f} req/s  p50 {self.p50_ms:7.1f} ms  p95 {self.p95_ms:7.1f} ms  "
            f"p99 {self.p99_ms:7.1f} ms  max {self.max_ms:7.1f} ms  errors {self.errors}"
        )


def wrk(
    url: str, lua: str, *, seconds: int, connections: int, threads: int = 1, cpu: str | None = None
) -> LoadResult:
    """One bounded `wrk` run against a loopback `url` with the Lua `lua` (+ the done hook),
    on the CPUs `cpu` (taskset list) when given."""
    if not url.startswith("http://127.0.0.1:"):
        raise ValueError("loopback only")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(lua + LUA_DONE)
        script = fh.name
    try:
        out = subprocess.run(
            [*(["taskset", "-c", cpu] if cpu else []),
             "wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s",
             "-s", script, url],
            capture_output=True, text=True, timeout=seconds + 60, check=True,
        ).stdout  # fmt: skip
    finally:
        os.unlink(script)
    fields = next(line for line in out.splitlines() if line.startswith("RESULT")).split()[1:]
    n, dur_us, p50, p95, p99, mx, errors = (int(x) for x in fields)
    return LoadResult(n, dur_us / 1e6, p50 / 1e3, p95 / 1e3, p99 / 1e3, mx / 1e3, errors)


def lua_post_json(path: str, bodies: list[str]) -> str:
    quoted = ", ".join("[[" + b + "]]" for b in bodies)
    return f"""
local bodies = {{{quoted}}}
local i = 0
request = function()
  i = i % #bodies + 1
  return wrk.format("POST", "{path}", {{["Content-Type"] = "application/json"}}, bodies[i])
end
"""


def lua_get_paths(paths: list[str], headers: dict[str, str]) -> str:
    quoted = ", ".join("[[" + p + "]]" for p in paths)
    hdrs = ", ".join(f'["{k}"] = "{v}"' for k, v in headers.items())
    return f"""
local paths = {{{quoted}}}
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], {{{hdrs}}})
end
"""


ESTIMATE_BODIES = [
    f'{{"model":{{"preset":"llama-3.1-8b"}},"task":"lora","dataset_gb":{gb}}}'
    for gb in (2, 5, 10, 20)
] + [
    '{"model":{"preset":"llama-2-13b"},"task":"full_finetune","tokens":2e9}',
    '{"model":{"preset":"llama-3.1-70b"},"task":"lora","dataset_gb":20,"deadline_days":7}',
    '{"model":{"preset":"llama-2-7b"},"task":"inference","precision":"int4","concurrency":200}',
    '{"model":{"preset":"llama-3.1-8b"},"task":"qlora","seq_len":8192}',
]
FRAGMENT_PATHS = (
    [f"/plan?seq_len={s}" for s in (1024, 2048, 4096, 8192)]
    + [f"/plan?dataset_gb={d}" for d in (2, 5, 10, 20)]
    + [f"/plan?deadline_days={d}" for d in (3, 7, 14, 30)]
    + [f"/plan?epochs={e}" for e in (1, 2, 3)]
)
FRAGMENT_HEADERS = {"HX-Request": "true", "Accept-Language": "zh-TW"}
