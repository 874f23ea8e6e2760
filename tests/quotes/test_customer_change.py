"""A quote moved to another customer is the new customer's quote: the old customer's default
tax rate, the standard terms in its language and option prices in its currency are derived
again; a tax rate or terms someone set stay; a free line priced in the old currency is
refused, naming it (before: 5% 營業稅 stayed on an export customer's quote, and TWD prices
were relabelled US$ when a USD customer was picked in the builder)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.quotes.test_builder_pages import _form
from tests.quotes.test_quote_life import TERM, _customer, _plan


def _put(client: TestClient, headers: dict, plan: dict, **changes: object) -> object:
    body = {"version": plan["version"], **changes}
    return client.put(f"/api/v1/plans/{plan['id']}", json=body,
                      headers={**headers, "Accept-Language": "en"})  # fmt: skip


def test_an_export_customer_gets_zero_tax_in_place_of_the_domestic_default(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    home = _customer(client, a)
    abroad = _customer(client, a, name="Export TWD", tax_id="", export=True, language="en")
    p = _plan(client, a, home["id"], {"lines": [{"option_key": TERM}]})
    assert p["quote"]["tax_rate"] == "0.05"
    r = _put(client, a.headers, p, customer_id=abroad["id"])
    assert r.status_code == 200, r.text
    q = r.json()
    # PRODUCT.md §6: export sales are zero-rated; the lines (TWD) do not change.
    assert q["quote"]["tax_rate"] == "0" and q["quote_totals"]["tax"] == "0"
    assert q["quote_totals"]["subtotal"] == p["quote_totals"]["subtotal"]
    assert q["quote"]["payment_terms"].startswith("Payment by bank transfer")  # its language


def test_a_tax_rate_someone_set_stays(client: TestClient) -> None:
    # An export sale set to 5% by hand (a service used in Taiwan), not the old customer's 0%
    # default: it stays when the quote moves to another export customer, whose default is
    # 0% again. (Only 5% and 0% are rates a quote may carry, and 0% only for an export
    # customer: tests/quotes/test_quote_fixes.py, test_what_the_customer_is_sent.py.)
    a = make_account(client, "sales")
    abroad = _customer(client, a, name="Export customer", tax_id="", export=True)
    other = _customer(client, a, name="Second export customer", tax_id="", export=True)
    p = _plan(client, a, abroad["id"], {"lines": [{"option_key": TERM}], "tax_rate": "0.05"})
    r = _put(client, a.headers, p, customer_id=other["id"])
    assert r.status_code == 200, r.text
    assert r.json()["quote"]["tax_rate"] == "0.05"


def test_a_usd_customer_gets_option_prices_in_usd_and_free_lines_must_be_repriced(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    home = _customer(client, a)
    usd = _customer(client, a, name="USD buyer", tax_id="", currency="USD", export=True)
    nas = {"description": "NAS 20 TB", "unit_price": "8000", "months": "6"}
    p = _plan(client, a, home["id"], {"lines": [{"option_key": TERM}, nas]})
    before = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    r = _put(client, a.headers, p, customer_id=usd["id"])
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote", "lines", 1, "unit_price"]
    assert "in TWD and the customer is billed in USD" in detail["msg"]
    after = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert after == before  # nothing half-saved
    # With the free line repriced in US$ the move goes through; the option line takes the
    # option's own price converted at the price list's rate (not NT$160,000 read as US$).
    lines = [{"option_key": TERM}, {**nas, "unit_price": "250"}]
    r = _put(client, a.headers, p, customer_id=usd["id"], quote={"lines": lines})
    assert r.status_code == 200, r.text
    q = r.json()["quote"]
    assert q["currency"] == "USD" and q["tax_rate"] == "0"
    rate = Decimal(q["fx"]["rate"])
    term_twd = Decimal(p["quote"]["lines"][0]["unit_price"])
    expected = (term_twd * rate if q["fx"]["base"] == "TWD" else term_twd / rate).quantize(
        Decimal("0.01")
    )
    assert Decimal(q["lines"][0]["unit_price"]) == expected
    assert Decimal(q["lines"][0]["unit_price"]) < term_twd / 10  # a dollar price, not NT$


def test_the_builder_says_which_line_to_reprice_in_the_page_language(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    home = _customer(client, a)
    usd = _customer(client, a, name="USD builder", tax_id="", currency="USD", export=True)
    nas = {"description": "NAS 20 TB", "unit_price": "8000", "months": "6"}
    p = _plan(client, a, home["id"], {"lines": [{"option_key": TERM}, nas]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    h = {"Accept-Language": "zh-TW", "HX-Request": "true"}
    page = BeautifulSoup(pages.get(f"/plans/{p['id']}", headers=h).text, "html.parser")
    data = {**_form(page), "customer_id": str(usd["id"]), "action": "save"}
    r = pages.post(f"/plans/{p['id']}/quote", data=data, headers=h)
    assert r.status_code == 422
    err = BeautifulSoup(r.text, "html.parser").select_one("#err-line-1-unit_price")
    assert err is not None and "以 TWD 計價，但客戶以 USD 計費" in err.get_text()
    data["line-1-unit_price"] = "250"  # the NAS in US$
    ok = pages.post(f"/plans/{p['id']}/quote", data=data, headers=h)
    assert ok.status_code == 200, ok.text
    q = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()["quote"]
    assert q["currency"] == "USD" and q["tax_rate"] == "0"
    assert Decimal(q["lines"][0]["unit_price"]) < 10_000  # the term rent in US$, not NT$


def test_the_revision_diff_shows_each_side_in_its_own_currency(client: TestClient) -> None:
    # Moved from a TWD customer to a USD one, the diff printed both totals as US$ (the v1
    # total NT$1,134,000 read "US$1,134,000.00") and a US$ difference between them.
    a = make_account(client, "sales")
    home = _customer(client, a)
    usd = _customer(client, a, name="USD diff buyer", tax_id="", currency="USD", export=True)
    p = _plan(client, a, home["id"], {"lines": [{"option_key": TERM}]})
    r = _put(client, a.headers, p, customer_id=usd["id"])
    assert r.status_code == 200, r.text
    sign_in(client, a.user)
    page = client.get(f"/plans/{p['id']}/diff?a=1&b=2", headers={"Accept-Language": "en"})
    assert page.status_code == 200
    soup = BeautifulSoup(page.text, "html.parser")
    total = soup.select_one("#quote-changes tbody tr.total")
    before, after, difference = (td.get_text(strip=True) for td in total.select("td"))
    assert before == "NT$" + f"{int(Decimal(p['quote_totals']['total'])):,}"
    assert after.startswith("US$") and difference == "—"


def test_a_save_after_the_customer_record_changed_currency_converts_the_quote(
    client: TestClient,
) -> None:
    # The customer record switched from TWD to USD after the quote was written: a save that
    # posts the quote back (as the builder does) printed NT$180,000 as US$180,000. It now
    # converts like a move to a USD customer: the option line at the list's rate, and a free
    # line priced in NT$ is refused until it is priced in US$.
    a = make_account(client, "sales")
    c = _customer(client, a, name="Switching buyer", tax_id="")
    nas = {"description": "NAS 20 TB", "unit_price": "8000", "months": "6"}
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}, nas]})
    assert p["quote"]["currency"] == "TWD"
    r = client.put(f"/api/v1/customers/{c['id']}", json={"currency": "USD"}, headers=a.headers)
    assert r.status_code == 200, r.text
    posted = {"lines": [{k: v for k, v in ln.items() if k in ("option_key", "description",
              "unit_price", "quantity", "months", "discount_pct")} for ln in p["quote"]["lines"]]}  # fmt: skip
    r = _put(client, a.headers, p, quote=posted)
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote", "lines", 1, "unit_price"]
    assert "in TWD and the customer is billed in USD" in detail["msg"]
    posted["lines"][1]["unit_price"] = "250"
    r = _put(client, a.headers, p, quote=posted)
    assert r.status_code == 200, r.text
    q = r.json()["quote"]
    assert q["currency"] == "USD"
    assert (
        Decimal(q["lines"][0]["unit_price"]) < Decimal("180000") / 10
    )  # converted, not relabelled


def test_the_revision_diff_names_the_customer_and_the_tax_rate_and_the_line_change(
    client: TestClient,
) -> None:
    """QA: after a quote line alone changed, the diff's table said "the two versions are the
    same" above a quote total that moved; a customer change read "Customer record — 1" and
    the tax "0.05"."""
    a = make_account(client, "sales")
    home = _customer(client, a, name="國內客戶甲")
    abroad = _customer(client, a, name="Export Buyer", tax_id="", export=True, language="en")
    p = _plan(client, a, home["id"], {"lines": [{"option_key": TERM}]})
    lines = _put(client, a.headers, p, quote={"lines": [{"option_key": TERM, "quantity": "2"}]})
    assert lines.status_code == 200, lines.text
    v2 = lines.json()
    moved = _put(client, a.headers, v2, customer_id=abroad["id"])
    assert moved.status_code == 200, moved.text
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)

    def diff(x: int, y: int) -> BeautifulSoup:
        r = pages.get(f"/plans/{p['id']}/diff?a={x}&b={y}", headers={"Accept-Language": "en"})
        assert r.status_code == 200
        return BeautifulSoup(r.text, "html.parser")

    only = diff(1, 2).select_one("table.diff-table tbody").get_text(" ", strip=True)
    assert only == "Only the quote's lines changed: see them below."
    rows = {
        tr.th.get_text(strip=True): [td.get_text(strip=True) for td in tr.select("td")]
        for tr in diff(2, 3).select("table.diff-table tbody tr")
        if tr.th is not None
    }
    customer = next(v for k, v in rows.items() if k.startswith("Customer"))
    assert customer == ["國內客戶甲", "Export Buyer"]
    tax = next(v for k, v in rows.items() if "tax" in k.lower())
    assert tax == ["5%", "0%"]


def test_a_quote_is_not_sent_in_a_currency_its_customer_no_longer_pays_in(
    client: TestClient,
) -> None:
    # QA: the customer record switched from US$ to NT$ after its draft was saved; the builder
    # still showed US$ and "Send" sent the quote in US$ without a word. Sending now says to
    # save the quote again (which prices it in NT$), in the request's language.
    a = make_account(client, "sales")
    c = _customer(client, a, name="Acme Robotics Inc.", tax_id="", currency="USD",
                  export=True, language="en")  # fmt: skip
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    assert p["quote"]["currency"] == "USD"
    r = client.put(f"/api/v1/customers/{c['id']}", json={"currency": "TWD"}, headers=a.headers)
    assert r.status_code == 200, r.text
    send = f"/api/v1/plans/{p['id']}/send"
    r = client.post(send, headers={**a.headers, "Accept-Language": "en"})
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote", "currency"]
    assert detail["msg"] == (
        "is USD, but Acme Robotics Inc. is now billed in TWD: save the quote again to price "
        "it in TWD, then send"
    )
    zh = client.post(send, headers={**a.headers, "Accept-Language": "zh-TW"})
    assert "現以 TWD 計費" in zh.json()["detail"][0]["msg"]
    assert client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()["status"] == "draft"
    # saved again, it is in NT$ and goes out
    r = _put(client, a.headers, p, quote={"lines": [{"option_key": TERM}]})
    assert r.status_code == 200, r.text
    assert r.json()["quote"]["currency"] == "TWD"
    assert client.post(send, headers=a.headers).status_code == 200


def test_a_builder_save_that_links_a_customer_updates_the_page_head_and_facts(
    client: TestClient,
) -> None:
    # QA 2026-12-07: a plan saved for "Taiwan Test", linked in the builder to the customer
    # record 台灣測試股份有限公司 and saved, still read "For Taiwan Test · Draft" in its head
    # and "Customer Taiwan Test" in its facts until a reload: only the builder was swapped.
    # The builder's answer now carries both, out of band, with the linked customer's name.
    a = make_account(client, "sales")
    first = _customer(client, a, name="Taiwan Test", tax_id="")
    linked = _customer(client, a, name="台灣測試股份有限公司")
    p = _plan(client, a, first["id"], {"lines": [{"option_key": TERM}]})
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    h = {"Accept-Language": "en", "HX-Request": "true"}
    page = BeautifulSoup(pages.get(f"/plans/{p['id']}", headers=h).text, "html.parser")
    assert page.select_one("#plan-lead-who").get_text(strip=True) == "For Taiwan Test · Draft"
    data = {**_form(page), "customer_id": str(linked["id"]), "action": "save"}
    r = pages.post(f"/plans/{p['id']}/quote", data=data, headers=h)
    assert r.status_code == 200, r.text
    swap = BeautifulSoup(r.text, "html.parser")
    assert swap.select_one("#quote-builder") is not None
    who = swap.select_one("#plan-lead-who[hx-swap-oob=true]")
    assert who is not None and who.get_text(strip=True) == "For 台灣測試股份有限公司 · Draft"
    facts = swap.select_one("#plan-facts-customer[hx-swap-oob=true]")
    assert facts is not None and facts.get_text(strip=True) == "台灣測試股份有限公司"
    status = swap.select_one("#plan-facts-status[hx-swap-oob=true]")
    assert status is not None and status.get_text(strip=True) == "Draft"
    # The full page (no JavaScript) says the same after its redirect.
    full = BeautifulSoup(pages.get(f"/plans/{p['id']}", headers={"Accept-Language": "en"}).text,
                         "html.parser")  # fmt: skip
    assert full.select_one("#plan-facts-customer").get_text(strip=True) == "台灣測試股份有限公司"


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_plan_page_says_which_version_the_pdf_prints(client: TestClient, lang: str) -> None:
    # QA 2026-12-07: a draft's page read "Version 7" and its PDF "(version 1)", with nothing
    # between them. The PDF counts the quotes the customer was sent (a draft is the one it
    # becomes when sent: plans.Editions); the page counts saves. The page now says both.
    a = make_account(client, "sales")
    c = _customer(client, a)
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    r = _put(client, a.headers, p, name="Renamed once")
    assert r.status_code == 200 and r.json()["version"] == 2
    sign_in(client, a.user)
    page = BeautifulSoup(
        client.get(f"/plans/{p['id']}", headers={"Accept-Language": lang}).text, "html.parser"
    )
    note = page.select_one(".quote-actions .edition-note").get_text().strip()
    assert note == (
        "PDF 與分享連結將此報價標為第 1 版：客戶看到的版次只計算已送出的報價，本頁的版次"
        "（目前第 2 版）則計算每一次儲存。"
        if lang == "zh-TW"
        else "The PDF and the share link call this quote version 1: the customer's versions "
        "count the quotes sent, this page's version (2) counts every save."
    )


@pytest.mark.parametrize(
    ("lang", "label", "before", "after"),
    [
        ("en", "Quote currency", "New Taiwan dollar (NT$)", "US dollar (US$)"),
        ("zh-TW", "報價幣別", "新臺幣（NT$）", "美元（US$）"),
    ],
)
def test_the_revision_diff_names_the_currencies(
    client: TestClient, lang: str, label: str, before: str, after: str
) -> None:
    """QA read "報價幣別 TWD → USD": the diff names a quote's currency as the customer's page
    does."""
    a = make_account(client, "sales")
    home = _customer(client, a)
    usd = _customer(client, a, name="USD diff", tax_id="", currency="USD", export=True)
    p = _plan(client, a, home["id"], {"lines": [{"option_key": TERM}]})
    assert _put(client, a.headers, p, customer_id=usd["id"]).status_code == 200
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    r = pages.get(f"/plans/{p['id']}/diff?a=1&b=2", headers={"Accept-Language": lang})
    assert r.status_code == 200
    rows = {
        tr.th.get_text(): [td.get_text() for td in tr.select("td")]
        for tr in BeautifulSoup(r.text, "html.parser").select(".diff-table tbody tr")
        if tr.th
    }
    assert rows[label] == [before, after]
