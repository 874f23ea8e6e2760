"""Who may keep a page: `Cache-Control: private, no-store` on what was made for one person.

A signed-in user's pages and a share link's quote (the token in the address is the
credential) must stay out of shared caches and the browser's back-forward cache: with only
`Vary: Cookie` the next person at a shared computer could press Back into a quote. Pages
anyone gets alike, and /static, keep their caching.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.accounts.models import User
from app.plans import service as plans
from app.sharing import service as sharing
from app.web.templating import static_url
from tests.accounts.helpers import make_account, sign_in
from tests.plan_quotes import WORKLOAD

PRIVATE = "private, no-store"
PUBLIC_PAGES = ["/", "/assess", "/validation", "/architectures", "/plan"]


@dataclass
class Shared:
    plan_id: int
    token: str
    owner: User


@pytest.fixture(scope="module")
def shared(web_app: FastAPI) -> Shared:
    """A sales user's plan and a share link to it."""
    owner = make_account(TestClient(web_app), "sales").user
    with Session(web_app.state.engine) as session:
        user = session.get(User, owner.id)
        assert user is not None
        plan = plans.create_plan(
            session=session, owner=user, workload=WORKLOAD, name="Cache", customer="Kiosk Ltd"
        )
        assert plan.id is not None
        _, token = sharing.create_link(session=session, plan_id=plan.id, actor=user)
        return Shared(plan_id=plan.id, token=token, owner=owner)


@pytest.mark.parametrize("path", ["/plans/{id}", "/plans", "/", "/plan", "/compare"])
def test_a_signed_in_users_pages_are_private(web: TestClient, shared: Shared, path: str) -> None:
    sign_in(web, shared.owner)
    r = web.get(path.format(id=shared.plan_id))
    assert r.status_code == 200, r.text[:300]
    assert r.headers["cache-control"] == PRIVATE
    assert "Cookie" in r.headers["vary"]


@pytest.mark.parametrize("suffix", ["", "?lang=en"])
def test_the_share_page_is_private_to_an_anonymous_reader(
    web: TestClient, shared: Shared, suffix: str
) -> None:
    r = web.get(f"/s/{shared.token}{suffix}")
    assert r.status_code == 200
    assert r.headers["cache-control"] == PRIVATE


def test_a_refused_share_link_is_private_too(web: TestClient) -> None:
    r = web.get("/s/no-such-token")
    assert r.status_code == 404 and r.headers["cache-control"] == PRIVATE


@pytest.mark.parametrize("path", PUBLIC_PAGES)
def test_anonymous_pages_keep_their_caching(web: TestClient, path: str) -> None:
    r = web.get(path)
    assert r.status_code == 200
    assert "cache-control" not in r.headers  # as before: nothing imposed on a public page


def test_a_signed_in_user_still_gets_immutable_static_files(
    web: TestClient, shared: Shared
) -> None:
    sign_in(web, shared.owner)
    r = web.get(static_url("css/app.css"))
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"


def test_a_page_that_sets_its_own_cache_control_keeps_it(web: TestClient) -> None:
    """/login says `no-store` itself; the middleware only fills in where nothing was set."""
    assert web.get("/login").headers["cache-control"] == "no-store"
