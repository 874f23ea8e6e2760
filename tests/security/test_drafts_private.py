"""Unpublished (draft) price lists are for signed-in catalog users only, through every route
that can name a price list (issue 13: drafts were readable anonymously through the API).

The routes are walked from the app's route table: any GET route with a `{price_list_id}`
path parameter or a `price_list` / `from` query parameter is asked for the draft — a new
route that takes a price list is covered without editing this test.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.security.conftest import SECRET, Seed

PARAMS = {"price_list", "price_list_id", "from"}
DRAFT_NAME = "Matrix draft"  # tests/security/conftest.py


def draft_urls(draft_id: int) -> list[str]:
    app = create_app(Settings(DATABASE_URL="sqlite://", STRATAGEM_SECRET_KEY=SECRET))
    urls: list[str] = []
    for ctx in iter_route_contexts(app.routes):
        route = ctx.route
        if not isinstance(route, APIRoute) or "GET" not in (route.methods or ()):
            continue
        d = route.dependant
        path_names = {p.name for p in d.path_params}
        query_names = {p.alias for p in d.query_params} & PARAMS
        if path_names - {"price_list_id", "slug"}:
            continue  # another id in the path (a row, a plan): covered by the role matrix
        path = ctx.path_format or route.path
        path = path.replace("{price_list_id}", str(draft_id)).replace("{slug}", "offers")
        if "price_list_id" in path_names:
            urls.append(path)
        for q in sorted(query_names):
            urls.append(f"{path}?{q}={draft_id}")
    app.state.engine.dispose()
    return urls


def test_the_walk_finds_the_api_routes(seed: Seed) -> None:
    urls = draft_urls(seed.world.draft_price_list_id)
    d = seed.world.draft_price_list_id
    assert {
        f"/api/v1/price-lists/{d}",
        f"/api/v1/offers?price_list={d}",
        f"/api/v1/cloud?price_list={d}",
        f"/api/v1/catalog/export?price_list={d}",
        f"/catalog?price_list={d}",
    } <= set(urls)


def test_anonymous_visitors_never_see_a_draft(
    seed: Seed, make_client: Callable[[], TestClient]
) -> None:
    client = make_client()
    for url in draft_urls(seed.world.draft_price_list_id):
        r = client.get(url)
        assert r.status_code in (303, 401, 403, 404), (url, r.status_code)
        if r.status_code == 303:
            assert r.headers["location"].startswith("/login"), url
        assert DRAFT_NAME not in r.text, url
    listed = client.get("/api/v1/price-lists").json()
    assert seed.world.draft_price_list_id not in {p["id"] for p in listed}
    assert seed.world.current_price_list_id in {p["id"] for p in listed}


def test_signed_in_catalog_users_do(seed: Seed, make_client: Callable[[], TestClient]) -> None:
    client = make_client()
    headers = {"Authorization": f"Bearer {seed.sales_token}"}
    d = seed.world.draft_price_list_id
    assert client.get(f"/api/v1/price-lists/{d}", headers=headers).json()["name"] == DRAFT_NAME
    assert client.get(f"/api/v1/offers?price_list={d}", headers=headers).status_code == 200
    listed = client.get("/api/v1/price-lists", headers=headers).json()
    assert d in {p["id"] for p in listed}
