"""Ids no row can have answer 404, on every route with an id in its path (issue 13).

The route table is walked from a fresh app: every route whose path has an integer parameter
(`{plan_id}`, `{price_list_id}`, `{customer_id}`, …) gets each id below in each such
parameter, as an anonymous visitor and as an admin (session cookie, bearer token and CSRF
token, so nothing else refuses first), on SQLite and on PostgreSQL. Expected: 404 — JSON
(`{"detail": …}`) under /api/, the HTML error page elsewhere. Ids out of range:
0 and −1 (ids start at 1), 2^31 (one past PostgreSQL's INTEGER, 2^31 − 1), 2^63 (one past
SQLite's INTEGER; it made the driver raise OverflowError before DbId), a 30-digit number,
and "12abc" (not a number: it names nothing either).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.accounts import web
from app.bootstrap import prepare_database
from app.main import create_app
from app.settings import Settings
from app.web.csrf import COOKIE as CSRF_COOKIE
from app.web.csrf import HEADER as CSRF_HEADER
from app.web.path_ids import is_db_id
from tests.accounts.helpers import make_account
from tests.postgres import postgres_url

OUT_OF_RANGE = ("0", "-1", str(2**31), str(2**63), "9" * 30, "12abc")
SECRET = "ids-tests"


def id_routes() -> list[tuple[str, str, tuple[str, ...]]]:
    """(method, path, integer path parameters) of every route that has one."""
    app = create_app(Settings(DATABASE_URL="sqlite://", STRATAGEM_SECRET_KEY=SECRET))
    found: set[tuple[str, str, tuple[str, ...]]] = set()
    for ctx in iter_route_contexts(app.routes):
        route = ctx.route
        if not isinstance(route, APIRoute) or ctx.path_format is None:
            continue
        ints = tuple(p.name for p in route.dependant.path_params if p.field_info.annotation is int)
        if ints:
            found.update((m, ctx.path_format, ints) for m in route.methods or () if m != "HEAD")
    app.state.engine.dispose()
    return sorted(found)


ROUTES = id_routes()


def test_the_walk_finds_the_id_routes() -> None:
    paths = {p for _, p, _ in ROUTES}
    # A few the issue named, so a change in how routes are walked cannot empty the test.
    assert {
        "/api/v1/plans/{plan_id}",
        "/plans/{plan_id}",
        "/api/v1/price-lists/{price_list_id}",
    } <= paths
    assert len(ROUTES) >= 30, ROUTES


def test_is_db_id_bounds() -> None:
    assert [is_db_id(s) for s in ("1", str(2**31 - 1), "007")] == [True, True, True]
    assert not any(is_db_id(s) for s in (*OUT_OF_RANGE, "", "+1", "１", " 1"))


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """A migrated database with the catalog and an admin; (client, the admin's headers)."""
    drop: Any = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('ids') / 'ids.db'}"
    else:
        server = make_url(postgres_url())
        name = f"stratagem_ids_{uuid.uuid4().hex[:8]}"
        admin_engine = create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
        with admin_engine.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = server.set(database=name).render_as_string(hide_password=False)

        def drop() -> None:
            with admin_engine.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin_engine.dispose()

    settings = Settings(DATABASE_URL=url, STRATAGEM_SECRET_KEY=SECRET, STRATAGEM_LANGUAGE="en")
    prepare_database(settings, echo=lambda _: None)
    app = create_app(settings)
    try:
        with TestClient(app, follow_redirects=False) as c:
            c.get("/login")  # the CSRF cookie
            admin = make_account(c, "admin")
            secret = settings.resolved_secret_key()
            headers = {
                CSRF_HEADER: c.cookies[CSRF_COOKIE],
                "Authorization": f"Bearer {admin.token}",
                "Cookie": f"{web.COOKIE}={web.session_cookie(secret, admin.user)}; "
                f"{CSRF_COOKIE}={c.cookies[CSRF_COOKIE]}",
            }
            yield c, headers
    finally:
        app.state.engine.dispose()
        if drop is not None:
            drop()


def _url(path: str, param: str, value: str) -> str:
    """`path` with `param` set to `value` and any other parameter to a plausible id."""

    def fill(m: re.Match[str]) -> str:
        return value if m.group(1) == param else "1"

    return re.sub(r"\{(\w+)(?::\w+)?\}", fill, path)


@pytest.mark.parametrize("visitor", ["anonymous", "admin"])
def test_every_id_route_answers_404_for_ids_no_row_can_have(
    client: tuple[TestClient, dict[str, str]], visitor: str
) -> None:
    c, admin_headers = client
    wrong: list[str] = []
    cases = 0
    for method, path, params in ROUTES:
        for param in params:
            for value in OUT_OF_RANGE:
                url = _url(path, param, value)
                headers = dict(admin_headers) if visitor == "admin" else {}
                kwargs: dict[str, Any] = {"headers": headers}
                if method in ("POST", "PUT", "PATCH", "DELETE"):
                    kwargs["json" if url.startswith("/api/") else "data"] = {}
                if visitor == "anonymous":
                    c.cookies.clear()
                r = c.request(method, url, **kwargs)
                cases += 1
                ctype = r.headers.get("content-type", "")
                api = url.startswith("/api/")
                ok = r.status_code == 404 and (
                    ("application/json" in ctype and "detail" in r.json())
                    if api
                    else "text/html" in ctype
                )
                if not ok:
                    wrong.append(f"{method} {url}: {r.status_code} {ctype} {r.text[:120]!r}")
    assert cases >= 30 * len(OUT_OF_RANGE)
    assert not wrong, f"{len(wrong)} of {cases}:\n" + "\n".join(wrong[:40])
