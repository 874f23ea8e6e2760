"""Load queues instead of freezing: N requests at a time per process (app/web/concurrency.py).

QA measured the FastAPI + SQLAlchemy pool deadlock: 200 concurrent authenticated GETs of one
plan (≈10 ms each alone) froze a process for 60 s — every worker thread waiting in
`pool.connect()` while the requests holding the 15 connections waited for a thread to close
their sessions — and 147 of 200 ended in 500s ("QueuePool limit of size 5 overflow 10
reached"). Here the same burst, on a real server and database, must all be 200s.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from sqlmodel import Session

from app.accounts import service as accounts
from app.db import make_engine, pool_options
from app.web.concurrency import ConcurrencyLimitMiddleware
from tests.ops.conftest import Proc, wait_ready
from tests.plan_quotes import WORKLOAD

PASSWORD = "correct horse battery"


def _token(url: str) -> str:
    engine = make_engine(url)
    with Session(engine) as s:
        user = accounts.create_user(
            session=s, email="load@example.com", password=PASSWORD, role="sales", name="Lo"
        )
        _, token = accounts.create_token(session=s, user=user, name="load")
    engine.dispose()
    return token


T = TypeVar("T")


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """asyncio.run on a thread of its own: in the full suite a session-wide Playwright
    (sync API) keeps an event loop running on the main thread, where asyncio.run refuses."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as error:  # re-raised on the test's thread
            out["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]  # type: ignore[no-any-return]


async def _burst(base: str, path: str, n: int, headers: dict[str, str]) -> Counter[int]:
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as c:
        responses = await asyncio.gather(*(c.get(path, headers=headers) for _ in range(n)))
    return Counter(r.status_code for r in responses)


@pytest.mark.parametrize("db", ["sqlite", "postgres"])
def test_two_hundred_concurrent_requests_are_all_answered(
    db: str,
    tmp_path: Path,
    pg_database: Callable[[], str],
    start_serve: Callable[..., Proc],
) -> None:
    url = pg_database() if db == "postgres" else f"sqlite:///{tmp_path / 'load.db'}"
    proc = start_serve(url)
    wait_ready(proc)
    auth = {"Authorization": f"Bearer {_token(url)}"}
    made = httpx.post(
        f"{proc.base}/api/v1/plans",
        json={"name": "Load", "workload": WORKLOAD},
        headers=auth,
        timeout=60,
    )
    assert made.status_code == 201, made.text
    path = f"/api/v1/plans/{made.json()['id']}"
    statuses = _run(_burst(proc.base, path, 200, auth))
    assert statuses == Counter({200: 200}), (statuses, proc.output()[-2000:])
    assert "QueuePool limit" not in proc.output()


def test_the_pool_holds_two_connections_per_admitted_request() -> None:
    assert pool_options(10) == {"pool_size": 10, "max_overflow": 12}
    assert pool_options(None) == {}  # command-line tools keep SQLAlchemy's defaults


def test_a_request_that_waits_past_the_queue_timeout_gets_503_with_retry_after() -> None:
    """Limit 1: while one slow request runs, a second waits 0.05 s and is turned away; a
    health probe never waits."""
    release = asyncio.Event()

    async def slow_app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        if scope["path"] == "/slow":
            await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    mw = ConcurrencyLimitMiddleware(slow_app, limit=1, queue_timeout_s=0.05)

    async def call(path: str) -> tuple[int, dict[bytes, bytes], bytes]:
        sent: list[dict] = []  # type: ignore[type-arg]

        async def send(message: dict) -> None:  # type: ignore[type-arg]
            sent.append(message)

        async def receive() -> dict:  # type: ignore[type-arg]
            return {"type": "http.request", "body": b""}

        await mw({"type": "http", "path": path}, receive, send)
        return sent[0]["status"], dict(sent[0]["headers"]), sent[1]["body"]

    async def scenario() -> None:
        first = asyncio.create_task(call("/slow"))
        await asyncio.sleep(0.01)
        status, headers, body = await call("/api/v1/plans")
        assert status == 503 and headers[b"retry-after"] == b"5"
        assert b"busy" in body and headers[b"content-type"] == b"application/json"
        assert (await call("/healthz"))[0] == 200  # probes skip the queue
        release.set()
        assert (await first)[0] == 200
        assert (await call("/api/v1/plans"))[0] == 200  # the slot came back

    _run(scenario())


def test_a_request_turned_away_is_counted_by_its_route_template() -> None:
    """The 503 of a request that never reached the router is counted under the route it
    asked for (`/api/v1/plans/{plan_id}`), as an admitted request is, not as "<unmatched>"
    with the 404s of a scan."""
    from fastapi import FastAPI
    from prometheus_client import REGISTRY

    from app.ops.middleware import RequestMiddleware

    release = asyncio.Event()
    app = FastAPI()

    @app.get("/api/v1/plans/{plan_id}")
    async def plan(plan_id: int) -> dict[str, int]:
        await release.wait()
        return {"id": plan_id}

    app.add_middleware(ConcurrencyLimitMiddleware, limit=1, queue_timeout_s=0.05)
    app.add_middleware(RequestMiddleware)

    def count(route: str, status: str) -> float:
        labels = {"method": "GET", "route": route, "status": status}
        return REGISTRY.get_sample_value("stratagem_http_requests_total", labels) or 0.0

    before = count("/api/v1/plans/{plan_id}", "503"), count("<unmatched>", "503")

    async def scenario() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            first = asyncio.create_task(client.get("/api/v1/plans/7"))
            await asyncio.sleep(0.02)
            shed = await client.get("/api/v1/plans/8")
            assert shed.status_code == 503
            release.set()
            assert (await first).status_code == 200

    _run(scenario())
    assert count("/api/v1/plans/{plan_id}", "503") == before[0] + 1
    assert count("<unmatched>", "503") == before[1]
