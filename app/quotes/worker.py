"""PDF quotes rendered in worker processes, so a burst of quotes never stalls the planner.

A quote costs ≈1–2 s of CPU (kaleido's charts, then WeasyPrint's layout, which holds the
GIL throughout). Rendered in a request thread, that time is taken from every other request
of the process. Here it runs in a small `ProcessPoolExecutor`:

* **bounded**: `STRATAGEM_PDF_WORKERS` processes per app process (default 1); more
  concurrent quotes wait their turn in the pool's queue, never in the planner's threads;
* **lazy**: started by the first quote, so an app that never prints spends no memory on
  it (each worker runs its own headless Chromium for kaleido once it draws a chart);
* **background priority**: workers run under Linux's `SCHED_IDLE` policy
  (`STRATAGEM_PDF_PRIORITY=idle`, the default),
  inherited by the Chromium they start, so the kernel runs a quote only on CPU time that
  nothing else wants: on a busy machine the planner's requests go first and the quote
  takes longer instead (on a machine that stays saturated, it waits). With `nice`, or
  where SCHED_IDLE is not available or not permitted, they are niced (`PDF_NICE`);
* **spawned**, not forked: a fork of the threaded server (kaleido's threads, the database
  pool) could inherit held locks.

The request's process keeps the cache of finished PDFs (app.quotes.pdf); a worker gets a
snapshot of the plan row and the database URL, opens its own session (for the seller's
name and the plan's price list), renders, and returns the bytes. `STRATAGEM_PDF_WORKERS=0`,
or an in-memory SQLite database no other process can open, renders in the calling process.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any, Final, TypeVar

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.errors import Unavailable
from app.i18n import N_
from app.plans.models import Plan

log = logging.getLogger("stratagem.quotes")

PDF_NICE: Final = 10
#: A quote that takes longer has something stuck (each chart has its own 30 s limit).
RENDER_TIMEOUT_S: Final = 180.0

_size = 0
_priority = "idle"
_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()


def configure(size: int, priority: str = "idle") -> None:
    """Use `size` worker processes at `priority` ("idle" | "nice") from now on (0: render in
    the calling process)."""
    global _size, _priority
    with _lock:
        if size != _size or priority != _priority:
            _shutdown_locked()
        _size, _priority = size, priority


def shutdown() -> None:
    """Stop the pool and wait until its processes have ended (the app's stop calls this)."""
    with _lock:
        _shutdown_locked()


def _shutdown_locked() -> None:
    """End the pool's processes now and wait for them.

    They are killed, not asked: the server answers its requests in flight before the app
    stops, so nothing a user waits for runs here (a start-up warm-up at most), and a
    warm-up can take seconds. Then `shutdown(wait=True)` reaps them. A `wait=False`
    shutdown raced the interpreter's exit: measured with `serve --workers 2` and
    STRATAGEM_PDF_WARM, a SIGTERM soon after start left each app process joining a pool
    worker that never got its stop (multiprocessing's exit had closed the queue before the
    executor's thread wrote to it), so the server never exited.
    """
    global _pool
    if _pool is not None:
        pool, _pool = _pool, None
        _terminate(pool)
        pool.shutdown(wait=True, cancel_futures=True)


def pool_size() -> int:
    return _size


def _get_pool() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(
                max_workers=_size,
                mp_context=get_context("spawn"),
                initializer=_init_worker,
                initargs=(_priority, PDF_NICE, os.getpid()),
            )
        return _pool


def _reset(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


def database_url(session: Session) -> str | None:
    """The URL a worker can open for `session`'s database, or None (in-memory SQLite)."""
    bind: Any = session.get_bind()
    url = getattr(bind, "url", None)
    if url is None:
        return None
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return None
    rendered: str = url.render_as_string(hide_password=False)
    return rendered


def snapshot(plan: Plan) -> dict[str, Any]:
    """The plan row's columns: what a worker needs to rebuild the same `Plan`."""
    return {c.name: getattr(plan, c.name) for c in Plan.__table__.columns}  # type: ignore[attr-defined]


T = TypeVar("T")
# write(plan, *, lang, session, letterhead) -> the rendered PDF (picklable)
Write = Callable[..., T]


def render(
    plan: Plan,
    *,
    lang: str,
    session: Session,
    write: Write[T],
    forget: Callable[[], None],
    letterhead: dict[str, str] | None = None,
) -> T:
    """`write(plan, lang=lang, session=…)`, in a worker process when there is a pool.

    `write` and `forget` (drops the worker's per-database caches when it is handed another
    database) must be module-level functions: they are sent to the worker by name.
    """
    url = database_url(session)
    if _size <= 0 or url is None:
        return write(plan, lang=lang, session=session, letterhead=letterhead)
    data = snapshot(plan)
    for attempt in (1, 2):
        pool = _get_pool()
        try:
            job = pool.submit(_render_in_worker, write, forget, url, data, lang, letterhead)
            result: T = job.result(RENDER_TIMEOUT_S)
            return result
        except TimeoutError:
            # The worker is stuck (a Chromium that never answers): a new pool, and a 503
            # the user can retry, rather than a 500 or a request that hangs.
            log.error(
                "PDF worker did not answer within %s s; starting a new pool", RENDER_TIMEOUT_S
            )
            _terminate(pool)  # before the reset, which forgets the pool's processes
            _reset(pool)
            raise Unavailable(
                N_("The PDF took too long to render. Try again in a minute.")
            ) from None
        except BrokenProcessPool:
            # A worker died (killed for memory, Chromium took it down): a new pool, once.
            log.warning("PDF worker pool broke; starting a new one (attempt %s)", attempt)
            _reset(pool)
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Kill a stuck pool's workers (shutdown alone leaves a busy one running); the Chromium
    each started exits when its pipe closes.

    A killed process still needs CPU time to die: each of its threads runs its own exit, and
    the last one frees its memory. Under SCHED_IDLE on a saturated machine that time comes
    slowly: measured here with four busy loops on two cores, a killed worker was still
    alive 10 s later. So its threads are first put back to the normal policy, where the
    kernel allows it (root, or an RLIMIT_NICE that permits nice 0); elsewhere it dies when
    the machine has CPU to spare, having stopped rendering at the kill.
    """
    processes = getattr(pool, "_processes", None) or {}
    for proc in list(processes.values()):
        if proc.pid is not None:
            _normal_priority(proc.pid)
        with contextlib.suppress(Exception):
            proc.kill()


def _normal_priority(pid: int) -> None:
    """Move every thread of process `pid` from SCHED_IDLE to SCHED_OTHER, where permitted."""
    if not hasattr(os, "sched_setscheduler"):
        return
    try:
        threads = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except OSError:  # gone already, or no /proc
        threads = [pid]
    for tid in threads:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(tid, os.SCHED_OTHER, os.sched_param(0))


def warm(job: Callable[[], None]) -> None:
    """Start the pool now and run `job` (a module-level function) in it, without waiting.

    What a first quote would pay (Chromium's start, WeasyPrint's import and font loading)
    is then paid at start-up. A pool of N gets the job once; the others warm on first use.
    """
    if _size <= 0:
        return
    pool = _get_pool()
    future = pool.submit(_warm_in_worker, job)
    future.add_done_callback(functools.partial(_log_warm, pool))


def _log_warm(pool: ProcessPoolExecutor, future: Any) -> None:
    if future.cancelled():
        return
    if (error := future.exception()) is not None:
        if isinstance(error, BrokenProcessPool) and pool is not _pool:
            # Stopped by the app's stop (or a reset) while it ran: nothing failed.
            log.info("PDF worker warm-up stopped: the pool was shut down")
            return
        log.warning("PDF worker warm-up failed: %r", error)
    else:
        log.info("PDF worker %s warmed up", future.result())


# --- In the worker process ----------------------------------------------------------------

_engines: dict[str, Engine] = {}
_last_url: str | None = None


#: How often a worker checks that the app process that started it is still there (seconds).
PARENT_CHECK_S: Final = 1.0


def _exit_with_parent(parent: int) -> None:
    """End this worker when the app process that started it has gone.

    A pool worker waits on its task queue and never notices its parent's end by itself:
    measured with `stratagem serve` and STRATAGEM_PDF_WARM on this machine, a SIGTERM'd app
    left its warmed worker and that worker's Chromium running, reparented to PID 1 (a
    container's init kills them with the container; a bare host, or `make run` stopped with
    Ctrl-C, kept them). The worker ends at once (`os._exit`: a signal could be inherited as
    ignored); its Chromium, started through a pipe, exits when the pipe closes.
    """
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(0)


def _init_worker(priority: str, nice: int, app_pid: int) -> None:
    """Lower this worker's CPU priority (the Chromium it starts later inherits it), and end
    it when the app process `app_pid` goes (named by the app: a worker that starts after
    the app died would otherwise take its new parent, PID 1, for the app)."""
    threading.Thread(
        target=_exit_with_parent, args=(app_pid,), name="exit-with-parent", daemon=True
    ).start()
    if priority == "idle" and hasattr(os, "sched_setscheduler"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            return
        except OSError:  # not permitted here: fall back to nice
            pass
    with contextlib.suppress(OSError):  # not permitted either: render at normal priority
        os.nice(nice)


def _warm_in_worker(warm: Callable[[], None]) -> int:
    warm()
    return os.getpid()


def _render_in_worker(
    write: Write[T],
    forget: Callable[[], None],
    url: str,
    data: dict[str, Any],
    lang: str,
    letterhead: dict[str, str] | None = None,
) -> T:
    global _last_url
    from app.db import make_engine

    if url != _last_url:
        # Chart images are cached by (plan id, version, language): ids repeat across
        # databases, so a worker that is handed another database forgets them.
        forget()
        _last_url = url
    engine = _engines.get(url)
    if engine is None:
        engine = _engines[url] = make_engine(url)
    plan = Plan(**data)
    with Session(engine) as session:
        return write(plan, lang=lang, session=session, letterhead=letterhead)
