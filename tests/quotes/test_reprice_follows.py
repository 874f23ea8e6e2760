"""A reprice moves the quote to the new price list too.

Before, `POST /plans/{id}/reprice` recomputed the plan's options with the new list but left
the quote's lines at the old list's prices (the reprice report said +10% while the quote sent
to the customer did not move), and a line whose option the new list no longer offers stayed
on the quote: the PDF printed it with no description, at the old price, for a server the
plan no longer used.

Each test runs on its own database: publishing a price list changes what every later plan
is priced with.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.bootstrap import prepare_database
from app.catalog import service as catalog
from app.main import create_app
from app.plans import service as plans
from app.quotes import worker
from app.settings import Settings
from tests.accounts.helpers import Account, make_account, sign_in
from tests.catalog.helpers import change_row, publish_copy
from tests.plan_quotes import WORKLOAD, leave_quote_behind

X4 = "stratagem-tpe-h100-x4"  # the provider's 4-GPU server: NT$200,000 a month
TERM = f"rent_term:{X4}"  # its 6-month term: 10% off (app/data/catalog.yaml)
QUOTE = {
    "lines": [
        {"option_key": TERM},  # the option's own price, quantity and months
        {"option_key": TERM, "unit_price": "150000", "description": "Negotiated"},  # typed
        {"description": "NAS 20 TB", "quantity": "1", "unit_price": "8000", "months": "6"},
    ]
}


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[TestClient]:
    s = Settings(
        DATABASE_URL=f"sqlite:///{tmp_path}/reprice.db",
        STRATAGEM_SECRET_KEY="reprice-test",
        STRATAGEM_PDF_WORKERS=0,
    )
    prepare_database(s, echo=lambda _: None)
    # The PDF worker pool is process-wide: this app renders in-process, and the next test
    # file on this xdist worker gets the session app's pool back (a test of the pool's
    # timeout read a size of 0 when it ran after this one).
    size, priority = worker.pool_size(), worker._priority
    try:
        with TestClient(create_app(s)) as c:
            yield c
    finally:
        worker.configure(size, priority)


def _plan(c: TestClient, a: Account) -> dict:
    body = {"name": "客服模型", "workload": WORKLOAD, "quote": QUOTE}
    r = c.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    return r.json()


def _new_list(c: TestClient, name: str, *, x4_monthly: float | None) -> int:
    """A published copy of the current list with the 4-GPU server's monthly price changed,
    or (None) without that server."""

    def edit(s: Session, list_id: int) -> None:
        if x4_monthly is None:
            catalog.delete_row(
                session=s, kind_name="offers", price_list_id=list_id, key=X4, actor="t"
            )
        else:
            change_row(s, list_id, "offers", X4, monthly_price=x4_monthly)

    return publish_copy(c, name, edit=edit)


def test_option_lines_take_the_new_prices_and_typed_prices_stay(fresh: TestClient) -> None:
    a = make_account(fresh, "sales")
    p = _plan(fresh, a)
    # 200,000 × (1 − 10%) = 180,000 a month for 6 months; 150,000 typed; NAS 8,000 × 6.
    assert [ln["unit_price"] for ln in p["quote"]["lines"]] == ["180000", "150000", "8000"]
    assert p["quote_totals"]["subtotal"] == str(1_080_000 + 900_000 + 48_000)

    b = _new_list(fresh, "2027-01", x4_monthly=220_000)  # +10%
    r = fresh.post(f"/api/v1/plans/{p['id']}/reprice", json={"price_list_id": b},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    body = r.json()
    q = body["plan"]["quote"]
    # 220,000 × 0.9 = 198,000 a month × 6 = 1,188,000; the typed 150,000 and NAS unchanged.
    assert [ln["unit_price"] for ln in q["lines"]] == ["198000", "150000", "8000"]
    assert [ln["months"] for ln in q["lines"]] == ["6", "6", "6"]
    subtotal = 1_188_000 + 900_000 + 48_000
    assert body["plan"]["quote_totals"]["subtotal"] == str(subtotal)
    assert body["quote_total_before"] == str(round((1_080_000 + 900_000 + 48_000) * 1.05))
    assert body["quote_total_after"] == str(round(subtotal * 1.05))  # 5% 營業稅
    assert body["removed_lines"] == []
    # The option's own figure agrees with the line that quotes it.
    term = next(o for o in body["plan"]["result"]["cost"]["options"] if o["key"] == TERM)
    assert round(term["total"]) == 1_188_000


def test_a_line_the_new_list_cannot_price_is_taken_out_and_reported(
    fresh: TestClient, tmp_path: Path
) -> None:
    a = make_account(fresh, "sales")
    p = _plan(fresh, a)
    c = _new_list(fresh, "2027-02", x4_monthly=None)  # no 4-GPU server any more
    r = fresh.post(f"/api/v1/plans/{p['id']}/reprice", json={"price_list_id": c},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    body = r.json()
    assert TERM not in {o["key"] for o in body["plan"]["result"]["cost"]["options"]}
    removed = body["removed_lines"]
    assert [(x["line"], x["option_key"], x["unit_price"]) for x in removed] == [
        (1, TERM, "180000"),
        (2, TERM, "150000"),
    ]
    assert removed[1]["label"] == "Negotiated"
    q = body["plan"]["quote"]
    assert [ln.get("description") for ln in q["lines"]] == ["NAS 20 TB"]
    assert body["plan"]["quote_totals"]["total"] == str(48_000 + 2_400)
    # Nothing is lost: the revision before the reprice keeps the lines.
    with Session(fresh.app.state.engine) as s:  # type: ignore[attr-defined]
        first = plans.get_revision(session=s, plan_id=p["id"], version=1)
        assert first.quote is not None
        assert [ln.get("option_key") for ln in first.quote["lines"]][:2] == [TERM, TERM]
    # The customer's PDF prints no line without a description or at a price the list dropped.
    pdf = fresh.get(f"/api/v1/plans/{p['id']}/pdf?lang=en", headers=a.headers)
    assert pdf.status_code == 200
    path = tmp_path / "q.pdf"
    path.write_bytes(pdf.content)
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True,
                          capture_output=True, text=True).stdout  # fmt: skip
    assert "NAS 20 TB" in text and "NT$180,000" not in text and "NT$150,000" not in text


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_the_reprice_page_shows_what_the_quote_lost(fresh: TestClient, lang: str) -> None:
    a = make_account(fresh, "sales")
    p = _plan(fresh, a)
    _new_list(fresh, f"2027-03-{lang}", x4_monthly=None)  # now the current list
    sign_in(fresh, a.user)
    page = fresh.get(f"/plans/{p['id']}", headers={"Accept-Language": lang})
    token = BeautifulSoup(page.text, "html.parser").select_one("input[name=csrf_token]")["value"]
    r = fresh.post(f"/plans/{p['id']}/reprice", data={"csrf_token": token},
                   headers={"Accept-Language": lang}, follow_redirects=True)  # fmt: skip
    assert r.status_code == 200
    soup = BeautifulSoup(r.text, "html.parser")
    section = soup.select_one("#quote-changes")
    assert section is not None
    notice = section.select_one(".notice.warn").get_text(" ", strip=True)
    rows = section.select("tbody tr")
    out = [tr for tr in rows if tr.select_one(".bad-text")]
    assert len(out) == 2  # the two 4-GPU lines
    total = rows[0].select("td")
    if lang == "zh-TW":
        assert "報價單移除了 2 個項目" in notice
        assert all(tr.select_one(".bad-text").get_text(strip=True) == "已移除" for tr in out)
    else:
        assert notice.startswith("2 lines were taken out of the quote")
        assert all(tr.select_one(".bad-text").get_text(strip=True) == "Taken out" for tr in out)
    # "What changed" names the price lists and writes the cheapest total as money.
    changed = {
        tr.th.get_text(strip=True): [td.get_text(strip=True) for td in tr.select("td")]
        for tr in soup.select("table.diff-table tbody tr")
        if tr.th is not None
    }
    price_list = changed["價目表版本" if lang == "zh-TW" else "Price list"]
    assert price_list[1] == f"2027-03-{lang}" and not price_list[0].isdigit()
    cheapest = changed["最低總價" if lang == "zh-TW" else "Cheapest total"]
    assert all(v.startswith("NT$") for v in cheapest)
    # NT$2,129,400 (1,080,000 + 900,000 + 48,000, with 5% tax) → NT$50,400 (NAS alone).
    assert [td.get_text(strip=True) for td in total[:2]] == ["NT$2,129,400", "NT$50,400"]
    # The difference is written with a minus sign, as the builder's discount lines are
    # (QA: "-NT$302,400" beside "−NT$10,000"): 50,400 − 2,129,400 = −2,079,000.
    assert total[2].get_text(strip=True) == "−NT$2,079,000"
    # The total is tax included, the lines not: the table says so (QA).
    note = section.select_one(".quote-diff-note").get_text(" ", strip=True)
    assert note == (
        "總計已含稅並已扣除整張報價的折扣；各項目為未稅金額，已扣除該項目本身的折扣。"
        if lang == "zh-TW"
        else "The total includes tax and the whole quote's discounts; each line is excl. tax, "
        "after its own discount."
    )


def test_the_quote_keeps_its_currency_when_the_customer_record_changed_since(
    fresh: TestClient,
) -> None:
    # A TWD customer's quote, then the customer record is switched to USD: a reprice used
    # to print the same numbers as US$ (180,000 → US$180,000, ≈32× the price).
    a = make_account(fresh, "sales")
    c = fresh.post("/api/v1/customers", json={"name": "台灣客戶", "tax_id": "22099131"},
                   headers=a.headers).json()  # fmt: skip
    body = {"name": "客服模型", "workload": WORKLOAD, "quote": QUOTE, "customer_id": c["id"]}
    p = fresh.post("/api/v1/plans", json=body, headers=a.headers).json()
    assert p["quote"]["currency"] == "TWD"
    r = fresh.put(f"/api/v1/customers/{c['id']}", json={"currency": "USD"}, headers=a.headers)
    assert r.status_code == 200, r.text
    b = _new_list(fresh, "2027-04", x4_monthly=220_000)
    r = fresh.post(f"/api/v1/plans/{p['id']}/reprice", json={"price_list_id": b},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    q = r.json()["plan"]["quote"]
    assert q["currency"] == "TWD" and r.json()["quote_currency"] == "TWD"
    assert [ln["unit_price"] for ln in q["lines"]] == ["198000", "150000", "8000"]


def test_a_quote_left_behind_by_a_workload_edit_follows_the_reprice(fresh: TestClient) -> None:
    # The quote was resolved with the 6-month term (180,000 × 6); the workload then moved to
    # a 12-month term, saved before a save moved the quote with it (`leave_quote_behind`).
    # Its values are still the option's own (as the revision the quote was saved with
    # derives them), so a reprice moves the line to the new list's 12-month price:
    # 220,000 × (1 − 20%) = 176,000 × 12.
    a = make_account(fresh, "sales")
    p = _plan(fresh, a)
    leave_quote_behind(fresh.app, p["id"], {**WORKLOAD, "term_months": 12})
    r = fresh.get(f"/api/v1/plans/{p['id']}", headers=a.headers)
    assert r.json()["quote"]["lines"][0]["unit_price"] == "180000"  # left as it was
    b = _new_list(fresh, "2027-05", x4_monthly=220_000)
    r = fresh.post(f"/api/v1/plans/{p['id']}/reprice", json={"price_list_id": b},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    first, typed = r.json()["plan"]["quote"]["lines"][:2]
    assert (first["unit_price"], first["months"]) == ("176000", "12")
    assert typed["unit_price"] == "150000"  # typed: stays


def test_a_typed_phase_price_for_a_server_the_list_dropped_is_taken_out(
    fresh: TestClient,
) -> None:
    # Seed 003 T16's phases: the full fine-tune month runs on the 4-GPU server (200,000).
    # Without that server the phase is priced on the 8-GPU one (350,000): a line priced at
    # list follows; a price agreed for the 4-GPU server cannot stand for the 8-GPU one.
    from app.plans import schedule

    a = make_account(fresh, "sales")

    def phased(name: str, lines: list[dict]) -> dict:
        r = fresh.post("/api/v1/plans", headers=a.headers, json={
            "name": name, "phases": [dict(x) for x in schedule.T16_PHASES],
            "quote": {"lines": lines},
        })  # fmt: skip
        assert r.status_code == 201, r.text
        return r.json()

    typed = phased("T16 negotiated", [{"option_key": "phase-1"},
                                      {"option_key": "phase-2", "unit_price": "180000"},
                                      {"option_key": "phase-3"}])  # fmt: skip
    at_list = phased("T16 at list", [{"option_key": "phase-2"}])
    assert [ln["unit_price"] for ln in typed["quote"]["lines"]] == ["50000", "180000", "50000"]
    assert at_list["quote"]["lines"][0]["unit_price"] == "200000"
    c = _new_list(fresh, "2027-06", x4_monthly=None)

    r = fresh.post(f"/api/v1/plans/{typed['id']}/reprice", json={"price_list_id": c},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    body = r.json()
    assert [(x["line"], x["option_key"], x["unit_price"]) for x in body["removed_lines"]] == [
        (2, "phase-2", "180000")
    ]
    assert [ln["option_key"] for ln in body["plan"]["quote"]["lines"]] == ["phase-1", "phase-3"]

    r = fresh.post(f"/api/v1/plans/{at_list['id']}/reprice", json={"price_list_id": c},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    assert r.json()["removed_lines"] == []
    (line,) = r.json()["plan"]["quote"]["lines"]
    assert (line["option_key"], line["unit_price"]) == ("phase-2", "350000")  # the 8-GPU server


def test_a_quote_saved_before_lines_had_to_multiply_out_can_be_repriced(
    fresh: TestClient,
) -> None:
    # Lines stored before unit price × quantity × months had to be whole NT$: each printed
    # its amount rounded once. Repriced, a line with no value of its option's is carried as
    # one item at that amount (tests/quotes/test_one_item_lines.py); the option line whose
    # price and months were the option's takes the new list's, as every option line does.
    a = make_account(fresh, "sales")
    p = _plan(fresh, a)
    old = [
        {"option_key": TERM, "kind": "rent_term", "unit": "month", "unit_price": "180000",
         "quantity": "1", "months": "6", "discount_pct": "0"},
        # typed price, quantity and months: 150,001 × 0.5 × 2.5 = 187,501.25 → NT$187,501
        {"option_key": TERM, "kind": "rent_term", "unit": "month", "unit_price": "150001",
         "quantity": "0.5", "months": "2.5", "discount_pct": "0"},
        # NT$35,001 × 2.5 = 87,502.5 → NT$87,503
        {"description": "Installation", "unit": "month", "unit_price": "35001",
         "quantity": "2.5", "months": "1", "discount_pct": "0"},
    ]  # fmt: skip
    with Session(fresh.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(plans.Plan, p["id"])
        assert plan is not None and plan.quote is not None
        plan.quote = {**plan.quote, "lines": old}
        s.add(plan)
        s.commit()
    b = _new_list(fresh, "2027-04", x4_monthly=220_000)
    r = fresh.post(f"/api/v1/plans/{p['id']}/reprice", json={"price_list_id": b},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    lines = r.json()["plan"]["quote"]["lines"]
    assert [(ln["unit"], ln["unit_price"], ln["quantity"], ln["months"]) for ln in lines] == [
        ("month", "198000", "1", "6"),  # 220,000 × 0.9 on the 6-month term
        ("item", "187501", "1", "1"),
        ("item", "87503", "1", "1"),
    ]
    assert r.json()["plan"]["quote_totals"]["line_amounts"] == ["1188000", "187501", "87503"]


def test_a_draft_price_list_cannot_price_a_plan(fresh: TestClient) -> None:
    # QA: a sales engineer repriced onto the admin's unpublished import (status draft); the
    # quote then printed prices and an exchange rate nobody had approved.
    a = make_account(fresh, "sales")
    p = _plan(fresh, a)
    with Session(fresh.app.state.engine) as s:  # type: ignore[attr-defined]
        current = catalog.current_price_list(session=s)
        assert current is not None and current.id is not None
        draft = catalog.new_price_list_from(
            session=s, source_id=current.id, name="2027-draft", effective_date=date.today(),
            actor="t",
        )  # fmt: skip
        draft_id = draft.id
    for lang, words in (("en", "is a draft: publish it"), ("zh-TW", "仍是草稿")):
        r = fresh.post(f"/api/v1/plans/{p['id']}/reprice", json={"price_list_id": draft_id},
                       headers={**a.headers, "Accept-Language": lang})  # fmt: skip
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["loc"][-1] == "price_list_id" and words in detail["msg"]
    after = fresh.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert after["version"] == p["version"] and after["price_list_id"] == p["price_list_id"]


def test_an_import_cannot_keep_a_draft_price_list(fresh: TestClient) -> None:
    # QA: an export read back with `reprice: false` and a draft's id was priced from the
    # draft (rent NT$55,000 where the published list says 50,000), and could then be sent.
    a = make_account(fresh, "sales")
    p = _plan(fresh, a)
    exported = fresh.get(f"/api/v1/plans/{p['id']}/export", headers=a.headers).json()
    with Session(fresh.app.state.engine) as s:  # type: ignore[attr-defined]
        current = catalog.current_price_list(session=s)
        assert current is not None and current.id is not None
        draft = catalog.new_price_list_from(
            session=s, source_id=current.id, name="2027-draft", effective_date=date.today(),
            actor="t",
        )  # fmt: skip
        draft_id = draft.id
    before = fresh.get("/api/v1/plans", headers=a.headers).json()["total"]
    body = {**exported, "reprice": False, "price_list_id": draft_id}
    r = fresh.post("/api/v1/plans/import", json=body, headers=a.headers)
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "price_list_id"]
    assert detail["msg"] == (
        f"price list {draft_id} is a draft: publish it before pricing a plan with it"
    )
    assert fresh.get("/api/v1/plans", headers=a.headers).json()["total"] == before
    # The export's own (published) list is still kept as asked.
    kept = {**exported, "reprice": False}
    r = fresh.post("/api/v1/plans/import", json=kept, headers=a.headers)
    assert r.status_code == 201, r.text
    assert r.json()["price_list_id"] == p["price_list_id"]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("zh-TW", "價目表「2027-03」已自"),
        ("en", "the list 2027-03 is in effect since"),
    ],
)
def test_the_plan_page_says_when_a_newer_list_is_in_effect(
    fresh: TestClient, lang: str, words: str
) -> None:
    """QA published a list that raised a price: the draft kept showing the old price with
    nothing saying a newer list was in effect, until "Re-price" was pressed."""
    a = make_account(fresh, "sales")
    p = _plan(fresh, a)
    pages = TestClient(fresh.app, follow_redirects=False)
    sign_in(pages, a.user)
    headers = {"Accept-Language": lang}

    def note() -> str | None:
        page = BeautifulSoup(pages.get(f"/plans/{p['id']}", headers=headers).text, "html.parser")
        found = page.select_one(".newer-price-list")
        return " ".join(found.get_text().split()) if found else None

    assert note() is None  # priced on the list in effect
    _new_list(fresh, "2027-03", x4_monthly=220_000)
    text = note()
    assert text is not None and words in text
    r = fresh.post(f"/api/v1/plans/{p['id']}/reprice", json={}, headers=a.headers)
    assert r.status_code == 200, r.text
    assert note() is None  # re-priced on it: nothing newer


X1 = "stratagem-tpe-h100-x1"  # the provider's 1-GPU server: NT$120 an hour


def test_an_hourly_line_takes_the_new_hourly_price(fresh: TestClient) -> None:
    """QA: a quote with an hourly (or cloud) line answered a reprice with a 500 (KeyError
    'months': an hourly line has no months), so the plan could never leave the old list."""
    a = make_account(fresh, "sales")
    workload = {"model": {"preset": "llama-3.1-8b"}, "task": "lora"}
    body = {"name": "時租", "workload": workload,
            "quote": {"lines": [{"option_key": f"rent_hourly:{X1}"},
                                {"option_key": f"rent_hourly:{X1}", "quantity": "10"}]}}  # fmt: skip
    r = fresh.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    p = r.json()
    hours = p["quote"]["lines"][0]["quantity"]  # the job's whole hours, as its option bills
    assert [ln["unit_price"] for ln in p["quote"]["lines"]] == ["120", "120"]
    # A public cloud's hourly line as well, as QA had (its price does not change).
    cloud = next(o for o in p["result"]["cost"]["options"] if o["kind"] == "cloud")
    lines_in = [*body["quote"]["lines"], {"option_key": cloud["key"], "quantity": "1"}]
    r = fresh.put(f"/api/v1/plans/{p['id']}", headers=a.headers,
                  json={"version": p["version"], "quote": {"lines": lines_in}})  # fmt: skip
    assert r.status_code == 200, r.text
    cloud_line = r.json()["quote"]["lines"][2]

    def cheaper_by_the_hour(s: Session, list_id: int) -> None:
        change_row(s, list_id, "offers", X1, hourly_price=108)

    new_id = publish_copy(fresh, "2027-03", edit=cheaper_by_the_hour)
    r = fresh.post(f"/api/v1/plans/{p['id']}/reprice", json={"price_list_id": new_id},
                   headers=a.headers)  # fmt: skip
    assert r.status_code == 200, r.text
    lines = r.json()["plan"]["quote"]["lines"]
    # NT$120 − 10% = NT$108 an hour; the option's hours follow it, the typed 10 hours stay.
    assert [(ln["unit_price"], ln["quantity"]) for ln in lines[:2]] == [
        ("108", hours),
        ("108", "10"),
    ]
    assert (lines[2]["unit_price"], lines[2]["quantity"]) == (
        cloud_line["unit_price"],
        cloud_line["quantity"],
    )
    subtotal = 108 * int(hours) + 108 * 10 + int(cloud_line["unit_price"])
    assert r.json()["plan"]["quote_totals"]["subtotal"] == str(subtotal)
