"""Every route, every kind of visitor: the outcome route_rules.py expects.

A route without a rule fails (so a new route cannot ship without someone deciding who may
call it), and so does a rule whose route is gone. Each (route, visitor) case runs on a fresh
copy of the seed database (`reset_client`), so state-changing routes cannot disturb each other.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from app.accounts import web
from app.main import create_app
from app.settings import Settings
from app.web.csrf import COOKIE as CSRF_COOKIE
from app.web.csrf import HEADER as CSRF_HEADER
from tests.security import route_rules
from tests.security.conftest import SECRET, Seed, user
from tests.security.route_rules import RULES, World

VISITORS = ("anonymous", "share", "sales", "admin")
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def app_routes() -> list[tuple[str, str]]:
    """(method, path) of every route of a fresh app; HEAD and mounts (/static) left out."""
    app = create_app(Settings(DATABASE_URL="sqlite://", STRATAGEM_SECRET_KEY=SECRET))
    found: set[tuple[str, str]] = set()
    for route in iter_route_contexts(app.routes):
        methods = route.methods
        if not methods or route.path is None:
            continue
        found.update((m, route.path) for m in methods if m != "HEAD")
    app.state.engine.dispose()
    return sorted(found, key=lambda mp: (mp[1], mp[0]))


ROUTES = app_routes()


def test_every_route_has_a_rule() -> None:
    missing = [f"add a rule for {m} {p}" for m, p in ROUTES if (m, p) not in RULES]
    assert not missing, "tests/security/route_rules.py: " + "; ".join(missing)


def test_every_rule_has_a_route() -> None:
    stale = sorted(set(RULES) - set(ROUTES))
    assert not stale, f"rules for routes that do not exist (remove them): {stale}"


def url_for(method: str, path: str, world: World) -> str:
    override = route_rules.URLS.get((method, path))
    if override is not None:
        return override(world) if callable(override) else override

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in route_rules.PARAMS:
            pytest.fail(f"tests/security/route_rules.py: add PARAMS[{name!r}] for {method} {path}")
        value = route_rules.PARAMS[name]
        return str(value(world) if callable(value) else value)

    return re.sub(r"\{(\w+)(?::\w+)?\}", fill, path)


def outcome(status: int, location: str | None) -> str:
    if status in (301, 302, 303, 307, 308) and (location or "").startswith("/login"):
        return "login"
    if 200 <= status < 400 or status in (400, 409, 422):
        return "allow"
    if status in (401, 403, 404):
        return "deny"
    return f"unexpected {status}"


def prepare(client: TestClient, seed: Seed, visitor: str) -> dict[str, str]:
    """Cookies and headers of `visitor`; every visitor holds a CSRF token."""
    client.get("/login")  # the CSRF middleware gives the visitor its token cookie
    headers = {CSRF_HEADER: client.cookies[CSRF_COOKIE]}
    if visitor in ("sales", "admin"):
        uid = seed.sales_id if visitor == "sales" else seed.admin_id
        secret = client.app.state.settings.resolved_secret_key()  # type: ignore[attr-defined]
        client.cookies.set(web.COOKIE, web.session_cookie(secret, user(client, uid)))
        token = seed.sales_token if visitor == "sales" else seed.admin_token
        headers["Authorization"] = f"Bearer {token}"
    return headers


def send(client: TestClient, method: str, url: str, headers: dict[str, str]) -> Any:
    kwargs: dict[str, Any] = {"headers": headers}
    if method in UNSAFE:
        if url.startswith("/api/"):
            kwargs["json"] = {}
        else:
            kwargs["data"] = {}
    return client.request(method, url, **kwargs)


CASES = [
    pytest.param(m, p, v, id=f"{m} {p} [{v}]")
    for m, p in ROUTES
    if (m, p) in RULES
    for v in VISITORS
]


@pytest.mark.parametrize("method, path, visitor", CASES)
def test_route_matrix(
    method: str, path: str, visitor: str, seed: Seed, reset_client: Callable[[], TestClient]
) -> None:
    client = reset_client()
    headers = prepare(client, seed, visitor)
    url = url_for(method, path, seed.world)
    r = send(client, method, url, headers)
    expected = RULES[(method, path)].for_visitor(visitor)
    got = outcome(r.status_code, r.headers.get("location"))
    assert got == expected, (
        f"{method} {url} as {visitor}: expected {expected}, got {got} "
        f"({r.status_code} {r.headers.get('location') or r.text[:200]!r})"
    )


PAGE_WRITES = [(m, p) for m, p in ROUTES if m in UNSAFE and not p.startswith("/api/")]


@pytest.mark.parametrize("method, path", PAGE_WRITES, ids=[f"{m} {p}" for m, p in PAGE_WRITES])
def test_page_writes_without_the_csrf_token_are_403(
    method: str, path: str, seed: Seed, reset_client: Callable[[], TestClient]
) -> None:
    """Signed in as admin (so no sign-in redirect hides the check), cookie set, no token."""
    client = reset_client()
    headers = prepare(client, seed, "admin")
    del headers[CSRF_HEADER]
    assert client.cookies.get(CSRF_COOKIE)
    url = url_for(method, path, seed.world)
    r = client.request(method, url, data={"name": "x"}, headers=headers)
    assert r.status_code == 403, f"{method} {url}: {r.status_code}"
    assert "csrf" in r.text.lower() or "expired" in r.text.lower()


def test_each_case_starts_on_the_seed_rows(
    seed: Seed, reset_client: Callable[[], TestClient]
) -> None:
    """The shared app's database is the seed again at every `reset_client()`: a customer
    created by one case is gone for the next."""
    client = reset_client()
    headers = {"Authorization": f"Bearer {seed.admin_token}"}
    before = client.get("/api/v1/customers", headers=headers).json()
    r = client.post("/api/v1/customers", json={"name": "Written by a case"}, headers=headers)
    assert r.status_code == 201, r.text
    assert len(client.get("/api/v1/customers", headers=headers).json()) == len(before) + 1
    again = reset_client().get("/api/v1/customers", headers=headers).json()
    assert again == before
