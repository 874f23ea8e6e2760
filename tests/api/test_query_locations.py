"""A refused query or path parameter is named where it was sent (QA fuzz): `?sort=bogus` on
plans and `?gpu=bogus` on validation answered at ["body", …]; GET /price-lists/99999 named a
`price_list` query the URL does not have; `?sort=bogus` on offers and cloud was ignored and
listed in insertion order, as if it had sorted."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account


@pytest.mark.parametrize(
    ("path", "status", "loc"),
    [
        ("/api/v1/plans?sort=bogus", 422, ["query", "sort"]),
        ("/api/v1/validation?gpu=bogus", 422, ["query", "gpu"]),
        ("/api/v1/validation?kind=bogus", 422, ["query", "kind"]),
        ("/api/v1/price-lists/99999", 404, ["path", "price_list_id"]),
        ("/api/v1/offers?sort=bogus", 422, ["query", "sort"]),
        ("/api/v1/cloud?sort=price", 422, ["query", "sort"]),
    ],
)
def test_the_parameter_is_named_where_it_was_sent(
    client: TestClient, path: str, status: int, loc: list[str]
) -> None:
    a = make_account(client, "sales")
    r = client.get(path, headers=a.headers)
    assert r.status_code == status, r.text
    assert r.json()["detail"][0]["loc"] == loc


def test_a_sort_column_still_sorts(client: TestClient) -> None:
    a = make_account(client, "sales")
    offers = client.get("/api/v1/offers?sort=monthly_price&dir=desc", headers=a.headers).json()
    prices = [o["monthly_price"] for o in offers]
    assert prices == sorted(prices, reverse=True) and len(prices) > 3
    r = client.get("/api/v1/offers?sort=bogus", headers=a.headers)
    assert r.json()["detail"][0]["msg"].startswith("must be one of id, provider, gpu_id")
