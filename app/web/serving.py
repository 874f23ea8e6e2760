"""Several app processes on one port, each accepting on its own socket (`SO_REUSEPORT`).

uvicorn's own `--workers` binds one listening socket in the parent and shares it with every
worker. asyncio then accepts in batches (up to `backlog` connections per wake-up), so the
worker that wakes first takes every connection waiting; with keep-alive clients (a reverse
proxy's upstream pool, a load generator) those connections stay with it, and the other
workers idle. Measured on the 2-core CI box with `benchmarks/load_scaling.py`: 20 wrk
connections split 20/0 or 13/7, and 2 processes served 0.57–0.79× what one did.

Here each worker binds its own socket to the same address with `SO_REUSEPORT`; the Linux
kernel (≥ 3.9) then hands each new connection to one of the listening sockets by a hash
of its addresses and ports, so connections spread evenly whatever the workers are doing.

The parent keeps uvicorn's per-worker health check (`uvicorn.supervisors.multiprocess.
Process`: a ping over a pipe; a worker that does not answer within
`timeout_worker_healthcheck` seconds is killed and replaced) once the worker is past its
start (`START_GRACE_S`), replaces a worker that dies,
stops when a worker fails to start (exit code 3: the app, or its settings, are broken and
every restart would fail the same way), and on SIGINT/SIGTERM stops every worker and waits
for it to finish its requests (uvicorn's graceful shutdown).
"""

from __future__ import annotations

import contextlib
import errno
import gc
import logging
import pickle
import signal
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, Final

from uvicorn.config import STARTUP_FAILURE, Config
from uvicorn.server import Server
from uvicorn.supervisors.multiprocess import Process

log = logging.getLogger("uvicorn.error")

#: How often the parent looks at its workers (seconds).
CHECK_EVERY_S: Final = 0.5
#: How long a new worker may take to answer its first health check (seconds). A spawned
#: worker answers pings from a thread it starts only after a fresh interpreter has imported
#: uvicorn and this module; on a saturated machine that took longer than uvicorn's 5 s
#: `timeout_worker_healthcheck`, and the starting worker was killed as hung, again and again.
#: Until then only its death counts; a worker hung in its start is killed after this.
START_GRACE_S: Final = 60.0


class GracefulServer(Server):
    """uvicorn's server, for `serve` with one process: a signal that asked for the graceful
    shutdown it has finished is not raised again.

    uvicorn (≥ 0.29) re-raises SIGTERM after its shutdown, so the process then died of it:
    QA measured exit status 143 for one process where `--workers 2` exits 0, and a service
    manager reads 143 as a failure. Dying by the signal also skipped the interpreter's exit
    (atexit, multiprocessing's finalizers), so the PDF pool's semaphores were left for the
    resource tracker to find: "There appear to be 5 leaked semaphore objects".
    """

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        freeze_start_up_objects()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with super().capture_signals():
            yield
            # Runs before uvicorn raises the captured signals again: the shutdown is done.
            self._captured_signals.clear()


def freeze_start_up_objects() -> None:
    """Leave what the started app holds out of every later garbage collection (`gc.freeze`).

    The modules, routes, templates and catalog a started process holds (about 267,000
    objects) live as long as it does, yet each full (generation-2) collection visited them
    all: 155-172 ms, a pause that fell on whichever request was running. Frozen after a
    collection that frees start-up's garbage, they are never visited again. Measured with
    the app loaded and 150 1-day planner searches, the full collection took 18-23 ms and
    the slowest search 28-32 ms instead of 165-172 ms; over HTTP (`stratagem serve`, 300
    such POST /api/v1/estimate, two runs each) the 99th percentile was 89-107 ms instead
    of 200-210 ms. Objects made later (the planner's memo, caches filled by requests) are
    collected as before.

    Only a served process does this (`GracefulServer.startup`): a test suite builds many
    apps in one process, and freezing each would keep the garbage between them forever.
    """
    gc.collect()
    gc.freeze()


def serve_one(config: Config) -> int:
    """Serve `config` in this process until SIGINT/SIGTERM (returns 0, once the requests in
    flight are answered) or a start that fails (returns 3, as uvicorn.run exits)."""
    server = GracefulServer(config)
    with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: uvicorn's forced exit
        server.run()
    return 0 if server.started else STARTUP_FAILURE


class CannotListen(RuntimeError):
    """(host, port) cannot be listened on; `option` names the serve option to change."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


class PortInUse(CannotListen):
    """Something already listens on the address (another Stratagem, or another program)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "--port")


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def listening_socket(host: str, port: int, backlog: int) -> socket.socket:
    """A socket listening on (host, port) that other `SO_REUSEPORT` sockets may share."""
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(backlog)
        sock.set_inheritable(True)
    except BaseException:
        sock.close()
        raise
    return sock


def check_port_free(host: str, port: int) -> None:
    """Raise PortInUse when anything is bound to (host, port).

    Bound *without* SO_REUSEPORT, so it also fails when an earlier Stratagem still serves
    there: its workers' sockets would otherwise quietly share the port with ours.

    Any other reason the address cannot be bound is a CannotListen naming it: a host that
    is not an address of this machine, a name that does not resolve, a port below 1024
    without the privilege.
    """
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except socket.gaierror as e:
        raise CannotListen(
            f"{host} is not a host name this machine can resolve ({e.strerror})", "--host"
        ) from None
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise PortInUse(f"{host}:{port} is already in use ({e.strerror})") from None
        if e.errno == errno.EADDRNOTAVAIL:
            raise CannotListen(
                f"{host} is not an address of this machine ({e.strerror})", "--host"
            ) from None
        if e.errno == errno.EACCES:
            raise CannotListen(
                f"port {port} needs privileges this user lacks (ports below 1024 do): {e.strerror}",
                "--port",
            ) from None
        raise CannotListen(f"cannot listen on {host}:{port} ({e.strerror})", "--port") from None
    finally:
        sock.close()


class OwnSocketProcess(Process):
    """A uvicorn worker process that binds its own `SO_REUSEPORT` socket when it starts."""

    def target(self, sockets: list[socket.socket] | None = None) -> None:  # pragma: no cover
        # Runs in the child (spawned): uvicorn's subprocess_started has set up logging.
        c = self.config
        self._server = GracefulServer(c)  # a SIGTERM from the parent: exit 0, see there
        super().target([listening_socket(c.host, c.port, c.backlog)])


class Supervisor:
    """Start `workers` processes serving `config`, keep them alive, stop them on a signal."""

    def __init__(self, config: Config, workers: int) -> None:
        self.config = config
        self.workers = workers
        self.processes: list[OwnSocketProcess] = []
        self.should_exit = threading.Event()
        self.failed = False
        self.start_grace_s = START_GRACE_S
        self.process_class: type[OwnSocketProcess] = OwnSocketProcess
        self._answered: set[int] = set()  # pids that have answered a health check
        self._pinged: set[int] = set()  # pids sent their first ping
        self._started_at: dict[int, float] = {}

    def _start_one(self) -> OwnSocketProcess:
        process = self.process_class(self.config, [])
        process.start()
        if process.pid is not None:
            self._started_at[process.pid] = time.monotonic()
        return process

    def _forget(self, pid: int | None) -> None:
        """Drop a replaced worker's start records (pids are reused by the kernel)."""
        pid = pid or 0
        self._answered.discard(pid)
        self._pinged.discard(pid)
        self._started_at.pop(pid, None)

    def _healthy(self, process: OwnSocketProcess) -> bool:
        """Alive and answering; a worker still in its start only has to be alive.

        A starting worker is sent one ping, which waits in the pipe until its pong thread
        runs; its answer ends the grace (pinging at every check would queue stale answers
        that the full checks after it would read for as long again).
        """
        if not process.process.is_alive():
            return False
        pid = process.pid or 0
        if pid in self._answered:
            return process.ping(timeout=self.config.timeout_worker_healthcheck)
        try:
            if pid not in self._pinged:
                process.parent_conn.send(b"ping")
                self._pinged.add(pid)
            if process.parent_conn.poll(0):
                process.parent_conn.recv()
                self._answered.add(pid)
                return True
        except (
            OSError,
            EOFError,
            pickle.UnpicklingError,
        ):  # its end of the pipe is gone: it is exiting
            return False
        return time.monotonic() - self._started_at.get(pid, 0.0) < self.start_grace_s

    def _on_signal(self, signum: int, _frame: Any) -> None:
        log.info("Received %s, stopping %d workers.", signal.Signals(signum).name, self.workers)
        self.should_exit.set()

    def run(self) -> int:
        """Serve until a signal (returns 0) or a worker that cannot start (returns 3)."""
        check_port_free(self.config.host, self.config.port)
        previous = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.processes = [self._start_one() for _ in range(self.workers)]
            while not self.should_exit.wait(CHECK_EVERY_S):
                self._keep_alive()
        finally:
            for process in self.processes:
                process.terminate()
            for process in self.processes:
                process.join()
            for s, handler in previous.items():
                with contextlib.suppress(ValueError, TypeError):
                    signal.signal(s, handler)
        return STARTUP_FAILURE if self.failed else 0

    def _keep_alive(self) -> None:
        for i, process in enumerate(self.processes):
            if self.should_exit.is_set():
                return
            if self._healthy(process):
                continue
            process.kill()  # hung: it did not answer the ping
            process.join()
            if process.exitcode == STARTUP_FAILURE:
                log.error("Worker [%s] failed to start; stopping.", process.pid)
                self.failed = True
                self.should_exit.set()
                return
            log.warning("Worker [%s] died (exit code %s); starting another.", process.pid,
                        process.exitcode)  # fmt: skip
            self._forget(process.pid)
            self.processes[i] = self._start_one()
