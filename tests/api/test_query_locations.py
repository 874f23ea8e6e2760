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


def test_a_draft_answers_an_anonymous_caller_as_a_missing_id_does(client: TestClient) -> None:
    # Review: a draft the caller may not see answered at ["body", "price_list"] in English,
    # a missing id at ["path", "price_list_id"] in the request's language: the difference
    # told which ids are drafts (access.visible promises "the same answer").
    admin = make_account(client, "admin")
    doc = client.get("/api/v1/catalog/export", headers=admin.headers).json()
    draft = client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "name": "unseen draft"},
        json=doc,
        headers=admin.headers,
    ).json()["price_list_id"]
    zh = {"Accept-Language": "zh-TW"}
    for path, loc in (
        ("/api/v1/price-lists/{}", ["path", "price_list_id"]),
        ("/api/v1/offers?price_list={}", ["query", "price_list"]),
    ):
        seen = client.get(path.format(draft), headers=zh)
        missing = client.get(path.format(987_654), headers=zh)
        assert seen.status_code == missing.status_code == 404
        assert seen.json()["detail"][0]["loc"] == missing.json()["detail"][0]["loc"] == loc
        assert seen.json()["detail"][0]["msg"] == f"找不到價目表 {draft}"
        assert missing.json()["detail"][0]["msg"] == "找不到價目表 987654"
    assert client.get(f"/api/v1/price-lists/{draft}", headers=admin.headers).status_code == 200


@pytest.mark.parametrize(
    ("path", "lang", "msg"),
    [
        ("/api/v1/plans/1/pdf?lang=xx", "en", "Must be one of 'zh-TW' or 'en'."),
        ("/api/v1/plans/1/pdf?lang=xx", "zh-TW", "須為下列之一：'zh-TW' 或 'en'。"),
        (
            "/api/v1/validation?kind=x",
            "en",
            "Must be one of 'training', 'serving' or 'image'.",
        ),
        ("/api/v1/catalog/export?format=xml", "en", "Must be one of 'json' or 'csv'."),
    ],
)
def test_a_query_parameter_outside_its_choices_names_them(
    client: TestClient, path: str, lang: str, msg: str
) -> None:
    """QA: `?lang=xx` read "Choose one of the listed options." with no list to choose from (a
    body's fixed-set field already named its values)."""
    a = make_account(client, "admin")
    r = client.get(path, headers={**a.headers, "Accept-Language": lang})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["msg"] == msg
