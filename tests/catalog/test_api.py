"""JSON API v1 of the catalog: offers, cloud, price lists, export, import."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

CSV_HEADER = (
    "id,provider,gpu_id,gpu_count,monthly_price,hourly_price,currency,term_discounts,"
    "lead_time_hours,includes_power,interconnect,source\n"
)


def test_offers_list_the_current_list(catalog_client: TestClient) -> None:
    r = catalog_client.get("/api/v1/offers")
    assert r.status_code == 200
    offers = {o["id"]: o for o in r.json()}
    mig = offers["stratagem-tpe-h100-mig-1of4"]  # seed 003 T8: MIG 1/4 NT$15,000
    assert mig["gpu"] == "h100-sxm-80gb" and mig["gpu_count"] == 0.25
    assert mig["monthly_price"] == 15_000 and mig["hourly_price"] is None
    assert mig["currency"] == "TWD" and mig["provider"] == "Stratagem Taipei"
    assert mig["term_discounts"] == {"1": 0.0, "3": 0.0, "6": 0.1, "12": 0.2}
    assert mig["source"].startswith("Seed 003")
    x1 = offers["stratagem-tpe-h100-x1"]
    assert (x1["gpu_count"], x1["monthly_price"], x1["hourly_price"]) == (1, 50_000, 120)


def test_offers_search_sort_and_price_list(catalog_client: TestClient) -> None:
    r = catalog_client.get("/api/v1/offers", params={"q": "RUNPOD", "sort": "monthly_price"})
    prices = [o["monthly_price"] for o in r.json()]
    assert len(prices) == 11 and prices == sorted(prices)
    desc = catalog_client.get("/api/v1/offers", params={"sort": "monthly_price", "dir": "desc"})
    assert desc.json()[0]["id"] == "stratagem-tpe-h100-x16-ib"
    lists = catalog_client.get("/api/v1/price-lists").json()
    explicit = catalog_client.get("/api/v1/offers", params={"price_list": lists[0]["id"]})
    assert explicit.json() == catalog_client.get("/api/v1/offers").json()


@pytest.mark.parametrize(
    ("params", "status", "field"),
    [
        ({"price_list": 999_999}, 404, "price_list"),
        ({"price_list": "abc"}, 404, "price_list"),  # no list can have it (app/web/path_ids.py)
        ({"dir": "sideways"}, 422, "dir"),
    ],
)
def test_offers_bad_parameters_are_4xx_naming_the_field(
    catalog_client: TestClient, params: dict[str, object], status: int, field: str
) -> None:
    r = catalog_client.get("/api/v1/offers", params=params)
    assert r.status_code == status
    assert r.json()["detail"][0]["loc"][-1] == field


@pytest.mark.parametrize(
    ("path", "term"), [("/api/v1/offers", "runpod"), ("/api/v1/cloud", "lambda")]
)
def test_the_catalog_lists_search_as_plans_and_customers_do(
    catalog_client: TestClient, path: str, term: str
) -> None:
    """The plans and customers lists take `search`; the catalog's took only `q`, and ignored
    `search`, listing everything as if it had found it."""
    by_q = catalog_client.get(path, params={"q": term}).json()
    everything = catalog_client.get(path).json()
    assert 0 < len(by_q) < len(everything)
    assert catalog_client.get(path, params={"search": term}).json() == by_q
    assert catalog_client.get(path, params={"q": term, "search": term}).json() == by_q
    for lang, words in (
        ("en", "give the text to search for once"),
        ("zh-TW", "搜尋文字請只給一次"),
    ):
        r = catalog_client.get(
            path, params={"q": term, "search": "aws"}, headers={"Accept-Language": lang}
        )
        assert r.status_code == 422
        detail = r.json()["detail"][0]
        assert detail["loc"][-1] == "search" and words in detail["msg"]


def test_cloud_instances(catalog_client: TestClient) -> None:
    cloud = {c["id"]: c for c in catalog_client.get("/api/v1/cloud").json()}
    p5 = cloud["aws-p5-48xlarge-use1"]  # PRODUCT.md §4: US$55.04/h after the June 2025 cut
    assert p5["gpu"] == "h100-sxm-80gb" and p5["gpu_count"] == 8
    assert p5["on_demand_hourly"] == 55.04 and p5["currency"] == "USD"
    assert p5["price_date"] == "2026-01-21" and p5["provider"] == "AWS"
    assert cloud["aws-p5-48xlarge-use1-2024"]["on_demand_hourly"] == 98.32


def test_price_lists_and_one_list_with_its_rows(catalog_client: TestClient) -> None:
    lists = catalog_client.get("/api/v1/price-lists").json()
    assert len(lists) == 1
    (pl,) = lists
    assert pl["name"] == "2026-11 list" and pl["status"] == "published" and pl["is_current"]
    assert pl["counts"]["offers"] == 17 and pl["effective_date"] == "2026-11-01"
    detail = catalog_client.get(f"/api/v1/price-lists/{pl['id']}").json()
    assert len(detail["offers"]) == 17 and len(detail["cloud"]) == pl["counts"]["cloud"]
    assert detail["buy"]["amortisation_years"] == 3  # seed 003 T9
    assert detail["fx"][0]["rate"] == 32.0
    h100 = next(g for g in detail["gpus"] if g["id"] == "h100-sxm-80gb")
    assert h100["bf16_tflops"] == 989 and h100["price_usd"] == 25_600  # dense, not 1,979
    assert catalog_client.get("/api/v1/price-lists/current").json()["id"] == pl["id"]
    assert catalog_client.get("/api/v1/price-lists/999999").status_code == 404


def test_export_csv_and_json(catalog_client: TestClient) -> None:
    r = catalog_client.get("/api/v1/catalog/export", params={"format": "csv", "kind": "offers"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"]
    assert r.content.startswith(b"\xef\xbb\xbf" + CSV_HEADER.replace("\n", "\r\n").encode())
    doc = catalog_client.get("/api/v1/catalog/export").json()
    assert doc["format"] == "stratagem-catalog" and len(doc["offers"]) == 17
    no_kind = catalog_client.get("/api/v1/catalog/export", params={"format": "csv"})
    assert no_kind.status_code == 422 and no_kind.json()["detail"][0]["loc"] == ["query", "kind"]


def test_import_dry_run_csv_upload_then_apply(catalog_client: TestClient) -> None:
    csv_text = catalog_client.get(
        "/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}
    ).text
    changed = csv_text.replace(",50000,120,", ",52000,125,")
    files = {"file": ("offers.csv", changed.encode("utf-8"), "text/csv")}
    dry = catalog_client.post("/api/v1/catalog/import", params={"kind": "offers"}, files=files)
    assert dry.status_code == 200
    body = dry.json()
    assert body["ok"] and not body["applied"] and body["unchanged"] == 16
    (change,) = body["changed"]
    assert {f["field"]: (f["old"], f["new"]) for f in change["fields"]} == {
        "monthly_price": (50_000, 52_000),
        "hourly_price": (120, 125),
    }
    applied = catalog_client.post(
        "/api/v1/catalog/import",
        params={"kind": "offers", "dry_run": "false", "name": "API import"},
        files=files,
    )
    assert applied.status_code == 201
    new_id = applied.json()["price_list_id"]
    offers = catalog_client.get("/api/v1/offers", params={"price_list": new_id}).json()
    assert next(o for o in offers if o["id"] == "stratagem-tpe-h100-x1")["monthly_price"] == 52_000
    current = catalog_client.get("/api/v1/offers").json()  # the draft is not current
    assert next(o for o in current if o["id"] == "stratagem-tpe-h100-x1")["monthly_price"] == 50_000


def test_import_json_body_rejected_rows_are_422_and_write_nothing(
    catalog_client: TestClient,
) -> None:
    doc = catalog_client.get("/api/v1/catalog/export").json()
    doc["offers"][3]["monthly_price"] = -5
    lists_before = catalog_client.get("/api/v1/price-lists").json()
    dry = catalog_client.post("/api/v1/catalog/import", json=doc)
    assert dry.status_code == 200 and not dry.json()["ok"]
    assert dry.json()["messages"] == ["offers row 4: monthly_price must be ≥ 0 (got -5)"]
    r = catalog_client.post("/api/v1/catalog/import", params={"dry_run": "false"}, json=doc)
    assert r.status_code == 422 and not r.json()["applied"]
    assert catalog_client.get("/api/v1/price-lists").json() == lists_before


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"content": b""}, "file"),
        ({"content": b"id,provider\n", "headers": {"content-type": "text/plain"}}, "format"),
        ({"params": {"format": "xml"}, "content": b"x"}, "format"),
        ({"params": {"price_list": 0}, "json": {}}, "price_list"),
    ],
)
def test_import_bad_requests_are_4xx(
    catalog_client: TestClient, kwargs: dict[str, object], field: str
) -> None:
    r = catalog_client.post("/api/v1/catalog/import", **kwargs)  # type: ignore[arg-type]
    assert 400 <= r.status_code < 500
    assert r.json()["detail"][0]["loc"][-1] == field


def test_import_into_a_published_list_is_409(catalog_client: TestClient) -> None:
    pl = catalog_client.get("/api/v1/price-lists").json()[0]
    r = catalog_client.post(
        "/api/v1/catalog/import", params={"price_list": pl["id"]}, json={"offers": []}
    )
    assert r.status_code == 409


def test_estimates_are_priced_with_the_current_list(catalog_client: TestClient) -> None:
    r = catalog_client.post(
        "/api/v1/estimate", json={"model": {"preset": "llama-3.1-8b"}, "task": "lora"}
    )
    assert r.status_code == 200
    assert r.json()["cost"] is not None
    assert "2026-11 list" in json.dumps(r.json()["cost"])


def test_every_catalog_route_is_documented(catalog_client: TestClient) -> None:
    spec = catalog_client.get("/openapi.json").json()
    catalog_ops = [
        (path, method, op)
        for path, ops in spec["paths"].items()
        for method, op in ops.items()
        if "catalog" in op.get("tags", [])
    ]
    paths = {p for p, _m, _o in catalog_ops}
    assert {
        "/api/v1/offers",
        "/api/v1/cloud",
        "/api/v1/price-lists",
        "/api/v1/price-lists/{price_list_id}",
        "/api/v1/catalog/export",
        "/api/v1/catalog/import",
    } <= paths
    for path, method, op in catalog_ops:
        assert op.get("description"), f"{method.upper()} {path} has no docstring"
        assert "\n" not in op["description"].strip(), f"{path}: one line"
    offers = spec["paths"]["/api/v1/offers"]["get"]["responses"]["200"]["content"]
    assert offers["application/json"]["schema"]["items"]["$ref"].endswith("RentalOfferPublic")
    body = spec["paths"]["/api/v1/catalog/import"]["post"]["requestBody"]["content"]
    assert {"application/json", "text/csv", "multipart/form-data"} <= set(body)
