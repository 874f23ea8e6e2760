"""The shared quote page (/s/{token}) as the customer reads it, signed out, in a fresh
browser: no quoted total without a quote, money that says what it is (per month, per hour,
for N months, tax included or not), an explicit ?lang= that wins, a footer that is true of
the page, and the acceptance sentence and quote number that read right."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from app import i18n
from app.plans import schedule
from app.sharing.views import accept_sentence, quote_price_list
from tests.accounts.helpers import Account, make_account
from tests.plan_quotes import WORKLOAD
from tests.quotes.test_quote_life import _customer, _plan, _quote, _share

LANGS = ("en", "zh-TW")
COMPANY = "Formosa Robotics Co."


def _page(client: TestClient, path: str, **headers: str) -> BeautifulSoup:
    """The page as a first-time visitor sees it: a fresh client, no cookies."""
    r = TestClient(client.app).get(path, headers=headers)
    assert r.status_code == 200, r.text[:300]
    return BeautifulSoup(r.text, "html.parser")


def _text(el: Tag | None) -> str:
    assert el is not None
    return " ".join(el.get_text(" ").split())


def _facts(dl: Tag) -> dict[str, str]:
    """A <dl>'s label → value, whitespace collapsed."""
    return {_text(dt): _text(dt.find_next_sibling("dd")) for dt in dl.select("dt")}


def _summary(soup: BeautifulSoup) -> dict[str, str]:
    h2 = soup.find("h2", string=re.compile("^(Summary|摘要)$"))
    assert h2 is not None
    return _facts(h2.find_parent("section").select_one("dl"))


@pytest.fixture(scope="module")
def made(client: TestClient) -> dict[str, Any]:
    """For a customer of each language: a plan without a quote, a sent quote (term rent,
    NAS, and the hourly rent of the same server, 10% off the whole quote), and the T16
    phases quoted a line per phase plus a NAS line."""
    a = make_account(client, "sales")
    out: dict[str, Any] = {"account": a}
    for lang in LANGS:
        c = _customer(client, a, name=COMPANY, language=lang)
        bare = _bare(client, a, c["id"])
        quote = _quote("10")
        quote["lines"].append({"option_key": "rent_hourly:stratagem-tpe-h100-x4"})
        quoted = _plan(client, a, c["id"], quote)
        link = _share(client, a, quoted["id"])
        assert client.post(f"/api/v1/plans/{quoted['id']}/send", headers=a.headers).status_code
        phased = _phased(client, a, c["id"])
        out[lang] = {
            "bare": {"plan": bare, "link": _share(client, a, bare["id"])},
            "quoted": {"plan": quoted, "link": link},
            "phased": {"plan": phased, "link": _share(client, a, phased["id"])},
        }
    return out


def _bare(client: TestClient, a: Account, customer_id: int) -> dict[str, Any]:
    """A plan of the quote tests' workload with no quote."""
    body = {"name": "LoRA pilot", "workload": WORKLOAD, "customer_id": customer_id}
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    return dict(r.json())


def _phased(client: TestClient, a: Account, customer_id: int) -> dict[str, Any]:
    body = {
        "name": "Phased rollout",
        "customer_id": customer_id,
        "phases": [dict(p) for p in schedule.T16_PHASES],
        "quote": {
            "lines": [
                *({"option_key": f"phase-{n}"} for n in (1, 2, 3)),
                {"description": "NAS 20 TB", "quantity": "1", "unit_price": "8000", "months": "4"},
            ]
        },
    }
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    return dict(r.json())


# ------------------------------------------------------------------ 1. no quote, no total


@pytest.mark.parametrize(
    ("lang", "pending"),
    [
        (
            "en",
            "The quote is being prepared. Each way to pay below shows its own total for the "
            "period (excl. tax).",
        ),
        ("zh-TW", "報價單準備中。以下每種付款方式皆列出該期間各自的總額（未稅）。"),
    ],
)
def test_a_plan_without_a_quote_shows_no_quoted_total(
    client: TestClient, made: dict[str, Any], lang: str, pending: str
) -> None:
    plan = made[lang]["bare"]["plan"]
    assert plan["quote"] is None  # the plan has no quote lines at all
    soup = _page(client, made[lang]["bare"]["link"])
    assert soup.html["lang"] == ("en" if lang == "en" else "zh-Hant-TW")
    assert soup.select_one(".quoted-total") is None
    assert _text(soup.select_one(".quote-pending")) == pending
    article = _text(soup.select_one("article.shared-quote"))
    for word in ("Quoted total", "報價總額"):
        assert word not in article, word
    # No amount in the summary: the engine's cheapest option (QA's was a public-cloud rental
    # the ways to pay do not list) is no price the customer can trace without its lines.
    assert not any("NT$" in v for v in _summary(soup).values())
    # each way to pay keeps its own labelled total ("Total for the period (excl. tax)")
    assert soup.select("table tbody td.num")


def test_a_phased_plan_without_a_quote_points_to_its_phases(
    client: TestClient, made: dict[str, Any]
) -> None:
    a = made["account"]
    c = _customer(client, a, name="無報價公司", language="zh-TW")
    body = {"name": "分階段", "customer_id": c["id"], "phases": schedule.T16_PHASES}
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    soup = _page(client, _share(client, a, r.json()["id"]))
    assert soup.select_one(".quoted-total") is None
    assert _text(soup.select_one(".quote-pending")) == (
        "報價單準備中。以下各階段皆列出各自的價格（未稅）。"
    )
    # Seed 003 T16 at T8 prices: 2 × 50,000 + 200,000 + 50,000 = NT$350,000 over 4 months.
    assert _text(soup.select_one(".phases-total")) == "NT$350,000"


# ------------------------------------------------------- 1 + 3. a quote: subtotal, tax, total

# Seed 003 T8 prices, by hand:
#   term rent  NT$180,000/month × 1 × 6 months           = 1,080,000
#   NAS        NT$8,000/month   × 1 × 6 months           =    48,000
#   hourly     NT$480/h (4 × H100 at NT$120/GPU-h) × H h =   480 × H
#   lines total 1,128,000 + 480 H; −10% quote discount; 5% 營業稅 on the subtotal.


def _by_hand(hours: Decimal) -> dict[str, Decimal]:
    lines = Decimal(1_080_000) + Decimal(48_000) + 480 * hours
    discount = (lines * Decimal("0.10")).quantize(Decimal(1), rounding="ROUND_HALF_UP")
    subtotal = lines - discount
    tax = (subtotal * Decimal("0.05")).quantize(Decimal(1), rounding="ROUND_HALF_UP")
    return {"lines": lines, "discount": discount, "subtotal": subtotal, "tax": tax}


def _nt(text: str) -> Decimal:
    found = re.search(r"NT\$([\d,]+)", text)
    assert found, text
    return Decimal(found.group(1).replace(",", ""))


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        ("en", ("Subtotal (excl. tax)", "Tax 5%", "Total (incl. tax)")),
        ("zh-TW", ("小計（未稅）", "稅額（營業稅 5%）", "總計（含稅）")),
    ],
)
def test_the_quoted_total_comes_with_its_subtotal_and_tax(
    client: TestClient, made: dict[str, Any], lang: str, labels: tuple[str, str, str]
) -> None:
    plan = made[lang]["quoted"]["plan"]
    hourly = plan["quote"]["lines"][2]
    assert (hourly["unit"], hourly["unit_price"]) == ("hour", "480")
    want = _by_hand(Decimal(hourly["quantity"]))
    assert Decimal(plan["quote_totals"]["subtotal"]) == want["subtotal"]
    soup = _page(client, made[lang]["quoted"]["link"])
    summary = _summary(soup)
    subtotal, tax, total = (_nt(summary[label]) for label in labels)
    assert (subtotal, tax) == (want["subtotal"], want["tax"])
    assert total == subtotal + tax
    assert _nt(_text(soup.select_one(".quoted-total"))) == total
    # the line items' totals say the same, with the lines total and the discount
    assert _nt(_text(soup.select_one(".lines-total"))) == want["lines"]
    assert _nt(_text(soup.select_one(".totals .discount"))) == want["discount"]
    assert _nt(_text(soup.select_one(".totals .subtotal"))) == want["subtotal"]
    assert _nt(_text(soup.select_one(".totals .tax"))) == want["tax"]
    assert _nt(_text(soup.select_one(".totals .total"))) == total
    # the ways to pay are list prices: they say so, beside a quote whose lines are discounted
    # (QA: a contract's NT$10,080,000 there against its quoted NT$9,576,000)
    assert soup.select_one("table.ways-to-pay") is not None
    assert soup.select_one(".options-list-price") is not None


@pytest.mark.parametrize(
    ("lang", "term", "nas", "hourly"),
    [
        (
            "en",
            "NT$180,000/month × qty 1 × 6 months",
            "NT$8,000/month × qty 1 × 6 months",
            "NT$480/h × {h} h",
        ),
        (
            "zh-TW",
            "NT$180,000/月 × 數量 1 × 6 個月",
            "NT$8,000/月 × 數量 1 × 6 個月",
            "NT$480/小時 × {h} 小時",
        ),
    ],
)
def test_every_line_says_what_each_factor_is(
    client: TestClient, made: dict[str, Any], lang: str, term: str, nas: str, hourly: str
) -> None:
    plan = made[lang]["quoted"]["plan"]
    hours = Decimal(plan["quote"]["lines"][2]["quantity"])
    soup = _page(client, made[lang]["quoted"]["link"])
    lines = soup.select(".quote-lines:not(.phase-lines) li")
    formulas = [_text(li.select_one(".line-formula")) for li in lines]
    assert formulas == [term, nas, hourly.format(h=f"{hours:,.0f}")]
    # Each amount is its line's arithmetic: 180,000 × 6; 8,000 × 6; 480 × hours.
    amounts = [_nt(_text(li.select_one(".amount"))) for li in lines]
    assert amounts == [Decimal(1_080_000), Decimal(48_000), 480 * hours]


@pytest.mark.parametrize(
    ("lang", "phase", "line", "total_label"),
    [
        (
            "en",
            "NT$50,000/month × 2 months",
            "NT$200,000/month × qty 1 × 1 month",
            # with quote lines, the phases are the list price (QA: read as a second total)
            "Phases at list price for 4 months (excl. tax)",
        ),
        (
            "zh-TW",
            "NT$50,000/月 × 2 個月",
            "NT$200,000/月 × 數量 1 × 1 個月",
            "各階段牌價，共 4 個月（未稅）",
        ),
    ],
)
def test_phased_quote_labels_its_totals_and_months(
    client: TestClient, made: dict[str, Any], lang: str, phase: str, line: str, total_label: str
) -> None:
    soup = _page(client, made[lang]["phased"]["link"])
    phases = soup.select(".shared-phases li")
    assert _text(phases[0].select_one(".muted")).endswith(phase)
    totals = _facts(soup.select_one(".shared-phases dl"))
    # Seed 003 T16 at T8 prices: 2 × 50,000 + 200,000 + 50,000 = NT$350,000.
    assert totals == {total_label: "NT$350,000"}
    formulas = [_text(x) for x in soup.select(".line-formula")]
    assert formulas[1] == line  # a one-month line still says its month
    # Lines 350,000 + NAS 8,000 × 4 = 382,000; 5% 營業稅 19,100; total 401,100.
    summary = list(_summary(soup).values())
    assert [_nt(v) for v in summary if "NT$" in v] == [
        Decimal(382_000),
        Decimal(19_100),
        Decimal(401_100),
    ]
    # No bare "Total" anywhere: each total says whether it includes tax.
    labels = [_text(dt) for dt in soup.select("article dt")]
    assert "Total" not in labels and "總計" not in labels


# --------------------------------------------------------------- 2. an explicit ?lang= wins


@pytest.mark.parametrize(("customer", "asked"), [("zh-TW", "en"), ("en", "zh-TW")])
def test_an_explicit_lang_beats_the_customers_language(
    client: TestClient, made: dict[str, Any], customer: str, asked: str
) -> None:
    path = made[customer]["quoted"]["link"]
    visitor = TestClient(client.app)
    r = visitor.get(path, params={"lang": asked})
    assert r.status_code == 200
    html_lang = {"en": "en", "zh-TW": "zh-Hant-TW"}
    assert BeautifulSoup(r.text, "html.parser").html["lang"] == html_lang[asked]
    assert r.cookies.get(i18n.LANG_COOKIE) == asked  # the middleware remembers it
    # …so the page's next visit (and its form answers) stay in the asked language.
    again = BeautifulSoup(visitor.get(path).text, "html.parser")
    assert again.html["lang"] == html_lang[asked]


def test_accept_language_alone_yields_to_the_customers_language(
    client: TestClient, made: dict[str, Any]
) -> None:
    soup = _page(client, made["zh-TW"]["quoted"]["link"], **{"Accept-Language": "en"})
    assert soup.html["lang"] == "zh-Hant-TW"
    soup = _page(client, made["en"]["quoted"]["link"], **{"Accept-Language": "zh-TW"})
    assert soup.html["lang"] == "en"


# ------------------------------------------------------------- 4. a footer true of the page


@pytest.mark.parametrize(
    ("lang", "prices", "note", "untrue"),
    [
        (
            "en",
            "Prices: the price list of this quote, effective Nov 1, 2026.",
            "Amounts exclude tax unless marked incl. tax; each quoted amount shows its unit "
            "price, quantity and months.",
            "formula and source",
        ),
        (
            "zh-TW",
            "價格：本報價單所依據的價目表，2026年11月1日生效。",
            "除標明含稅者外，金額皆未稅；每筆報價金額都列出單價、數量與月數。",
            "公式與出處",
        ),
    ],
)
def test_the_footer_says_what_the_page_shows(
    client: TestClient, made: dict[str, Any], lang: str, prices: str, note: str, untrue: str
) -> None:
    plan = made[lang]["quoted"]["plan"]
    assert plan["result"]["cost"]["price_list"]["name"] == "2026-11 list"
    soup = _page(client, made[lang]["quoted"]["link"])
    footer = " ".join(soup.select_one(".site-footer").get_text().split())
    assert untrue not in footer  # the customer's page shows no formula appendix
    assert note in footer and prices in footer
    # The catalog's own name for the list is an admin's label, English in a 中文 page.
    assert "2026-11 list" not in footer
    # every other page keeps the sentence (its explain view is one click away)
    home = _text(_page(client, "/", **{"Accept-Language": lang}).select_one(".site-footer"))
    assert untrue in home


def test_the_footer_names_the_quotes_own_price_list() -> None:
    # The footer's "Prices: …" is the list the quote was priced from, not today's catalog,
    # named in the page's language (its date says which list).
    i18n.activate("en")
    own = quote_price_list({"name": "2025-06 list", "effective_date": "2025-06-01"})
    assert own is not None
    assert (own.name, own.effective_date) == ("the price list of this quote", date(2025, 6, 1))
    assert quote_price_list({}) is None and quote_price_list(None) is None


# ---------------------------------------- 5. acceptance sentence, quote number, tidy lists


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        ("en", "I accept this quote (version {n}) on behalf of Formosa Robotics Co."),
        ("zh-TW", "本人代表 Formosa Robotics Co. 接受此報價（第 {n} 版）。"),
    ],
)
def test_acceptance_sentence_has_one_full_stop(
    client: TestClient, made: dict[str, Any], lang: str, sentence: str
) -> None:
    a = made["account"]
    plan_id = made[lang]["quoted"]["plan"]["id"]
    sent = client.get(f"/api/v1/plans/{plan_id}", headers=a.headers).json()["sent_version"]
    soup = _page(client, made[lang]["quoted"]["link"])
    label = _text(soup.select_one("form.accept-form label.check"))
    # The first revision sent is the customer's version 1, whatever its number in the
    # history (saved, quoted, then sent: history version 3 read "version 3", QA).
    assert sent > 1
    assert label == sentence.format(n=1)
    assert ".." not in label


@pytest.mark.parametrize(
    ("lang", "company", "expected"),
    [
        ("en", "Acme", "I accept this quote (version 3) on behalf of Acme."),
        ("en", "Acme Inc.", "I accept this quote (version 3) on behalf of Acme Inc."),
        ("zh-TW", "Acme Inc.", "本人代表 Acme Inc. 接受此報價（第 3 版）。"),
        # No customer named on the quote: "本人代表 — 接受此報價" read as a blank (QA).
        ("en", "", "I accept this quote (version 3) on behalf of my organisation."),
        ("zh-TW", " ", "本人代表所屬機構接受此報價（第 3 版）。"),
    ],
)
def test_accept_sentence(lang: str, company: str, expected: str) -> None:
    i18n.activate(lang)
    try:
        assert accept_sentence(3, company) == expected
    finally:
        i18n.activate("en")


def test_quote_number_is_one_unbreakable_token_and_lists_are_tidy(
    client: TestClient, made: dict[str, Any]
) -> None:
    plan = made["en"]["quoted"]["plan"]
    soup = _page(client, made["en"]["quoted"]["link"])
    number = soup.select_one("h1 .quote-number")
    assert number is not None and number.get_text() == plan["quote_number"]
    assert number["translate"] == "no"
    # every label/value list takes the cards' dl.specs grid (no browser-default indent)
    lists = soup.select("article dl")
    assert lists and all("specs" in dl["class"] for dl in lists)
    css = client.get("/static/css/app.css").text
    assert re.search(r"\.shared-quote \.quote-number \{ white-space: nowrap; \}", css)
