"""429 + Retry-After on anonymous quote requests and share-link lookups, counted in the
database per client address; X-Forwarded-For believed only from trusted proxies (issue 13)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy import delete
from sqlmodel import Session, col

from app.main import create_app
from app.ratelimit import service
from app.ratelimit.models import RateHit
from app.settings import Settings
from tests.web.test_assess import ANSWERS


@pytest.fixture(scope="module")
def behind_proxy(settings: Settings) -> FastAPI:
    """The app as deployed behind a proxy: TestClient's peer ("testclient") is trusted."""
    return create_app(settings.model_copy(update={"trusted_proxies": "testclient"}))


@pytest.fixture
def client(behind_proxy: FastAPI) -> Iterator[tuple[TestClient, str]]:
    """A client and a fresh documentation address of its own (RFC 5737) per test."""
    ip = f"203.0.113.{uuid.uuid4().int % 250 + 1}"
    with TestClient(behind_proxy) as c:
        c.headers["X-Forwarded-For"] = ip
        yield c, ip
    with Session(behind_proxy.state.engine) as s:
        s.exec(delete(RateHit).where(col(RateHit.key) == ip))
        s.commit()


def quote(c: TestClient, n: int) -> Response:
    c.get("/assess")
    data = {**ANSWERS, "name": f"N{n}", "company": "B", "email": f"a{n}@b.tw"}
    r = c.post(
        "/assess/quote",
        data={**data, "csrf_token": c.cookies.get("csrf")},
        follow_redirects=False,
    )
    return r


def test_quote_requests_past_the_limit_are_429(client: tuple[TestClient, str]) -> None:
    c, _ip = client
    for n in range(service.QUOTE_REQUESTS.count):
        assert quote(c, n).status_code == 303
    r = quote(c, 99)
    assert r.status_code == 429
    assert 1 <= int(r.headers["Retry-After"]) <= 600  # the 10-minute window
    # The form again, saying so, with what was typed (QA: a bare error page lost it all).
    page = BeautifulSoup(r.text, "html.parser")
    assert r.headers["Retry-After"] in page.select_one("#lead-limited").get_text()
    assert page.select_one("#f-name")["value"] == "N99"
    assert page.select_one("#f-email")["value"] == "a99@b.tw"
    # Another address (a different customer behind the same proxy) still gets through.
    c.headers["X-Forwarded-For"] = "198.51.100.23"
    assert quote(c, 100).status_code == 303


def test_incomplete_forms_do_not_count(client: tuple[TestClient, str]) -> None:
    c, _ip = client
    c.get("/assess")
    for _ in range(10):
        r = c.post("/assess/quote", data={**ANSWERS, "csrf_token": c.cookies.get("csrf")})
        assert r.status_code == 422
    assert quote(c, 1).status_code == 303


def test_share_token_guessing_is_429(client: tuple[TestClient, str]) -> None:
    c, _ip = client
    for i in range(service.SHARE_LOOKUPS.count):
        assert c.get(f"/s/guess-{i}").status_code == 404
    r = c.get("/s/guess-next")
    assert r.status_code == 429
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    assert c.get("/s/guess-next/quote.pdf").status_code == 429


def test_untrusted_forwarded_for_is_ignored(settings: Settings) -> None:
    """Default trust (127.0.0.1 only): rotating X-Forwarded-For from elsewhere changes nothing."""
    app = create_app(settings)
    with TestClient(app) as c, Session(app.state.engine) as s:
        s.exec(delete(RateHit).where(col(RateHit.key) == "testclient"))
        s.commit()
        for i in range(service.SHARE_LOOKUPS.count):
            c.get(f"/s/rotating-{i}", headers={"X-Forwarded-For": f"192.0.2.{i}"})
        r = c.get("/s/rotating-x", headers={"X-Forwarded-For": "192.0.2.200"})
        assert r.status_code == 429
        s.exec(delete(RateHit).where(col(RateHit.key) == "testclient"))
        s.commit()


def test_the_window_slides(settings: Settings) -> None:
    """A hit older than the window no longer counts (the service, with explicit times)."""
    from datetime import timedelta

    from app.accounts.models import utcnow
    from app.db import make_engine

    engine = make_engine(settings.database_url)
    limit = service.Limit("test", 2, timedelta(minutes=1))
    key = uuid.uuid4().hex
    t0 = utcnow()
    with Session(engine) as s:
        service.record(session=s, limit=limit, key=key, now=t0)
        service.record(session=s, limit=limit, key=key, now=t0 + timedelta(seconds=30))
        assert (
            service.retry_after(session=s, limit=limit, key=key, now=t0 + timedelta(seconds=31))
            == 29
        )
        assert (
            service.retry_after(session=s, limit=limit, key=key, now=t0 + timedelta(seconds=61))
            is None
        )
    engine.dispose()
