"""A quote's life through the API: builder fields, totals, approval, send, accept/decline,
expiry, and the refusals that name the field or state (issue 10)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app import i18n
from app.plans.models import Plan
from app.plans.service import today
from app.web.templating import money
from tests.accounts.helpers import Account, make_account
from tests.plan_quotes import WORKLOAD

TERM = "rent_term:stratagem-tpe-h100-x4"


def _customer(client: TestClient, a: Account, **extra: Any) -> dict[str, Any]:
    body = {"name": "台灣智慧客服股份有限公司", "tax_id": "22099131", **extra}
    r = client.post("/api/v1/customers", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    return r.json()


def _quote(discount: str = "10") -> dict[str, Any]:
    return {
        "lines": [
            {"option_key": TERM},
            {"description": "NAS 20 TB", "quantity": "1", "unit_price": "8000", "months": "6"},
        ],
        "discount_pct": discount,
    }


def _plan(client: TestClient, a: Account, customer_id: int, quote: dict[str, Any]) -> dict:
    body = {"name": "客服模型", "workload": WORKLOAD, "customer_id": customer_id, "quote": quote}
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    return r.json()


def _share(client: TestClient, a: Account, plan_id: int) -> str:
    r = client.post(f"/api/v1/plans/{plan_id}/share", json={}, headers=a.headers)
    assert r.status_code == 201, r.text
    url = r.json()["url"]
    return url[url.index("/s/") :]


def test_totals_by_hand_and_export_customer(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], _quote())
    # Seed 003 T8: 4×H100 NT$200,000/month, 6-month term −10% → NT$180,000 × 6 = 1,080,000;
    # NAS NT$8,000 × 6 = 48,000; lines 1,128,000; −10% = 1,015,200; 5% tax 50,760.
    assert p["quote_totals"]["subtotal"] == "1015200"
    assert p["quote_totals"]["tax"] == "50760"
    assert p["quote_totals"]["total"] == "1065960"
    assert p["quote_totals"]["currency"] == "TWD"
    assert p["customer_id"] == c["id"] and p["customer"] == c["name"]
    assert p["quote"]["valid_until"] == (today() + timedelta(days=30)).isoformat()
    assert p["quote"]["payment_terms"].startswith("於統一發票")  # customer writes 中文
    export = _customer(client, a, name="Export Co", tax_id="", export=True, language="en")
    e = _plan(client, a, export["id"], _quote())
    assert e["quote"]["tax_rate"] == "0" and e["quote_totals"]["tax"] == "0"
    assert e["quote_totals"]["total"] == "1015200"
    assert e["quote"]["payment_terms"].startswith("Payment by bank transfer")
    listed = client.get("/api/v1/plans", params={"customer_id": c["id"]}, headers=a.headers)
    assert [x["id"] for x in listed.json()["items"]] == [p["id"]]


def test_usd_customer_gets_fx_rate_and_date(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="US buyer", tax_id="", currency="USD", export=True)
    p = _plan(client, a, c["id"], _quote("0"))
    fx = p["quote"]["fx"]
    assert fx["base"] == "USD" and fx["quote"] == "TWD" and fx["as_of"]
    rate = Decimal(fx["rate"])
    # 180,000 NT$ / rate, rounded to the cent.
    assert Decimal(p["quote"]["lines"][0]["unit_price"]) == (Decimal(180000) / rate).quantize(
        Decimal("0.01")
    )
    assert p["quote_totals"]["currency"] == "USD"


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"discount_pct": "101"}, ["body", "quote", "discount_pct"]),
        (
            {"lines": [{"description": "x", "unit_price": "1", "quantity": "-1"}]},
            ["body", "quote", "lines", "0", "quantity"],
        ),
        ({"valid_until": "2000-01-01"}, ["body", "quote", "valid_until"]),
        (
            {"lines": [{"option_key": "rent_term:nope"}]},
            ["body", "quote", "lines", "0", "option_key"],
        ),
        ({"tax_rate": "5"}, ["body", "quote", "tax_rate"]),
    ],
)
def test_bad_quote_input_is_422_naming_the_field(
    client: TestClient, patch: dict[str, Any], field: list[str]
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], _quote())
    r = client.put(
        f"/api/v1/plans/{p['id']}",
        json={"version": p["version"], "quote": {**_quote(), **patch}},
        headers=a.headers,
    )
    assert r.status_code == 422, r.text
    assert [str(x) for x in r.json()["detail"][0]["loc"]][: len(field)] == field


def test_life_approval_send_accept(client: TestClient) -> None:
    sales = make_account(client, "sales")
    admin = make_account(client, "admin")
    c = _customer(client, sales)
    p = _plan(client, sales, c["id"], _quote("15"))
    pid = p["id"]
    # 15% is over the sales limit (10%): sending waits for an admin.
    r = client.post(f"/api/v1/plans/{pid}/send", headers=sales.headers)
    assert r.status_code == 409
    assert r.json()["detail"][0]["loc"] == ["body", "status", "discount_approval_required"]
    assert (
        client.post(f"/api/v1/plans/{pid}/approve-discount", headers=sales.headers).status_code
        == 403
    )
    r = client.post(f"/api/v1/plans/{pid}/approve-discount", headers=admin.headers)
    assert r.status_code == 200 and r.json()["discount_approved_by"] == admin.user.id
    assert Decimal(r.json()["discount_approved_pct"]) == Decimal(15)
    assert r.json()["discount_approved_at"]
    # Status cannot be forced by a save once there is a quote.
    forced = client.put(
        f"/api/v1/plans/{pid}",
        json={"version": r.json()["version"], "status": "sent"},
        headers=sales.headers,
    )
    assert forced.status_code == 422 and forced.json()["detail"][0]["loc"] == ["body", "status"]
    link = _share(client, sales, pid)
    anon = TestClient(client.app)
    early = anon.post(f"{link}/accept", json={"name": "王小明", "title": "採購經理"})
    assert early.status_code == 409 and early.json()["detail"][0]["loc"][-1] == "draft"
    sent = client.post(f"/api/v1/plans/{pid}/send", headers=sales.headers)
    assert sent.status_code == 200, sent.text
    sent_version = sent.json()["sent_version"]
    assert sent.json()["status"] == "sent" and sent_version == sent.json()["version"]
    # A later edit does not change what the customer sees: the sent revision.
    later = client.put(
        f"/api/v1/plans/{pid}",
        json={"version": sent_version, "quote": _quote("5")},
        headers=sales.headers,
    )
    assert (
        later.status_code == 200
        and later.json()["quote_totals"]["subtotal"] != sent.json()["quote_totals"]["subtotal"]
    )
    page = anon.get(link)
    assert page.status_code == 200
    i18n.activate("zh-TW")
    assert money(float(sent.json()["quote_totals"]["total"]), "TWD") in page.text
    # Accepting needs name and title.
    missing = anon.post(f"{link}/accept", json={"name": "王小明"})
    assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["body", "title"]
    ok = anon.post(f"{link}/accept", json={"name": "王小明", "title": "採購經理"})
    assert ok.status_code == 200 and ok.json()["status"] == "accepted"
    assert ok.json()["revision"] == sent_version
    got = client.get(f"/api/v1/plans/{pid}", headers=sales.headers).json()
    assert got["status"] == "accepted" and got["decision_name"] == "王小明"
    assert got["decision_title"] == "採購經理" and got["decision_ip"] and got["decided_at"]
    assert got["decision_version"] == sent_version
    again = anon.post(f"{link}/decline", json={"reason": "too late"})
    assert again.status_code == 409 and again.json()["detail"][0]["loc"][-1] == "accepted"


def test_decline_and_expiry(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    for outcome in ("decline", "expire"):
        p = _plan(client, a, c["id"], _quote("0"))
        link = _share(client, a, p["id"])
        assert client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).status_code == 200
        anon = TestClient(client.app)
        if outcome == "decline":
            assert anon.post(f"{link}/decline", json={}).status_code == 422
            r = anon.post(f"{link}/decline", json={"reason": "預算不足"})
            assert r.status_code == 200 and r.json()["status"] == "declined"
            got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
            assert got["decline_reason"] == "預算不足"
            continue
        with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
            row = s.get(Plan, p["id"])
            assert row is not None
            row.valid_until = today() - timedelta(days=1)
            s.add(row)
            s.commit()
        r = anon.post(f"{link}/accept", json={"name": "A", "title": "B"})
        assert r.status_code == 409 and r.json()["detail"][0]["loc"][-1] == "expired"
        listed = client.get("/api/v1/plans", params={"status": "expired"}, headers=a.headers)
        assert p["id"] in [x["id"] for x in listed.json()["items"]]


def _answered(client: TestClient, answer: str) -> tuple[Account, dict[str, Any], str]:
    """A quote the customer accepted or declined through its share link (the plan as after)."""
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    link = _share(client, a, p["id"])
    assert client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).status_code == 200
    anon = TestClient(client.app)
    if answer == "accepted":
        r = anon.post(f"{link}/accept", json={"name": "Alice", "title": "CTO"})
    else:
        r = anon.post(f"{link}/decline", json={"reason": "budget"})
    assert r.status_code == 200 and r.json()["status"] == answer
    return a, client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json(), link


@pytest.mark.parametrize("answer", ["accepted", "declined"])
def test_an_answered_quote_is_frozen(client: TestClient, answer: str) -> None:
    a, p, link = _answered(client, answer)
    pid, v = p["id"], p["version"]
    en = {**a.headers, "Accept-Language": "en"}
    changes: list[dict[str, Any]] = [
        {"quote": {"lines": [{"description": "GPU", "unit_price": "1", "months": "1"}]}},
        {"name": "renamed"},
        {"customer": "someone else"},
        {"workload": {**WORKLOAD, "seq_len": 4096}},
        {"status": "draft"},
        {"status": "sent"},
    ]
    for change in changes:
        r = client.put(f"/api/v1/plans/{pid}", json={"version": v, **change}, headers=en)
        assert r.status_code == 409, (change, r.text)
        detail = r.json()["detail"][0]
        assert detail["loc"] == ["body", "status", answer]
        assert detail["msg"].startswith(f"the quote was {answer} on ")
        assert detail["msg"].endswith("; duplicate the plan to revise it")
    # Re-pricing, sending again and approving a discount are refused the same way.
    for action in ("reprice", "send"):
        r = client.post(f"/api/v1/plans/{pid}/{action}", headers=en)
        assert r.status_code == 409 and r.json()["detail"][0]["loc"][-1] == answer
    admin = make_account(client, "admin")
    r = client.post(f"/api/v1/plans/{pid}/approve-discount", headers=admin.headers)
    assert r.status_code == 409
    # Chinese for a Chinese client.
    zh = client.put(
        f"/api/v1/plans/{pid}",
        json={"version": v, "name": "x"},
        headers={**a.headers, "Accept-Language": "zh-TW"},
    )
    assert zh.json()["detail"][0]["msg"].startswith("此報價已於 ")
    # Nothing of that was saved: same version, same quote.
    now = client.get(f"/api/v1/plans/{pid}", headers=a.headers).json()
    assert now["version"] == v and now["quote"] == p["quote"] and now["status"] == answer
    # Internal notes and tags, and archiving, are the team's and may still change.
    ok = client.put(
        f"/api/v1/plans/{pid}",
        json={"version": v, "notes": "PO 4711 received", "tags": ["won"], "name": p["name"]},
        headers=a.headers,
    )
    assert ok.status_code == 200, ok.text
    assert ok.json()["notes"] == "PO 4711 received" and ok.json()["status"] == answer
    assert client.post(f"/api/v1/plans/{pid}/archive", headers=a.headers).status_code == 200
    # The answer stays the one on record: a second one is refused.
    again = TestClient(client.app).post(f"{link}/accept", json={"name": "Mallory", "title": "x"})
    assert again.status_code == 409
    final = client.get(f"/api/v1/plans/{pid}", headers=a.headers).json()
    assert final["decision_name"] == p["decision_name"]
    assert final["decided_at"] == p["decided_at"]


def test_duplicating_an_accepted_quote_gives_an_editable_draft(client: TestClient) -> None:
    a, p, _link = _answered(client, "accepted")
    dup = client.post(f"/api/v1/plans/{p['id']}/duplicate", headers=a.headers)
    assert dup.status_code == 201 and dup.json()["status"] == "draft"
    r = client.put(
        f"/api/v1/plans/{dup.json()['id']}",
        json={"version": dup.json()["version"], "quote": _quote("5")},
        headers=a.headers,
    )
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("status", ["accepted", "declined", "expired"])
def test_answer_statuses_are_never_set_by_a_save(client: TestClient, status: str) -> None:
    a = make_account(client, "sales")
    en = {**a.headers, "Accept-Language": "en"}
    body = {"name": "no quote", "workload": WORKLOAD, "status": status}
    r = client.post("/api/v1/plans", json=body, headers=en)
    assert r.status_code == 422
    assert r.json()["detail"] == [
        {
            "loc": ["body", "status"],
            "msg": "This status is set by sending the quote and by the customer's answer, not by hand.",
            "type": "value_error",
        }
    ]
    made = client.post("/api/v1/plans", json={**body, "status": "draft"}, headers=en).json()
    r = client.put(f"/api/v1/plans/{made['id']}", json={"version": 1, "status": status}, headers=en)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "status"]
    assert client.get(f"/api/v1/plans/{made['id']}", headers=a.headers).json()["version"] == 1


def test_a_plan_marked_sent_by_hand_gets_its_first_quote_as_a_draft(client: TestClient) -> None:
    """QA: a plan created as "sent" (the old pipeline marker, allowed without a quote) kept
    that status when a quote with a 50 % discount was added: listed as sent, never sent, its
    discount never approved. The quote is a draft until it is sent, which runs the checks."""
    a = make_account(client, "sales")
    en = {**a.headers, "Accept-Language": "en"}
    customer = _customer(client, a)
    body = {"name": "marked", "workload": WORKLOAD, "customer_id": customer["id"], "status": "sent"}
    made = client.post("/api/v1/plans", json=body, headers=en)
    assert made.status_code == 201 and made.json()["status"] == "sent"
    asked = client.put(
        f"/api/v1/plans/{made.json()['id']}",
        json={"version": 1, "quote": _quote("50"), "status": "sent"},
        headers=en,
    )
    assert asked.status_code == 422 and asked.json()["detail"][0]["loc"] == ["body", "status"]
    r = client.put(
        f"/api/v1/plans/{made.json()['id']}", json={"version": 1, "quote": _quote("50")}, headers=en
    )
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "draft" and r.json()["sent_version"] is None
    # Sending runs the checks: 50 % is over the sales limit (10 %) and waits for an admin.
    sent = client.post(f"/api/v1/plans/{made.json()['id']}/send", headers=en)
    assert sent.status_code == 409
    assert sent.json()["detail"][0]["loc"] == ["body", "status", "discount_approval_required"]


@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_an_answer_brings_back_the_revision_the_customer_was_sent(
    client: TestClient, answer: str
) -> None:
    # QA: sent at 10% off (NT$1,065,960), then saved at 5% off (1,125,180) while the customer
    # read the sent link; they accepted, and the plan read "accepted version 3" above the
    # later NT$1,125,180 they never saw. The answer now makes the sent revision the plan's.
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("10"))
    link = _share(client, a, p["id"])
    sent = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).json()
    assert sent["quote_totals"]["total"] == "1065960"  # 1,128,000 − 10% = 1,015,200 + 5%
    later = client.put(f"/api/v1/plans/{p['id']}", headers=a.headers,
                       json={"version": sent["version"], "quote": _quote("5")})  # fmt: skip
    assert later.status_code == 200 and later.json()["quote_totals"]["total"] == "1125180"
    anon = TestClient(client.app)
    body = {"name": "王小明", "title": "採購經理"} if answer == "accept" else {"reason": "預算"}
    assert anon.post(f"{link}/{answer}", json=body).status_code == 200
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert got["decision_version"] == sent["sent_version"]
    assert got["quote"] == sent["quote"] and got["quote_totals"] == sent["quote_totals"]
    assert got["version"] == later.json()["version"] + 1  # the 5% revision stays in history
    revisions = client.get(f"/api/v1/plans/{p['id']}/revisions", headers=a.headers).json()
    summaries = [r["change_summary"] for r in revisions]
    assert any(f"version {sent['sent_version']} again, as sent" in s for s in summaries)


def test_sending_an_unchanged_quote_again_changes_nothing(client: TestClient) -> None:
    """A second click on Send (or a retried request) must not add a revision: the customer
    already has exactly this version, and the history would list two sends of one quote."""
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    first = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers)
    again = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers)
    assert first.status_code == again.status_code == 200, again.text
    assert again.json()["version"] == first.json()["version"]
    assert again.json()["sent_version"] == first.json()["sent_version"]
    assert again.json()["sent_at"] == first.json()["sent_at"]
    revs = client.get(f"/api/v1/plans/{p['id']}/revisions", headers=a.headers).json()
    items = revs["items"] if isinstance(revs, dict) else revs
    assert len(items) == 2, "created + sent once"
    # After an edit, sending again sends the new version (a new revision, as before).
    edited = client.put(
        f"/api/v1/plans/{p['id']}",
        json={"version": first.json()["version"], "quote": _quote("5")},
        headers=a.headers,
    )
    assert edited.status_code == 200, edited.text
    resent = client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers)
    assert resent.status_code == 200
    assert resent.json()["sent_version"] == edited.json()["version"] + 1


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", "accepted on Dec 7, 2026;"), ("zh-TW", "2026年12月7日")],
)
def test_the_refusal_dates_the_decision_on_taipeis_calendar(lang: str, said: str) -> None:
    """Accepted at 20:30 UTC on 6 December, which is 04:30 on 7 December in Taipei: the plan
    and share pages say the 7th, and so does the refusal of a change (QA: it said the 6th)."""
    from datetime import datetime

    from app.plans.service import Decided

    i18n.activate(lang)
    try:
        refusal = Decided(Plan(status="accepted", decided_at=datetime(2026, 12, 6, 20, 30)))
        assert said in str(refusal)
    finally:
        i18n.activate("en")
