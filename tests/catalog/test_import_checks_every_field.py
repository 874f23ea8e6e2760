"""An import checks every field before anything is stored (QA of stop 32).

* A draft named with a control or text-direction character ("\\u202eabc", "\\x00x") was
  saved, and from then on every price-list listing — the API's, the catalog page, and once it
  was published `GET /api/v1/price-lists/current` for everyone — answered 500: the output
  model refused what the import wrote.
* Whole numbers had no upper bound: a server of 2^63 GB RAM passed the preview ("ok") and
  was a 500 when applied; 2^31 and up were stored (too large for PostgreSQL's INTEGER).
* A server's `nics` was the one text field without the checks: NUL, U+202E and 100,000
  characters were stored.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.catalog import service
from app.db import make_engine, migrate
from app.main import create_app
from app.settings import Settings

from .helpers import csrf, soup

SERVER: dict[str, Any] = {
    "id": "qa-srv",
    "name": "QA server",
    "gpu_id": "h100-sxm-80gb",
    "gpu_count": 8,
    "cpu_cores": 64,
    "ram_gb": 2048,
    "nvme_tb": 8,
    "nics": "8× ConnectX-7 400G",
    "power_kw": 10,
    "price": 1_000_000,
    "currency": "TWD",
    "lead_time_weeks": 10,
    "source": "QA",
}
FX = {"base": "USD", "quote": "TWD", "rate": 32.0, "as_of": "2026-11-01", "source": "QA"}


def _doc(**kinds: list[dict[str, Any]]) -> dict[str, Any]:
    return {"format": "stratagem-catalog", "version": 1, **kinds}


def _import(
    client: TestClient, doc: dict[str, Any], headers: dict[str, str] | None = None, **params: Any
) -> Any:
    return client.post(
        "/api/v1/catalog/import",
        params={"dry_run": "false", "mode": "upsert", **params},
        json=doc,
        headers=headers,
    )


@pytest.mark.parametrize("name", ["\u202eabc", "\x00x", "a\x07bell", "two\nlines"])
def test_a_draft_name_with_a_control_character_is_refused_and_nothing_is_saved(
    catalog_client: TestClient, name: str
) -> None:
    before = catalog_client.get("/api/v1/price-lists").json()
    for dry_run in ("true", "false"):
        r = _import(catalog_client, _doc(fx=[FX]), name=name, dry_run=dry_run)
        assert r.status_code == 422, r.text
        (err,) = r.json()["detail"]
        assert err["loc"] == ["query", "name"]
        assert "control or text-direction" in err["msg"]
    after = catalog_client.get("/api/v1/price-lists")
    assert after.status_code == 200 and after.json() == before


def test_a_taken_name_is_refused_by_the_preview_as_by_the_import(
    catalog_client: TestClient,
) -> None:
    taken = catalog_client.get("/api/v1/price-lists").json()[0]["name"]
    for dry_run in ("true", "false"):
        r = _import(catalog_client, _doc(fx=[FX]), name=f"  {taken} ", dry_run=dry_run)
        assert r.status_code == 422
        (err,) = r.json()["detail"]
        assert err["loc"] == ["query", "name"] and "already exists" in err["msg"]


def test_a_good_name_is_kept_stripped(catalog_client: TestClient) -> None:
    r = _import(catalog_client, _doc(fx=[FX]), name="  2026-12 list  ")
    assert r.status_code == 201, r.text
    pl = catalog_client.get(f"/api/v1/price-lists/{r.json()['price_list_id']}").json()
    assert pl["name"] == "2026-12 list"


@pytest.mark.parametrize(
    ("field", "value", "bound"),
    [
        ("ram_gb", 2**63, "1048576"),  # was a 500 when applied
        ("ram_gb", 2**31, "1048576"),  # was stored
        ("cpu_cores", 5_000, "4096"),
        ("gpu_count", 2_000, "1024"),
    ],
)
def test_server_numbers_past_their_bound_are_rejected_rows(
    catalog_client: TestClient, field: str, value: int, bound: str
) -> None:
    doc = _doc(servers=[{**SERVER, field: value}])
    dry = _import(catalog_client, doc, dry_run="true")
    assert dry.status_code == 200 and not dry.json()["ok"]
    (message,) = dry.json()["messages"]
    assert message.startswith(f"servers row 1: {field} ") and bound in message.replace(",", "")
    before = catalog_client.get("/api/v1/price-lists").json()
    r = _import(catalog_client, doc)
    assert r.status_code == 422 and not r.json()["applied"]
    assert catalog_client.get("/api/v1/price-lists").json() == before


@pytest.mark.parametrize(
    ("field", "value"), [("gpus_per_node", 2**40), ("mig_max", 65), ("mig_max", -1)]
)
def test_gpu_numbers_past_their_bound_are_rejected_rows(
    catalog_client: TestClient, field: str, value: int
) -> None:
    gpu = catalog_client.get("/api/v1/catalog/export").json()["gpus"][0]
    r = _import(catalog_client, _doc(gpus=[{**gpu, field: value}]), dry_run="true")
    assert r.status_code == 200 and not r.json()["ok"]
    assert r.json()["messages"][0].startswith(f"gpus row 1: {field} ")


@pytest.mark.parametrize("nics", ["a\x00b", "x\u202ey", "n" * 201])
def test_a_servers_nics_are_checked_like_every_other_text(
    catalog_client: TestClient, nics: str
) -> None:
    r = _import(catalog_client, _doc(servers=[{**SERVER, "nics": nics}]), dry_run="true")
    assert r.status_code == 200 and not r.json()["ok"]
    assert r.json()["messages"][0].startswith("servers row 1: nics ")


def test_a_boolean_is_not_a_number_in_an_import(catalog_client: TestClient) -> None:
    """`"fp8_tflops": true` set the A100's FP8 figure to 1.0 in every list (GPU specs are
    global); `{"12": false}` was a 12-month term at 0% off."""
    gpu = next(
        g
        for g in catalog_client.get("/api/v1/catalog/export").json()["gpus"]
        if g["fp8_tflops"] is None
    )
    r = _import(catalog_client, _doc(gpus=[{**gpu, "fp8_tflops": True}]), dry_run="true")
    assert not r.json()["ok"] and "fp8_tflops" in r.json()["messages"][0]
    offer = catalog_client.get("/api/v1/catalog/export").json()["offers"][0]
    offer = {**offer, "term_discounts": {"12": False}}
    r = _import(catalog_client, _doc(offers=[offer]), dry_run="true")
    assert not r.json()["ok"] and "term_discounts" in r.json()["messages"][0]


def test_the_import_page_says_at_the_name_field_what_is_wrong_in_the_page_language(
    catalog_client: TestClient,
) -> None:
    csv_text = catalog_client.get(
        "/api/v1/catalog/export", params={"format": "csv", "kind": "offers"}
    ).text
    before = catalog_client.get("/api/v1/price-lists").json()
    r = catalog_client.post(
        "/catalog/import",
        data={
            "kind": "offers",
            "target": "new",
            "name": "\u202elist",
            "csrf_token": csrf(catalog_client),
        },
        files={"file": ("offers.csv", csv_text.encode("utf-8"), "text/csv")},
        headers={"Accept-Language": "zh-TW"},
        follow_redirects=False,
    )
    assert r.status_code == 422
    page = soup(r.text)
    assert "U+202E" in page.select_one("#err-name").get_text()
    assert "控制" in page.select_one("#err-name").get_text()
    assert page.select_one("#apply-form") is None  # nothing to apply
    assert catalog_client.get("/api/v1/price-lists").json() == before


def test_an_existing_database_is_repaired_by_the_upgrade(tmp_path: Path) -> None:
    """Upgraded from 0012 with what the unchecked import stored: every price-list listing
    answers again, the names and nics lose the characters, the numbers their excess."""
    path = tmp_path / "old.db"
    url = f"sqlite:///{path}"
    migrate(url, "0012_price_list_ids_not_reused")
    engine = make_engine(url)
    with Session(engine) as s:
        service.load_shipped(session=s, actor="setup")
    engine.dispose()
    with sqlite3.connect(path) as raw:
        (first,) = raw.execute("SELECT min(id) FROM price_list").fetchone()
        raw.execute("UPDATE price_list SET name = ? WHERE id = ?", ("\u202e\x00", first))
        raw.execute("UPDATE server_sku SET ram_gb = ?, nics = ?", (2**31, "a\x00b" + "n" * 300))
        raw.execute("UPDATE gpu SET mig_max = 99")
    migrate(url)
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT name FROM price_list WHERE id = ?", (first,)).fetchone() == (
            f"Price list {first}",
        )
        rows = raw.execute("SELECT ram_gb, nics FROM server_sku").fetchall()
        assert {ram for ram, _nics in rows} == {1_048_576}
        nics = [n for _ram, n in rows]
        assert {len(n) for n in nics} == {200} and all(n.startswith("ab") for n in nics)
        assert raw.execute("SELECT DISTINCT mig_max FROM gpu").fetchall() == [(64,)]
    client = TestClient(create_app(Settings(database_url=url)))
    assert client.get("/api/v1/price-lists").status_code == 200
    assert client.get("/api/v1/price-lists/current").status_code == 200


def test_one_contract_length_given_twice_is_refused(catalog_client: TestClient) -> None:
    """QA: `1:0;1:0.1` in a CSV cell, and {"1": 0.1, "01": 0.2} in a JSON import, were each
    saved as one month-1 discount, the other dropped without a word."""
    offer = catalog_client.get("/api/v1/catalog/export").json()["offers"][0]
    r = _import(catalog_client, _doc(offers=[{**offer, "term_discounts": {"1": 0.1, "01": 0.2}}]),
                dry_run="true")  # fmt: skip
    (msg,) = r.json()["messages"]
    assert not r.json()["ok"] and "term_discounts gives one contract length twice" in msg
    from app.catalog.io import parse_terms

    assert parse_terms("1:0;1:0.1") == (
        {},
        "gives one contract length twice: give each number of months once (got '1:0;1:0.1')",
    )
    assert parse_terms('{"1": 0.1, "01": 0.2}')[1] is not None
    assert parse_terms("1:0;6:0.1") == ({1: 0.0, 6: 0.1}, None)


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        # A JSON row's list or object where text goes: "Input should be a valid string" (QA).
        ("name", ["QA", "server"], "servers row 1: name must be text (got ['QA', 'server'])"),
        ("source", {"a": 1}, "servers row 1: source must be text (got {'a': 1})"),
    ],
)
def test_a_wrong_kind_of_value_is_said_in_the_products_words(
    catalog_client: TestClient, field: str, value: Any, said: str
) -> None:
    r = _import(catalog_client, _doc(servers=[{**SERVER, field: value}]), dry_run="true")
    assert r.status_code == 200 and not r.json()["ok"]
    (message,) = r.json()["messages"]
    assert message == said
    assert "Input should" not in message


def test_a_wrong_kind_of_value_is_said_in_chinese_to_a_chinese_reader(
    catalog_client: TestClient,
) -> None:
    r = _import(
        catalog_client,
        _doc(servers=[{**SERVER, "name": ["QA"]}]),
        dry_run="true",
        headers={"Accept-Language": "zh-TW"},
    )
    (message,) = r.json()["messages"]
    assert "必須是文字（收到 ['QA']）" in message


def test_term_discounts_nested_too_deeply_are_refused_naming_the_cell() -> None:
    """A term_discounts cell of 100,000 nested lists made the JSON reader recurse past
    Python's limit: a 500 on the import. It is a cell that is not months → fraction."""
    from app.catalog import io

    deep = '{"12": ' + "[" * 100_000 + "]" * 100_000 + "}"
    terms, err = io.parse_terms(deep)
    assert terms == {}
    assert err == "is not a JSON object of months → fraction (got '" + deep[:80] + "…')"
