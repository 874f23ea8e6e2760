"""The quote fixes of the real-user QA pass, each with its figures worked by hand.

H1 a discount is printed as entered (2.5%, never "2%"); H2 a purchase is quoted at its
up-front price, once; H3 a one-off line stays one-off when the quote is saved again; M1 the
totals never stand alone at the top of a PDF page; M3 an hourly line defaults to the hours
the plan bills, labelled; M5 the printed unit price × quantity × months (− discount) is the
printed amount, exactly; M7 the builder warns when the seller's 統一編號 is missing; M8 the
tax rate is 5% or 0%, anything else a 422 naming the field; L the 中文 document reads in
Chinese (no developer words, no English price-list name, a localised date).

The plan is tests.plan_quotes.WORKLOAD (Llama 2 13B full fine-tune on 4 × H100): 28 h billed
by the hour, the provider's 4-GPU server at NT$200,000 a month, NT$180,000 on its 6-month term
(seed 003 T8) and NT$120 per GPU-hour (NT$480/h for 4).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session

from app import i18n
from app.plans.models import Plan
from app.quotes import document, pdf, pricing, views
from app.quotes.models import QuoteIn
from tests.accounts.helpers import Account, make_account, sign_in
from tests.quotes.test_builder_pages import _form
from tests.quotes.test_quote_life import TERM, _customer, _plan, _share

HOURLY = "rent_hourly:stratagem-tpe-h100-x4"  # NT$480/h × 28 h = NT$13,440
BUY = "buy:h100-4gpu-nvlink-server"
TODAY = date(2026, 12, 3)


@pytest.fixture(autouse=True)
def _no_charts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The documents' text and layout are under test, not the charts (tests/quotes/test_pdf.py
    # draws them): no Chromium per render.
    monkeypatch.setattr(pdf, "chart_images", lambda plan, lang, house="": pdf.ChartImages({}))
    yield


def _html(client: TestClient, plan_id: int, lang: str) -> BeautifulSoup:
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, plan_id)
        assert plan is not None
        return BeautifulSoup(pdf.quote_html(plan, lang=lang, session=s), "html.parser")


def _flat(soup: BeautifulSoup) -> str:
    for el in soup.select("style"):
        el.decompose()
    return " ".join(soup.get_text(" ").split())


def _resolve(quote: dict[str, Any], options: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "options": options,
        "plan_currency": "TWD",
        "currency": "TWD",
        "hours_per_month": 730.0,
        "export": False,
        "default_terms": "terms",
        "today": TODAY,
        **kw,
    }
    return pricing.resolve(QuoteIn.model_validate(quote), **args)


# --------------------------------------------------------------------- H1 discounts exactly


@pytest.mark.parametrize(
    ("value", "text"),
    [("2.5", "2.5%"), (Decimal("7.50"), "7.5%"), ("10", "10%"), ("0.25", "0.25%"), (0, "0%")],
)
def test_a_percentage_is_printed_as_entered(value: Any, text: str) -> None:
    assert document.percent_text(value) == text


def test_a_2_5_percent_discount_prints_2_5_percent_with_what_it_takes_off(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Discount Co", language="en")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM, "discount_pct": "2.5"}],
                                   "discount_pct": "2.5"})  # fmt: skip
    # NT$180,000 × 1 × 6 = 1,080,000; 2.5% off = 27,000 → 1,053,000; the quote's 2.5% of
    # 1,053,000 = 26,325 → 1,026,675; 5% tax 51,333.75 → 51,334; total 1,078,009.
    assert p["quote_totals"]["subtotal"] == "1026675"
    assert p["quote_totals"]["tax"] == "51334"
    assert p["quote_totals"]["total"] == "1078009"
    soup = _html(client, p["id"], "en")
    (row,) = soup.select("table.lines tbody tr")
    cells = [td.get_text(" ", strip=True) for td in row.select("td")]
    assert cells[2:] == ["NT$180,000/month", "1", "6", "2.5% −NT$27,000", "NT$1,053,000"]
    totals = {
        tr.th.get_text(strip=True): tr.td.get_text(strip=True)
        for tr in soup.select("table.totals tr")
    }
    assert totals["Quote discount 2.5%"] == "−NT$26,325"
    assert totals["Total (incl. tax)"] == "NT$1,078,009"
    page = BeautifulSoup(TestClient(client.app).get(_share(client, a, p["id"])).text, "html.parser")
    formula = page.select_one(".line-formula").get_text(" ", strip=True)
    assert "Discount 2.5% (−NT$27,000)" in " ".join(formula.split())
    assert "Quote discount 2.5%" in page.select_one("dl.totals").get_text()


# -------------------------------------------------------------- H2 buying is quoted up front

#: A purchase held 12 months: NT$4,748,083.2 of servers + NT$678,297.6 of network and storage
#: = NT$5,426,380.8 up front; running costs 6,000 + 7,200 + 15,000.5 + 12,000 = NT$40,200.5;
#: resold at NT$3,466,581.9: total 5,426,380.8 + 40,200.5 − 3,466,581.9 = NT$1,999,999.4.
BUY_OPTION: dict[str, Any] = {
    "key": BUY,
    "kind": "buy",
    "upfront": 5426380.8,
    "monthly_rate": 229397.12,
    "billed": {"unit": "month", "quantity": 12.0, "gpus": 4.0, "nodes": 1},
    "total": 1999999.4,
    "breakdown": {
        "capex": 4748083.2,
        "storage_network": 678297.6,
        "power": 6000.0,
        "facility": 7200.0,
        "maintenance": 15000.5,
        "staff": 12000.0,
        "residual": -3466581.9,
    },
}


def test_a_buy_line_is_the_up_front_price_once_not_a_month_of_run_rate() -> None:
    stored = _resolve({"lines": [{"option_key": BUY}]}, [BUY_OPTION])
    (line,) = stored["lines"]
    # NT$5,426,380.8 → NT$5,426,381, one item; never 229,397 (a month of the amortised rate).
    assert (line["unit"], line["unit_price"], line["quantity"], line["months"]) == (
        "item",
        "5426381",
        "1",
        "1",
    )
    assert pricing.totals(stored).line_amounts == (Decimal(5426381),)
    running = pricing.running_costs(BUY_OPTION)
    assert running is not None
    assert (running.total, running.months, running.resale) == (
        Decimal("40200.5"),
        Decimal(12),
        Decimal("3466581.9"),
    )
    i18n.activate("en")
    notes = document.buy_line_notes(line, BUY_OPTION, stored, "TWD")
    assert notes[0] == "Paid once, up front: servers, installation, network and storage."
    # 40,200.5 / 12 = 3,350.04 → NT$3,350 a month × 12 = NT$40,200 (it multiplies out).
    assert notes[1] == (
        "Not in this quote: running costs of owning them, estimated at NT$3,350/month × "
        "12 months = NT$40,200 (power, colocation, maintenance, operations staff)."
    )
    # Ways to pay: 5,426,381 − 3,466,582 + 40,200 = 1,999,999 (the printed total). The
    # running costs are the note's NT$40,200; the resale, printed only here, is what makes
    # the three add up: the engine's NT$3,466,581.9 within the rounding.
    assert document.buy_breakdown_text(BUY_OPTION, "TWD") == (
        "NT$5,426,381 up front − NT$3,466,582 resale value at the end + NT$40,200 running "
        "costs over 12 months"
    )
    assert document.option_price(BUY_OPTION, 730.0, "TWD") is None  # no rate × months


def test_the_api_quotes_the_plans_purchase_at_its_up_front_price(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Buyer Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": BUY}]})
    option = next(o for o in p["result"]["cost"]["options"] if o["key"] == BUY)
    (line,) = p["quote"]["lines"]
    upfront = pricing.round_money(Decimal(str(option["upfront"])), "TWD")
    assert (line["unit"], Decimal(line["unit_price"]), line["quantity"], line["months"]) == (
        "item",
        upfront,
        "1",
        "1",
    )
    assert p["quote_totals"]["subtotal"] == str(upfront)
    assert upfront > 10 * Decimal(str(option["monthly_rate"]))  # not a month of run-rate


# ------------------------------------------------------------- H3 units survive a re-save

FREE_LINES: list[dict[str, Any]] = [
    {"option_key": TERM},
    {"description": "Installation", "unit_price": "35000"},  # one-off
    {"description": "NAS 20 TB", "unit_price": "8000", "months": "6"},  # per month
    {"description": "Support", "unit_price": "2500", "quantity": "6", "unit": "hour"},
]


def test_a_one_off_line_stays_one_off_when_the_builder_saves_again(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Round trip Co")
    p = _plan(client, a, c["id"], {"lines": FREE_LINES})
    units = [line["unit"] for line in p["quote"]["lines"]]
    assert units == ["month", "item", "month", "hour"]
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{p['id']}").text, "html.parser")
    data = _form(page)
    assert data["line-1-months"] == "" and data["line-3-months"] == ""  # shown as typed
    assert data["line-3-unit"] == "hour"
    # Save again, changing only the quote's discount ("of any other field", visual QA).
    r = pages.post(f"/plans/{p['id']}/quote", data={**data, "discount_pct": "1", "action": "save"})
    assert r.status_code == 303, r.text
    again = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert [line["unit"] for line in again["quote"]["lines"]] == units
    # 1,080,000 + 35,000 + 8,000 × 6 + 2,500 × 6 = 1,178,000; −1% = 11,780 → 1,166,220.
    assert again["quote_totals"]["line_amounts"] == ["1080000", "35000", "48000", "15000"]
    assert again["quote_totals"]["subtotal"] == "1166220"


def test_a_line_can_say_its_unit_through_the_api(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Unit Co")
    one_off = {"description": "Installation", "unit_price": "35000", "months": "1",
               "unit": "item"}  # fmt: skip
    p = _plan(client, a, c["id"], {"lines": [one_off]})
    assert p["quote"]["lines"][0]["unit"] == "item"  # months 1 read back does not make it monthly
    for bad, field, words in (
        ({**one_off, "months": "3"}, "months", "one-off line has no months"),
        ({"description": "Support", "unit_price": "2500", "unit": "hour"}, "quantity", "hours"),
    ):
        r = client.put(f"/api/v1/plans/{p['id']}", headers={**a.headers, "Accept-Language": "en"},
                       json={"version": p["version"], "quote": {"lines": [bad]}})  # fmt: skip
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["loc"][-1] == field and words in detail["msg"]


# -------------------------------------------- M1 the totals stay with the lines they add up


def test_the_totals_never_start_a_page_without_the_lines(client: TestClient) -> None:
    """For 4 to 16 lines the line table ends at every height of page 1 and 2; wherever it
    breaks, the subtotal and the grand total are on the page of the last line (WeasyPrint
    carries the last row over with them, under the repeated header)."""
    a = make_account(client, "sales")
    c = _customer(client, a, name="Long quote Co", language="en")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    broke = False
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, p["id"])
        assert plan is not None
        for n in range(4, 17):
            lines = [{"description": f"Item {i:03d}", "unit_price": str(1000 + i)}
                     for i in range(1, n + 1)]  # fmt: skip
            plan.quote = _resolve({"lines": lines}, plan.result["cost"]["options"])
            data = pdf.render_pdf(plan, lang="en", session=s).data
            text = subprocess.run(["pdftotext", "-layout", "-", "-"], input=data,
                                  capture_output=True, check=True).stdout.decode()  # fmt: skip
            pages = text.split("\f")
            first = next(i for i, page in enumerate(pages) if "Item 001" in page)
            last = next(i for i, page in enumerate(pages) if f"Item {n:03d}" in page)
            subtotal = next(i for i, page in enumerate(pages) if "Subtotal (excl. tax)" in page)
            grand = max(i for i, page in enumerate(pages) if "Total (incl. tax)" in page)
            assert subtotal == grand == last, (n, first, last, subtotal, grand)
            broke = broke or first != last
        s.rollback()
    assert broke  # the range did make the line table cross a page


# --------------------------------------------------- M3 an hourly line is its billed hours


def test_an_hourly_line_added_in_the_builder_gets_the_hours_the_plan_bills(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Hours Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    h = {"Accept-Language": "en"}
    data = _form(BeautifulSoup(pages.get(f"/plans/{p['id']}", headers=h).text, "html.parser"))
    # Switch the term line to hourly rent: its quantity 1 and months 6 were the term's.
    assert (data["line-0-quantity"], data["line-0-months"]) == ("1", "6")
    data["line-0-option_key"] = HOURLY
    # …and add a line, then pick hourly rent on it too.
    added = pages.post(f"/plans/{p['id']}/quote", data={**data, "action": "add"},
                       headers={**h, "HX-Request": "true"})  # fmt: skip
    data = _form(BeautifulSoup(added.text, "html.parser"))
    assert data["line-1-quantity"] == "" and data["line-1-months"] == ""  # not "1"
    data["line-1-option_key"] = HOURLY
    r = pages.post(f"/plans/{p['id']}/quote", data={**data, "action": "save"}, headers=h)
    assert r.status_code == 303, r.text
    saved = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    option = next(o for o in saved["result"]["cost"]["options"] if o["key"] == HOURLY)
    assert option["billed"] == {**option["billed"], "unit": "hour", "quantity": 28.0}
    for line in saved["quote"]["lines"]:
        # NT$480/h × 28 h = NT$13,440: the job's hours, never 1 h.
        assert (line["unit"], line["unit_price"], line["quantity"], line["months"]) == (
            "hour",
            "480",
            "28",
            "1",
        )
    assert saved["quote_totals"]["line_amounts"] == ["13440", "13440"]
    # The builder labels the quantity as hours and says where the 28 come from.
    for lang, label, hint in (
        ("en", "Hours", "Empty: 28 h, the hours the job runs."),
        ("zh-TW", "時數", "留空：28 小時，即工作執行的時數。"),
    ):
        page = BeautifulSoup(
            pages.get(f"/plans/{p['id']}", headers={"Accept-Language": lang}).text, "html.parser"
        )
        assert page.select_one("label[for=f-line-0-quantity]").get_text(strip=True) == label
        assert page.select_one("#hint-line-0-quantity").get_text(strip=True) == hint
        assert page.select_one("#f-line-0-quantity")["placeholder"] == "28"


def test_a_service_s_hours_are_its_hours_a_month_times_its_months() -> None:
    # A service billed by the hour for 12 months at 730 h a month: 8,760 h.
    i18n.activate("en")
    cost = {"pricing_mode": "capacity", "hours_per_month": 730.0}
    assert views._hours_hint(Decimal(8760), cost, {"key": "rent_hourly:x"}) == (
        "Empty: 8,760 h, 730 h a month for 12 months."
    )


@pytest.mark.parametrize(
    ("lang", "hint"),
    [
        ("en", "Empty: 1,460 h, 730 h a month for 2 months."),
        ("zh-TW", "留空：1,460 小時，即每月 730 小時 × 2 個月。"),
    ],
)
def test_an_hourly_phase_s_hours_are_its_hours_a_month_times_its_months(
    lang: str, hint: str
) -> None:
    """QA: the first T16 phase billed by the hour (LoRA, 2 months, 1 GPU) said "1,460 h, the
    hours the job runs" where the phase builder says the job takes 3.5 days: a phase is
    rented for its months, 2 × 730 h = 1,460 h (HOURS_PER_MONTH 730)."""
    i18n.activate(lang)
    try:
        phase = {"key": "phase-1", "phase": 0, "period_months": 2.0,
                 "billed": {"unit": "hour", "quantity": 1460.0}}  # fmt: skip
        assert views._hours_hint(Decimal(1460), {"currency": "TWD"}, phase) == hint
    finally:
        i18n.activate("en")


# ----------------------------------------------------- M5 printed figures multiply out


# An option line used to be its rate rounded to NT$1 × its hours (NT$383/h × 28 h =
# NT$10,724 for an option of NT$10,716): the ways to pay and a line of an option now come
# to the option's own total, tests/quotes/test_option_total_is_one_figure.py.


def test_an_option_whose_own_figures_do_not_multiply_out_is_one_item() -> None:
    # NT$279,385 a month for half a month = NT$139,692.5: no whole-dollar line of a rate
    # × 0.5 months; quoted as one item of NT$139,693 (half up), which prints exactly.
    half = {"key": "x", "kind": "rent_monthly", "total": 139692.5, "monthly_rate": 279385,
            "billed": {"unit": "month", "quantity": 0.5}}  # fmt: skip
    (line,) = _resolve({"lines": [{"option_key": "x"}]}, [half])["lines"]
    assert (line["unit"], line["unit_price"], line["quantity"], line["months"]) == (
        "item",
        "139693",
        "1",
        "1",
    )


def test_a_typed_line_that_is_not_whole_dollars_is_a_422_naming_the_field(
    client: TestClient,
) -> None:
    # NT$35,001 × 2.5 = NT$87,502.5: printed, it would not multiply out to a whole-dollar line.
    a = make_account(client, "sales")
    c = _customer(client, a, name="Inexact Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    bad = {"description": "Installation", "unit_price": "35001", "quantity": "2.5"}
    for lang, words in (("en", "whole New Taiwan dollars (NT$)"), ("zh-TW", "須為整數元")):
        r = client.put(f"/api/v1/plans/{p['id']}", headers={**a.headers, "Accept-Language": lang},
                       json={"version": p["version"], "quote": {"lines": [bad]}})  # fmt: skip
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["loc"] == ["body", "quote", "lines", 0, "quantity"] and words in detail["msg"]
    # NT$35,000 × 2.5 = NT$87,500 is whole: kept exactly as typed.
    ok = {**bad, "unit_price": "35000"}
    r = client.put(f"/api/v1/plans/{p['id']}", headers=a.headers,
                   json={"version": p["version"], "quote": {"lines": [ok]}})  # fmt: skip
    assert r.status_code == 200, r.text
    assert r.json()["quote_totals"]["line_amounts"] == ["87500"]


def test_every_printed_line_multiplies_out_to_its_printed_amount(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Multiply Co", language="en")
    lines = [{"option_key": HOURLY, "discount_pct": "2.5"}, {"option_key": TERM},
             {"option_key": BUY}, *FREE_LINES[1:]]  # fmt: skip
    p = _plan(client, a, c["id"], {"lines": lines, "discount_pct": "3"})
    soup = _html(client, p["id"], "en")
    rows = soup.select("table.lines tbody tr")
    assert len(rows) == len(lines)
    for tr, amount in zip(rows, p["quote_totals"]["line_amounts"], strict=True):
        cells = [td.get_text(" ", strip=True) for td in tr.select("td")]
        price = Decimal(re.sub(r"[^\d.]", "", cells[2].split("/")[0]))
        quantity = Decimal(re.sub(r"[^\d.]", "", cells[3]))
        months = Decimal(1) if cells[4] == "—" else Decimal(cells[4])
        off = Decimal(0) if cells[5] == "—" else Decimal(re.sub(r"[^\d.]", "", cells[5].split()[1]))
        printed = Decimal(re.sub(r"[^\d.]", "", cells[6]))
        assert price * quantity * months - off == printed == Decimal(amount), cells
    # NT$480/h × 28 h = 13,440; 2.5% = 336 → NT$13,104.
    assert p["quote_totals"]["line_amounts"][0] == "13104"


# --------------------------------------------------------------------- M6 labelled capacity


def test_a_serving_quote_labels_its_speed_and_its_capacity(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Serving Co", language="en")
    body = {"name": "chat", "customer_id": c["id"], "workload": {
        "model": {"preset": "llama-3.1-8b"}, "task": "inference", "precision": "bf16",
        "concurrency": 64, "avg_context_tokens": 2048, "term_months": 12}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    plan = r.json()
    inference = plan["result"]["inference"]
    rows = {
        tr.th.get_text(strip=True): tr.td.get_text(" ", strip=True)
        for tr in _html(client, plan["id"], "en").select("tr.service")
    }
    speed = f"{inference['tokens_per_s']:,.0f} tokens/s in total at 64 sequences at once"
    assert rows["Output speed"].startswith(speed)
    assert rows["Sequences at once, at most"] == (
        f"{inference['max_concurrency']:,.0f} (what the GPUs' memory holds)"
    )


# ------------------------------------------------------------- M7 the seller's 統一編號


def test_the_builder_warns_when_a_tax_id_is_missing(client: TestClient) -> None:
    a = make_account(client, "sales")
    without = _customer(client, a, name="No Tax ID Co", tax_id="")
    p = _plan(client, a, without["id"], {"lines": [{"option_key": TERM}]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)

    def warnings(lang: str) -> list[str]:
        page = BeautifulSoup(
            pages.get(f"/plans/{p['id']}", headers={"Accept-Language": lang}).text, "html.parser"
        )
        return [el.get_text(" ", strip=True) for el in page.select(".tax-id-missing")]

    assert client.app.state.settings.company_tax_id == ""  # type: ignore[attr-defined]
    seller, customer = warnings("en")
    assert seller.startswith("Your company's 統一編號 is missing from every quote")
    assert "STRATAGEM_COMPANY_TAX_ID" in seller
    assert customer == (
        "The customer No Tax ID Co has no 統一編號: add it on the customer's page before sending."
    )
    assert warnings("zh-TW")[0].startswith("所有報價單都缺少貴公司的統一編號")
    # Never on the customer's document.
    shared = TestClient(client.app).get(_share(client, a, p["id"])).text
    assert "STRATAGEM_COMPANY_TAX_ID" not in shared and "tax-id-missing" not in shared
    # The seller's number set: only the customer's is missing; with it, no warning.
    state = client.app.state  # type: ignore[attr-defined]
    settings = state.settings
    state.settings = settings.model_copy(update={"company_tax_id": "22099131"})
    try:
        assert warnings("en") == [customer]
        r = client.put(f"/api/v1/customers/{without['id']}", json={"tax_id": "22099131"},
                       headers=a.headers)  # fmt: skip
        assert r.status_code == 200, r.text
        assert warnings("en") == []
    finally:
        state.settings = settings


# -------------------------------------------------------------------- M8 5% or 0%, no other


@pytest.mark.parametrize("rate", ["0.03", "5", "0.1", "1", "0.0501"])
def test_a_tax_rate_other_than_5_or_0_percent_is_a_422_saying_which_are_allowed(
    client: TestClient, rate: str
) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name=f"Tax {rate} Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    for lang, message in (
        ("en", "must be 0.05 (5% business tax, a domestic sale) or 0 (0%, a zero-rated export)"),
        ("zh-TW", "須為 0.05（營業稅 5%，國內銷售）或 0（0%，外銷零稅率）"),
    ):
        r = client.put(
            f"/api/v1/plans/{p['id']}",
            json={"version": p["version"], "quote": {"lines": [{"option_key": TERM}],
                                                     "tax_rate": rate}},
            headers={**a.headers, "Accept-Language": lang},
        )  # fmt: skip
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["loc"] == ["body", "quote", "tax_rate"] and detail["msg"] == message


@pytest.mark.parametrize(
    ("rate", "stored", "tax"), [("0.050", "0.05", "54000"), ("0", "0", "0"), ("-0", "0", "0")]
)
def test_5_and_0_percent_are_taken(client: TestClient, rate: str, stored: str, tax: str) -> None:
    # NT$1,080,000 × 5% = NT$54,000. An export customer, whom 0% fits (a domestic one at 0%
    # is refused: tests/quotes/test_what_the_customer_is_sent.py).
    a = make_account(client, "sales")
    c = _customer(client, a, name=f"Tax ok {rate} Co", tax_id="", export=True)
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}], "tax_rate": rate})
    assert (p["quote"]["tax_rate"], p["quote_totals"]["tax"]) == (stored, tax)


def test_the_builder_names_the_tax_field_and_what_it_allows(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Builder tax Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    h = {"Accept-Language": "zh-TW"}
    data = _form(BeautifulSoup(pages.get(f"/plans/{p['id']}", headers=h).text, "html.parser"))
    r = pages.post(f"/plans/{p['id']}/quote", data={**data, "tax_rate": "0.03", "action": "save"},
                   headers=h)  # fmt: skip
    assert r.status_code == 422
    page = BeautifulSoup(r.text, "html.parser")
    assert page.select_one("#err-tax_rate").get_text(strip=True) == (
        "須為 0.05（營業稅 5%，國內銷售）或 0（0%，外銷零稅率）"
    )
    assert page.select_one("#f-tax_rate")["aria-invalid"] == "true"
    # 0% is a rate, but not a domestic customer's: said beside the field, nothing saved
    r = pages.post(f"/plans/{p['id']}/quote", data={**data, "tax_rate": "0", "action": "save"},
                   headers=h)  # fmt: skip
    assert r.status_code == 422
    said = BeautifulSoup(r.text, "html.parser").select_one("#err-tax_rate").get_text(strip=True)
    assert (
        said
        == "為 0%（外銷零稅率），但 Builder tax Co 是國內客戶：請設為 5%；若確為外銷，請將客戶標示為外銷"
    )
    assert client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()["version"] == 1


# ------------------------------------------------------------ L the 中文 document in Chinese

#: Latin words a 中文 quote may carry: units, product and model names, the customer's own data.
ALLOWED = re.compile(
    # Names: products, units, the seller, and the providers the catalog names (a rental two
    # providers offer says whose it is: app.quotes.document.option_labels).
    r"(NT\$|GB|TB|kW|Gbps|GPU|CPU|RAM|NVMe|NAS|NVIDIA|H100|SXM5|Llama|BF16|token|SLA|NCCL|"
    r"nccl-tests|Stratagem Taipei|RunPod|Stratagem|Test sales|Q-\d{4}-\d+)"
)


def test_the_chinese_quote_has_no_english_words(client: TestClient) -> None:
    a: Account = make_account(client, "sales")
    c = _customer(client, a, name="中文客戶股份有限公司")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM, "discount_pct": "2.5"},
                                             {"option_key": BUY}]})  # fmt: skip
    text = _flat(_html(client, p["id"], "zh-TW"))
    words = set(re.findall(r"[A-Za-z][A-Za-z_.]{2,}", ALLOWED.sub(" ", text)))
    assert not words, sorted(words)
    # The price list by its date, as 中文 writes it, not "2026-11 list" or "2026-11-01".
    effective = date.fromisoformat(p["result"]["cost"]["price_list"]["effective_date"])
    assert f"{effective.year}年{effective.month}月{effective.day}日價目表" in text
    assert effective.isoformat() not in text


def test_english_and_chinese_documents_name_offers_on_several_servers(client: TestClient) -> None:
    # A 13B service on 4 GPUs at tensor-parallel 1: four independent replicas, so RunPod's
    # four one-GPU servers can run it as well as the provider's one 4-GPU server; at other
    # prices, the two must not read the same. (A job whose 4 GPUs must share NVLink, the
    # 4-GPU fine-tune of tests/plan_quotes.py, is not offered RunPod's pods at all.)
    a = make_account(client, "sales")
    c = _customer(client, a, name="Servers Co", language="en")
    workload = {
        "model": {"preset": "llama-2-13b"},
        "task": "inference",
        "tp": 1,
        "gpu_count": 4,
    }
    # The marketplace is another provider's price: listed only with the comparison on.
    quote = {"lines": [], "include_cloud_comparison": True}
    r = client.post(
        "/api/v1/plans",
        json={"name": "Replicas", "workload": workload, "customer_id": c["id"], "quote": quote},
        headers=a.headers,
    )
    assert r.status_code == 201, r.text
    p = r.json()
    runpod = next(
        o for o in p["result"]["cost"]["options"] if o["key"].startswith("rent_hourly:runpod")
    )
    assert runpod["feasible"] is True and runpod["billed"]["nodes"] == 4
    labels = [
        tr.td.get_text(" ", strip=True)
        for tr in _html(client, p["id"], "en").select("h2 + table.grid tbody tr")
        if tr.td is not None and tr.td.get_text(strip=True).startswith("Hourly rent")
    ]
    # Two providers rent by the hour: each line names its own (QA: the cheaper of two
    # unnamed offers could not be asked for).
    assert sorted(labels) == [
        "Hourly rent · 4 × NVIDIA H100 SXM5 80GB on 4 servers · RunPod",
        "Hourly rent · 4 × NVIDIA H100 SXM5 80GB · Stratagem Taipei",
    ]


def test_a_plain_helper_path_is_cleaned_of_float_noise() -> None:
    assert pricing.clean_quantity(Decimal("12.000000000000004")) == Decimal(12)
    assert pricing.denoised(Decimal("12.000000000000004")) == Decimal(12)
    assert pricing.denoised(Decimal("12.5")) == Decimal("12.5")
    assert pricing.denoised(Decimal("0.0547945205479452")) == Decimal("0.0547945205479452")


def test_two_offers_that_would_read_the_same_name_their_providers() -> None:
    # One H100 by the hour from the provider (NT$120/h) and from RunPod (NT$96/h): both
    # "Hourly rent · 1 × NVIDIA H100 SXM5 80GB" — a customer could not tell which is which.
    gpu = {"count": 1, "name": "NVIDIA H100 SXM5 80GB"}
    billed = {"unit": "hour", "quantity": 8760.0, "gpus": 1.0, "nodes": 1}
    options = [
        {"key": "a", "kind": "rent_hourly", "billed": billed,
         "label": "Hourly rent — 1× h100-sxm-80gb PCIe (Stratagem Taipei)"},
        {"key": "b", "kind": "rent_hourly", "billed": billed,
         "label": "Hourly rent — 1× h100-sxm-80gb PCIe (RunPod)"},
        {"key": "c", "kind": "rent_monthly", "billed": {**billed, "unit": "month"},
         "label": "Monthly rent — 1× h100-sxm-80gb PCIe (Stratagem Taipei)"},
    ]  # fmt: skip
    i18n.activate("en")
    assert document.option_labels(options, gpu, 730.0) == {
        "a": "Hourly rent · 1 × NVIDIA H100 SXM5 80GB · Stratagem Taipei",
        "b": "Hourly rent · 1 × NVIDIA H100 SXM5 80GB · RunPod",
        "c": "Monthly rent · 1 × NVIDIA H100 SXM5 80GB",  # alone: no provider needed
    }


def test_values_typed_along_with_an_option_switch_are_saved(client: TestClient) -> None:
    """QA: a line switched from hourly to monthly rent with 1 × NT$90,000 × 3 months typed in
    the same save was stored at the monthly option's own NT$200,000 × 1 month, without a
    word (NT$105,000 for NT$283,500). Only the values left as they were shown give way to the
    new option's; the typed ones are saved: 90,000 × 1 × 3 = NT$270,000 before tax."""
    a = make_account(client, "sales")
    c = _customer(client, a, name="Typed Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": HOURLY}]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    h = {"Accept-Language": "en"}
    data = _form(BeautifulSoup(pages.get(f"/plans/{p['id']}", headers=h).text, "html.parser"))
    assert (data["line-0-quantity"], data["line-0-unit_price"]) == ("28", "480")
    monthly = "rent_monthly:stratagem-tpe-h100-x4"
    data.update({"line-0-option_key": monthly, "line-0-unit_price": "90000",
                 "line-0-months": "3"})  # fmt: skip
    r = pages.post(f"/plans/{p['id']}/quote", data={**data, "action": "save"}, headers=h)
    assert r.status_code == 303, r.text
    saved = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    (line,) = saved["quote"]["lines"]
    # The quantity was left at the hourly line's 28 (hours): it gives way to the monthly
    # option's own 1; the price and months typed stay.
    assert (line["option_key"], line["unit_price"], line["quantity"], line["months"]) == (
        monthly, "90000", "1", "3",
    )  # fmt: skip
    assert saved["quote_totals"]["line_amounts"] == ["270000"]


def test_a_price_written_with_thousands_separators_is_read(client: TestClient) -> None:
    """QA: "1,000" in a price field was refused with "Enter a number, e.g. 4096"; prices are
    written with separators. 1 × NT$180,000 × 6 months = NT$1,080,000 before tax."""
    a = make_account(client, "sales")
    c = _customer(client, a, name="Comma Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    h = {"Accept-Language": "zh-TW"}
    data = _form(BeautifulSoup(pages.get(f"/plans/{p['id']}", headers=h).text, "html.parser"))
    data.update({"line-0-unit_price": "180,000", "line-0-quantity": "1", "line-0-months": "6"})
    r = pages.post(f"/plans/{p['id']}/quote", data={**data, "action": "save"}, headers=h)
    assert r.status_code == 303, r.text
    saved = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert saved["quote"]["lines"][0]["unit_price"] == "180000"
    assert saved["quote_totals"]["line_amounts"] == ["1080000"]


#: QA of stop 32: a 2.8-hour job's purchase (billed as 1 whole month, held 2.8 hours =
#: 2.8 / 730 months, then resold) read "+ NT$3,516 running costs over 1 month".
#: Running costs 55.76 + 70.63 + 130.84 + 94.35 = NT$351.58 over the 2.8 hours.
SHORT_BUY: dict[str, Any] = {
    **BUY_OPTION,
    "billed": {"unit": "month", "quantity": 1.0, "gpus": 4.0, "nodes": 1},
    "held_months": 2.8 / 730,
    "total": 226941.4173610313,
    "breakdown": {
        "capex": 4748083.2,
        "storage_network": 678297.6,
        "power": 55.760357859834365,
        "facility": 70.63028327465821,
        "maintenance": 130.83745209455165,
        "staff": 94.3488224473399,
        "residual": -5199790.959554645,
    },
}


def test_buying_the_option_three_times_runs_three_times_the_servers() -> None:
    """QA: a buy line of quantity 3 printed one set's running costs."""
    stored = _resolve({"lines": [{"option_key": BUY, "quantity": "3"}]}, [BUY_OPTION])
    (line,) = stored["lines"]
    assert line["quantity"] == "3"
    i18n.activate("en")
    notes = document.buy_line_notes(line, BUY_OPTION, stored, "TWD")
    # 3 × 40,200.5 / 12 = 10,050.125 → NT$10,050 a month × 12 = NT$120,600.
    assert notes[1] == (
        "Not in this quote: running costs of owning them, estimated at NT$10,050/month × "
        "12 months = NT$120,600 (power, colocation, maintenance, operations staff)."
    )
    short = _resolve({"lines": [{"option_key": BUY, "quantity": "3"}]}, [SHORT_BUY])
    notes = document.buy_line_notes(short["lines"][0], SHORT_BUY, short, "TWD")
    # power + facility + maintenance + staff = 351.58 a set (the test below: NT$352);
    # × 3 = 1,054.73 → NT$1,055, rounded once (not 3 × 352 = 1,056)
    assert notes[1] == (
        "Not in this quote: running costs of owning them over 2.8 hours, estimated at "
        "NT$1,055 (power, colocation, maintenance, operations staff)."
    )


def test_a_purchase_held_for_hours_says_hours_not_a_month() -> None:
    i18n.activate("en")
    # The running costs print as the buy line's note prints them, 351.58 → NT$352 (QA: the
    # breakdown read NT$351 beside the note's NT$352). Up front NT$5,426,381 and the total
    # NT$226,941.42 → 226,941 are printed beside it, so the resale value, printed only here,
    # takes the rounding: 5,426,381 + 352 − 226,941 = NT$5,199,792 (the engine's 5,199,791.x).
    assert document.buy_breakdown_text(SHORT_BUY, "TWD") == (
        "NT$5,426,381 up front − NT$5,199,792 resale value at the end + NT$352 running "
        "costs over 2.8 hours"
    )
    assert document.period_text(SHORT_BUY) == "held for 2.8 hours"
    stored = _resolve({"lines": [{"option_key": BUY}]}, [SHORT_BUY])
    (line,) = stored["lines"]
    notes = document.buy_line_notes(line, SHORT_BUY, stored, "TWD")
    assert notes[1] == (
        "Not in this quote: running costs of owning them over 2.8 hours, estimated at NT$352 "
        "(power, colocation, maintenance, operations staff)."
    )
    i18n.activate("zh-TW")
    assert document.period_text(SHORT_BUY) == "持有 2.8 小時"
    assert document.held_phrase(Decimal("1.1") / (Decimal(730) / 24)) == "1.1 天"
    # A job of 413.905 h (17.246 days) held as 413.905 / 730 months reads as the job's 17.2
    # days, as the summary prints it (it read 17.3 at 30.4375 days a month, QA).
    assert document.held_phrase(Decimal("413.905") / Decimal(730)) == "17.2 天"


def test_the_engine_states_how_long_a_purchase_is_held(client: TestClient) -> None:
    """The buy option carries `held_months`, the period its note states ("Held 1.1 days"),
    while `billed` counts whole months (1)."""
    a = make_account(client, "sales")
    c = _customer(client, a, name="Holder Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    cost = p["result"]["cost"]
    buy = next(o for o in cost["options"] if o["kind"] == "buy")
    assert buy["held_months"] == pytest.approx(cost["rent_months"])
    days = re.search(r"Held ([\d.]+) days", buy["note"])
    assert days is not None
    assert round(buy["held_months"] * 30.42, 1) == float(days.group(1))
    assert buy["billed"]["quantity"] == 1.0
    i18n.activate("en")
    assert document.period_text(buy) == f"held for {days.group(1)} days"


def test_a_one_gpu_plan_is_not_asked_for_bandwidth_between_its_gpus() -> None:
    """Seed 003 T15's nccl-tests measure all-reduce bandwidth between GPUs: a plan on one
    GPU has none (QA of stop 32: a single-GPU quote asked for it "between every GPU")."""
    from app.quotes.service import ACCEPTANCE, acceptance_tests

    assert acceptance_tests({"gpu": {"count": 1}}) == ACCEPTANCE[1:]
    assert acceptance_tests({"gpu": {"count": 0.25}}) == ACCEPTANCE[1:]  # a MIG slice
    assert acceptance_tests({"gpu": {"count": 4}}) == ACCEPTANCE
    assert "nccl-tests" in ACCEPTANCE[0]


def test_a_one_off_job_of_part_hours_says_them() -> None:
    """16.4 busy hours are billed as 17 whole hours: the note read "16 hours" beside the 17
    billed; it now reads 16.4."""
    from app.web.templating import hours_text

    i18n.activate("en")
    assert hours_text(16.4, 1) == "16.4 hours"
    assert hours_text(17.0, 1) == "17 hours" and hours_text(1.0, 1) == "1 hour"
    assert hours_text(16.4) == "16 hours"  # whole hours where a page asks for them
    i18n.activate("zh-TW")
    assert hours_text(16.4, 1) == "16.4 小時"


def test_an_uplink_under_a_gigabit_reads_in_megabits() -> None:
    """Seed 003's single-GPU template: 100 Mbps to the internet (QA: "0.1 Gbps uplink")."""
    i18n.activate("en")
    rows = dict(document.infra_rows({"network": {"uplink_gbps": 0.1}}))
    assert rows["Network"] == "100 Mbps uplink"
    i18n.activate("zh-TW")
    rows = dict(document.infra_rows({"network": {"uplink_gbps": 1}}))
    assert rows["網路"] == "1 Gbps 對外頻寬"
    assert (
        dict(document.infra_rows({"network": {"uplink_gbps": 0.1}}))["網路"] == "100 Mbps 對外頻寬"
    )


def test_a_purchase_not_economical_for_the_period_still_shows_its_figures(
    client: TestClient,
) -> None:
    """QA: a quote whose line buys the 4-GPU server printed the same option in its ways to
    pay as "Not economical for this period" with no amount; the share page gave the up-front
    price, the resale and the running costs. The PDF now gives them too."""
    a = make_account(client, "sales")
    c = _customer(client, a, language="en")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": BUY}]})
    buy = next(o for o in p["result"]["cost"]["options"] if o["key"] == BUY)
    assert buy["economical"] is False
    row = next(
        tr for tr in _html(client, p["id"], "en").select("h2 + table.grid tbody tr")
        if tr.td is not None and tr.td.get_text(strip=True).startswith("Buy")
    )  # fmt: skip
    assert "Not economical for this period" in row.get_text(" ", strip=True)
    breakdown = row.select_one(".buy-breakdown").get_text(" ", strip=True)
    assert breakdown == document.buy_breakdown_text(buy, "TWD")
    assert "up front" in breakdown and "resale value at the end" in breakdown


def test_system_memory_is_named_in_the_documents_language() -> None:
    """QA found the bare word "RAM" in the 中文 PDF's infrastructure table; the bill of
    materials already said 記憶體（RAM）."""
    i18n.activate("zh-TW")
    assert dict(document.infra_rows({"ram_gb": 768}))["記憶體（RAM）"] == "768 GB"
    i18n.activate("en")
    assert dict(document.infra_rows({"ram_gb": 768}))["RAM"] == "768 GB"
