"""No route that talks to the database runs on the event loop.

FastAPI runs a plain `def` route in its threadpool and an `async def` route on the event loop.
A database call blocks: waiting on a row lock (PostgreSQL) or on SQLite's write lock (up to
its 30 s busy timeout) inside an `async def` route stops every request of the process — the
race QA saw /healthz take 3.2 s behind one customer's Accept. Routes read their body in an
async dependency (`app.web.forms.posted_form`, `app.sharing.pages.read_answer`,
`app.catalog.routes.read_upload`) and are plain functions themselves.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.deps import SessionDep, get_session


def _routes(routes: list[Any]) -> Iterator[APIRoute]:
    """Every API route, also inside included routers (FastAPI keeps them as wrappers that
    hold the `original_router`) and mounts."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):
            yield from _routes(route.original_router.routes)
        elif hasattr(route, "routes"):
            yield from _routes(route.routes)


def _calls(dependant: Dependant) -> Iterator[object]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def test_no_async_route_opens_a_database_session(client: TestClient) -> None:
    routes = list(_routes(client.app.routes))  # type: ignore[attr-defined]
    paths = {route.path for route in routes}
    assert {"/s/{token}/accept", "/login", "/plans/{plan_id}/quote"} <= paths  # walked them
    on_the_loop = [
        f"{sorted(route.methods)} {route.path}"
        for route in routes
        if inspect.iscoroutinefunction(route.endpoint)
        and get_session in set(_calls(route.dependant))
    ]
    assert on_the_loop == []


def test_the_check_sees_an_async_route_with_a_session() -> None:
    """The check above can fail: an `async def` route taking a session is found."""
    app = FastAPI()

    @app.get("/blocking")
    async def blocking(session: SessionDep) -> None:
        return None

    route = next(r for r in _routes(app.routes) if r.path == "/blocking")
    assert inspect.iscoroutinefunction(route.endpoint)
    assert get_session in set(_calls(route.dependant))
