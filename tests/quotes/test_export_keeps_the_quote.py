"""An exported plan keeps its quote, and importing it brings the same lines, discounts, tax
and totals back (before, the export dropped the quote: a re-imported plan had none)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import _customer, _plan, _quote


def _export(client: TestClient, headers: dict, plan_id: int) -> dict:
    r = client.get(f"/api/v1/plans/{plan_id}/export", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def _count(client: TestClient, headers: dict) -> int:
    return int(client.get("/api/v1/plans", headers=headers).json()["total"])


def test_export_then_import_gives_the_same_quote_and_totals(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], _quote("10"))  # seed 003 T8 term line + NAS, −10%
    exported = _export(client, a.headers, p["id"])
    assert exported["quote_currency"] == "TWD"
    assert [ln.get("option_key") for ln in exported["quote"]["lines"]] == [
        "rent_term:stratagem-tpe-h100-x4",
        None,
    ]
    for reprice in (True, False):
        r = client.post("/api/v1/plans/import",
                        json={**exported, "reprice": reprice, "customer_id": c["id"]},
                        headers=a.headers)  # fmt: skip
        assert r.status_code == 201, r.text
        new = r.json()
        # By hand (test_quote_life): 1,128,000 of lines, −10% = 1,015,200; 5% tax 50,760.
        assert new["quote_totals"] == p["quote_totals"]
        assert new["quote_totals"]["total"] == "1065960"
        assert new["customer_id"] == c["id"]
        assert new["quote"]["payment_terms"] == p["quote"]["payment_terms"]
        assert [(x["unit_price"], x["quantity"], x["months"]) for x in new["quote"]["lines"]] == [
            (x["unit_price"], x["quantity"], x["months"]) for x in p["quote"]["lines"]
        ]


def test_import_without_the_quote_when_asked(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    exported = _export(client, a.headers, _plan(client, a, c["id"], _quote())["id"])
    r = client.post("/api/v1/plans/import", json={**exported, "include_quote": False},
                    headers=a.headers)  # fmt: skip
    assert r.status_code == 201, r.text
    assert r.json()["quote"] is None


def test_a_usd_quote_needs_a_usd_customer_and_saves_nothing_otherwise(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    usd = _customer(client, a, name="US buyer", tax_id="", currency="USD", export=True)
    exported = _export(client, a.headers, _plan(client, a, usd["id"], _quote("0"))["id"])
    assert exported["quote_currency"] == "USD"
    before = _count(client, a.headers)
    r = client.post("/api/v1/plans/import", json=exported,
                    headers={**a.headers, "Accept-Language": "en"})  # fmt: skip
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote_currency"] and "in USD" in detail["msg"]
    assert _count(client, a.headers) == before  # nothing half-imported
    ok = client.post("/api/v1/plans/import", json={**exported, "customer_id": usd["id"]},
                     headers=a.headers)  # fmt: skip
    assert ok.status_code == 201, ok.text
    assert ok.json()["quote_totals"]["currency"] == "USD"


def test_a_duplicate_keeps_the_customer_and_the_quote_as_a_new_draft(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], _quote("10"))
    r = client.post(f"/api/v1/plans/{p['id']}/duplicate", headers=a.headers)
    assert r.status_code == 201, r.text
    copy = r.json()
    assert copy["status"] == "draft" and copy["customer_id"] == c["id"]
    assert copy["quote_totals"] == p["quote_totals"]  # 1,065,960 incl. tax, by hand above
    assert len(copy["quote"]["lines"]) == 2


def test_a_one_off_line_stays_one_through_export_and_import(client: TestClient) -> None:
    # A free line given without months is billed once ("item"); read back with months 1 it
    # would become a monthly line.
    a = make_account(client, "sales")
    c = _customer(client, a)
    setup = {"description": "Installation", "unit_price": "50000"}
    p = _plan(client, a, c["id"], {"lines": [setup]})
    assert p["quote"]["lines"][0]["unit"] == "item"
    exported = _export(client, a.headers, p["id"])
    assert "months" not in exported["quote"]["lines"][0]
    r = client.post("/api/v1/plans/import", json={**exported, "customer_id": c["id"]},
                    headers=a.headers)  # fmt: skip
    assert r.status_code == 201, r.text
    assert r.json()["quote"]["lines"][0]["unit"] == "item"


def test_a_bad_quote_in_an_import_is_a_422_naming_its_field(client: TestClient) -> None:
    # QA: these three were a 500 (the quote reached the service as an unchecked dict).
    a = make_account(client, "sales")
    workload = {"model": {"preset": "llama-3.1-8b"}, "task": "lora"}
    before = _count(client, a.headers)
    for quote, loc in (
        ({"lines": [{"description": "x", "quantity": -1, "unit_price": 1}]},
         ["body", "quote", "lines", 0, "quantity"]),
        ({"tax_rate": "abc"}, ["body", "quote", "tax_rate"]),
        ({"lines": "x"}, ["body", "quote", "lines"]),
    ):  # fmt: skip
        r = client.post("/api/v1/plans/import", headers=a.headers,
                        json={"name": "imp", "workload": workload, "quote": quote})  # fmt: skip
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["loc"] == loc
    assert _count(client, a.headers) == before  # nothing half-imported


def test_an_import_checks_every_field_an_export_writes(client: TestClient) -> None:
    # QA fuzz: a NUL in the name was imported as is (POST /api/v1/plans refuses it), and a
    # status "bogus", version -5 or a 10,000-character quote number were a 201, dropped
    # without a word. The fields an import does not copy must still be an export's.
    a = make_account(client, "sales")
    c = _customer(client, a)
    exported = _export(client, a.headers, _plan(client, a, c["id"], _quote())["id"])
    before = _count(client, a.headers)
    for change, loc in (
        ({"name": "Lab\u0000"}, ["body", "name"]),
        ({"name": "   "}, ["body", "name"]),
        ({"customer": "ACME\u202e"}, ["body", "customer"]),
        ({"status": "bogus"}, ["body", "status"]),
        ({"version": -5}, ["body", "version"]),
        ({"quote_number": "Q" * 10_000}, ["body", "quote_number"]),
        ({"notes": "a\u0007b"}, ["body", "notes"]),
    ):  # fmt: skip
        r = client.post("/api/v1/plans/import", json={**exported, **change}, headers=a.headers)
        assert r.status_code == 422, (change, r.text)
        assert r.json()["detail"][0]["loc"] == loc, change
    assert _count(client, a.headers) == before
    # What an export writes still imports: a sent plan's status and revision are read, and
    # the new plan is a draft of revision 1 with a number of its own.
    r = client.post(
        "/api/v1/plans/import",
        json={**exported, "status": "sent", "version": 7, "notes": "line 1\nline 2"},
        headers=a.headers,
    )
    assert r.status_code == 201, r.text
    new = r.json()
    assert (new["status"], new["version"]) == ("draft", 1)
    assert new["quote_number"] != exported["quote_number"]


def test_an_import_naming_no_customer_is_a_422_on_its_customer_id(client: TestClient) -> None:
    """QA: a customer_id of nobody in an import body was a 404 with a bare string, as if the
    URL were wrong; a plan's body says it is a 422 on the field, and so does this one."""
    a = make_account(client, "sales")
    c = _customer(client, a)
    exported = _export(client, a.headers, _plan(client, a, c["id"], _quote("10"))["id"])
    r = client.post(
        "/api/v1/plans/import",
        json={**exported, "customer_id": 987_654},
        headers={**a.headers, "Accept-Language": "en"},
    )
    assert r.status_code == 422
    assert r.json()["detail"] == [
        {
            "loc": ["body", "customer_id"],
            "msg": "no customer 987654: choose one from GET /api/v1/customers",
            "type": "value_error",
        }
    ]
