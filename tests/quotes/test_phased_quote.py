"""Regression: a phased (seed 003 T16) plan exports to PDF and shares like any other plan.

Before the fix `quote_view` read `workload["dataset_gb"]` from a phased workload (which has
only a `schedule` key) and the PDF and the share link answered 500 (issue 10).
"""

from __future__ import annotations

import re
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.accounts.models import User
from app.plans import schedule, service
from tests.accounts.helpers import make_account
from tests.plan_quotes import WORKLOAD


@pytest.fixture(scope="module")
def t16(client: TestClient) -> dict:
    a = make_account(client, "sales")
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        owner = s.get(User, a.user.id)
        assert owner is not None
        phased, _ = service.create_t16_example(session=s, owner=owner)
        return {"id": phased.id, "quote_number": phased.quote_number, "account": a}


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_t16_plan_pdf_is_200_with_its_phases(
    client: TestClient, t16: dict, lang: str, tmp_path: Path
) -> None:
    a = t16["account"]
    r = client.get(f"/api/v1/plans/{t16['id']}/pdf", params={"lang": lang}, headers=a.headers)
    assert r.status_code == 200, r.text
    path = tmp_path / "t16.pdf"
    path.write_bytes(r.content)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    assert t16["quote_number"] in text
    # Seed 003 T16 with T8 prices: 2 × 50,000 + 200,000 + 50,000 = NT$350,000.
    assert "350,000" in text


def test_t16_share_link_opens(client: TestClient, t16: dict) -> None:
    a = t16["account"]
    r = client.post(f"/api/v1/plans/{t16['id']}/share", json={}, headers=a.headers)
    assert r.status_code == 201, r.text
    url = r.json()["url"]
    path = url[url.index("/s/") :]
    anon = TestClient(client.app)
    page = anon.get(path)
    assert page.status_code == 200, page.text[:500]
    assert t16["quote_number"] in page.text and "350,000" in page.text
    pdf = anon.get(f"{path}/quote.pdf")
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"


# ---------------------------------------------------------------- the T16 phases, quoted


@pytest.fixture(scope="module")
def quoted(client: TestClient) -> dict[str, Any]:
    """The T16 phases for a customer of each language, quoted a line per phase (the quote
    builder's default for a phased plan) plus a NAS line, and shared."""
    from tests.quotes.test_quote_life import _customer, _share

    a = make_account(client, "sales")
    out: dict[str, Any] = {}
    for lang in ("zh-TW", "en"):
        c = _customer(client, a, name=f"客服公司 {lang}", language=lang)
        body = {
            "name": "客服模型分階段" if lang == "zh-TW" else "Customer-service model in phases",
            "customer_id": c["id"],
            "phases": [dict(p) for p in schedule.T16_PHASES],
            "quote": {
                "lines": [
                    *({"option_key": f"phase-{n}"} for n in (1, 2, 3)),
                    {
                        "description": "NAS 20 TB",
                        "quantity": "1",
                        "unit_price": "8000",
                        "months": "4",
                    },
                ]
            },
        }
        r = client.post("/api/v1/plans", json=body, headers=a.headers)
        assert r.status_code == 201, r.text
        out[lang] = {"plan": r.json(), "link": _share(client, a, r.json()["id"])}
    return out


def _text(client: TestClient, path: str, tmp_path: Path) -> str:
    r = client.get(path)
    assert r.status_code == 200, r.text[:300]
    pdf = tmp_path / "q.pdf"
    pdf.write_bytes(r.content)
    return subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout


@pytest.mark.parametrize(
    ("lang", "names", "labels"),
    [
        (
            "zh-TW",
            ("LoRA 微調", "全參數微調", "推論（服務）"),
            ("小計（未稅）", "稅額（營業稅 5%）", "總計（含稅）"),
        ),
        (
            "en",
            ("LoRA fine-tuning", "Full fine-tuning", "Inference (serving)"),
            ("Subtotal (excl. tax)", "Tax 5%", "Total (incl. tax)"),
        ),
    ],
)
def test_phased_quote_pdf_lists_the_phases_and_exact_totals(
    client: TestClient,
    quoted: dict[str, Any],
    lang: str,
    names: tuple[str, ...],
    labels: tuple[str, str, str],
    tmp_path: Path,
) -> None:
    from tests.quotes.test_customer_document import INTERNAL, _nt

    text = _text(TestClient(client.app), f"{quoted[lang]['link']}/quote.pdf", tmp_path)
    # The phase table: its header ends with "Billed as … Per month … Total".
    phases = text.split("計費方式" if lang == "zh-TW" else "Billed as")[1]
    for name in names:
        assert name in phases, name
    # a phase's quote line, with the language's own separator (fullwidth colon in Chinese)
    first = f"第 1 階段：{names[0]}" if lang == "zh-TW" else f"Phase 1: {names[0]}"
    assert first in text
    # the summary's GPUs are the peak phase's, and say so
    peak = (
        "最多 4 × NVIDIA H100 SXM5 80GB，各階段見下表"
        if lang == "zh-TW"
        else ("up to 4 × NVIDIA H100 SXM5 80GB, by phase below")
    )
    assert peak in text
    # Lines: phases 2 × 50,000 + 200,000 + 50,000 = 350,000; NAS 8,000 × 4 = 32,000;
    # subtotal 382,000; 5 % 營業稅 19,100; total 401,100.
    subtotal, tax, total = (_nt(text, label) for label in labels)
    assert (subtotal, tax, total) == (Decimal(382_000), Decimal(19_100), Decimal(401_100))
    assert subtotal + tax == total
    # The phases' NT$350,000 is the schedule at list price; the quote is the lines' (QA: a
    # phase table's "Total NT$780,000" above lines that came to NT$785,428 with tax read as
    # a second total, and the cost chart ended at a third).
    flat = " ".join(text.split())
    zh = lang == "zh-TW"
    assert ("牌價合計（未稅）" if zh else "List price, excl. tax") in flat
    # each money column says what its amount is (QA: a bare "List price" over a phase's
    # NT$200,000 for its months)
    heads = ("每月牌價（未稅）", "階段牌價（未稅）") if zh else (
        "List price per month (excl. tax)", "List price for the phase (excl. tax)")  # fmt: skip
    # in reading order (the layout text interleaves the lines of two wrapped headers)
    pdf = tmp_path / "q.pdf"
    read = subprocess.run(
        ["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    squeezed = "".join(read.split())
    assert all("".join(h.split()) in squeezed for h in heads), heads
    assert (
        "以上為各階段牌價，未含折扣與稅額；報價金額請見下方報價明細。"
        if zh
        else "The phases at list price, before discounts and tax; the quoted price is in the "
        "line items below."
    ) in flat
    # (the heading's last mention: the note above names it too)
    items = text.split("報價明細" if lang == "zh-TW" else "Line items")[-1]
    amounts = [Decimal(x.replace(",", "")) for x in re.findall(r"NT\$([\d,]+)\s*$", items, re.M)]
    assert amounts[:4] == [100_000, 200_000, 50_000, 32_000], amounts
    if lang == "zh-TW":
        flat = text.replace(" ", "")
        for word in (*INTERNAL, "lora", "inference", "capacity", "schedule", "T16"):
            if word == "lora":
                assert "lora" not in flat.replace("LoRA", ""), word
            else:
                assert word.lower() not in flat.lower(), word


def test_phased_share_page_shows_the_phases_signed_out(
    client: TestClient, quoted: dict[str, Any]
) -> None:
    from bs4 import BeautifulSoup

    page = TestClient(client.app).get(quoted["zh-TW"]["link"])
    assert page.status_code == 200
    soup = BeautifulSoup(page.text, "html.parser")
    rows = soup.select(".shared-phases li")
    assert len(rows) == 3
    assert [r.select_one(".amount").get_text() for r in rows] == [
        "NT$100,000",
        "NT$200,000",
        "NT$50,000",
    ]
    assert soup.select_one(".phases-total").get_text(strip=True) == "NT$350,000"
    # ... at list price: the quoted total (NT$401,100 with tax) is the lines' (QA).
    label = soup.select_one(".shared-phases .totals dt").get_text(strip=True)
    assert label == "各階段牌價，共 4 個月（未稅）"
    assert soup.select_one(".shared-phases .phases-list-price") is not None
    assert soup.select_one(".quoted-total").get_text(strip=True) == "NT$401,100"
    assert "full_finetune" not in page.text and "h100-sxm-80gb" not in page.text


# ------------------------------------------- the whole phased rental quoted as one line


@pytest.mark.parametrize(
    ("lang", "period", "start"),
    [
        ("zh-TW", "依階段計費，共 4 個月", "自第 1 個月起"),
        ("en", "total for 4 months, by phase", "from month 1"),
    ],
)
def test_the_whole_phased_rental_as_one_line_says_its_months_not_one_off(
    client: TestClient, lang: str, period: str, start: str, tmp_path: Path
) -> None:
    """QA: the phased rental quoted as one line read "NT$3,430,000 × qty 1, one-off" on the
    share page for a 20-month rental, and the first phase started "from month 0". T16 at T8's
    prices: 2 months × 50,000 + 1 × 200,000 + 1 × 50,000 = NT$350,000 over 2 + 1 + 1 = 4."""
    from tests.quotes.test_quote_life import _customer, _share

    a = make_account(client, "sales")
    c = _customer(client, a, name=f"整段租用 {lang}", language=lang)
    body = {"name": "T16 whole", "customer_id": c["id"],
            "phases": [dict(p) for p in schedule.T16_PHASES],
            "quote": {"lines": [{"option_key": "schedule"}]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    link = _share(client, a, r.json()["id"])
    anon = TestClient(client.app)
    page = anon.get(link)
    assert page.status_code == 200
    formula = page.text.split('class="muted small line-formula"')[1].split("</span></span>")[0]
    assert "350,000" in formula and period in formula
    assert ("一次性" if lang == "zh-TW" else "one-off") not in formula
    text = _text(anon, f"{link}/quote.pdf", tmp_path)
    assert period in text and start in text
    assert ("第 0 個月" if lang == "zh-TW" else "from month 0") not in text


def test_the_builder_says_the_whole_phased_rentals_months_too(client: TestClient) -> None:
    """The builder's months field of that line read "一次性" (one-off) as its placeholder;
    it says the period as the document does."""
    from bs4 import BeautifulSoup

    from tests.accounts.helpers import sign_in

    a = make_account(client, "sales")
    body = {"name": "T16 whole", "phases": [dict(p) for p in schedule.T16_PHASES],
            "quote": {"lines": [{"option_key": "schedule"}]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    page = BeautifulSoup(
        pages.get(f"/plans/{r.json()['id']}", headers={"Accept-Language": "zh-TW"}).text,
        "html.parser",
    )
    assert page.select_one("#f-line-0-months")["placeholder"] == "依階段計費，共 4 個月"
    # Its document lists phases, not ways to pay: no public-cloud switch that would print
    # nothing (QA), and a sentence saying why.
    assert page.select_one("input[name=include_cloud_comparison]") is None
    assert "不顯示公有雲價格" in page.select_one(".no-cloud-comparison").get_text()


@pytest.mark.parametrize(
    ("lang", "joined"), [("zh-TW", "數量 3</span>，<span"), ("en", "qty 3</span>, <span")]
)
def test_a_one_off_lines_parts_are_joined_in_the_readers_punctuation(
    client: TestClient, lang: str, joined: str
) -> None:
    """QA of stop 32: 「NT$33,333 × 數量 3, 一次性」 on a Chinese share page."""
    from tests.quotes.test_quote_life import TERM, _customer, _share

    a = make_account(client, "sales")
    c = _customer(client, a, name=f"一次性項目 {lang}", language=lang)
    quote = {
        "lines": [
            {"option_key": TERM},
            {"description": "安裝", "quantity": "3", "unit_price": "33333"},
        ]
    }
    body = {"name": "One-off", "customer_id": c["id"], "workload": WORKLOAD, "quote": quote}
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    page = TestClient(client.app).get(_share(client, a, r.json()["id"])).text
    assert joined in page


@pytest.mark.parametrize(
    ("lang", "pieces"),
    [
        ("zh-TW", ("時租", "共 1,460 小時", "長約租用", "（12 個月合約）")),
        ("en", ("Hourly rent", "1,460 h in all", "Term rent", "(12-month contract)")),
    ],
)
def test_how_a_phase_is_billed_breaks_only_between_its_pieces(
    client: TestClient, lang: str, pieces: tuple[str, ...], tmp_path: Path
) -> None:
    """QA: the billing cell broke inside 「小時」 (「共 400 小／時」) and inside 「12 個月合約」.
    Each piece now wraps whole: every one is found on a line of the PDF's text.

    Hours, by hand: phase 1 runs 2 months of 730 h (app.engine.units.HOURS_PER_MONTH) on one
    GPU, 2 × 730 = 1,460 h."""
    a = make_account(client, "sales")
    phases = [dict(p) for p in schedule.T16_PHASES]
    phases[0] = {**phases[0], "option": "hourly"}
    phases[2] = {**phases[2], "option": "contract", "months": 12}
    r = client.post(
        "/api/v1/plans", json={"name": "Hourly phases", "phases": phases}, headers=a.headers
    )
    assert r.status_code == 201, r.text
    pdf = client.get(f"/api/v1/plans/{r.json()['id']}/pdf?lang={lang}", headers=a.headers)
    assert pdf.status_code == 200, pdf.text[:300]
    path = tmp_path / "q.pdf"
    path.write_bytes(pdf.content)
    text = subprocess.run(
        ["pdftotext", "-layout", "-f", "1", "-l", "1", str(path), "-"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for piece in pieces:
        assert piece in text, (piece, text)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", [("", "Term rent"), (" ", "(12-month contract)")]),
        ("zh-TW", [("", "長約租用"), ("", "（12 個月合約）")]),
    ],
)
def test_a_contract_phase_is_billed_in_pieces_that_keep_their_spacing(
    lang: str, expected: list[tuple[str, str]]
) -> None:
    """The pieces wrap whole; put back together they read as one phrase, with the space
    English puts before a parenthesis and 中文 does not ("Term rent (12-month contract)",
    「長約租用（12 個月合約）」)."""
    from app import i18n
    from app.quotes.document import billing_parts

    i18n.activate(lang)
    try:
        parts = billing_parts({"billing": "rent_term", "term_months": 12})
    finally:
        i18n.activate("en")
    assert parts == expected
    hourly = {"billing": "rent_hourly", "hours": 1460}
    i18n.activate(lang)
    try:
        said = "".join(before + part for before, part in billing_parts(hourly))
    finally:
        i18n.activate("en")
    assert said == {"en": "Hourly rent · 1,460 h in all", "zh-TW": "時租 · 共 1,460 小時"}[lang]
