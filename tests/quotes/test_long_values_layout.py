"""Long customer details stay inside the quote's page: the seller's block keeps its place.

QA: a customer with an 86-character e-mail and a 150-character word in the address widened the
customer's half of the parties table until the seller's block — the seller's name and
統一編號, which a quote must carry — was pushed off page 1; an address typed on two lines
printed on one; a quantity of 1,000,000,000 ran into the months column. The halves are now
fixed, a long word breaks inside its own, and an address keeps its lines.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import weasyprint
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.plans.models import Plan
from app.quotes.pdf import quote_html
from app.web.templating import templates
from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import TERM, _customer, _plan

EMAIL = "procurement." + "averyveryverylongmailbox" * 2 + "@some-very-long-subdomain.ntu.edu.tw"
ADDRESS = "10617 臺北市大安區羅斯福路四段1號\n德田館 B1 機房 " + "A" * 150


def _page_text(pdf: bytes, tmp_path: Path, page: int) -> str:
    out = tmp_path / "q.pdf"
    out.write_bytes(pdf)
    args = ["pdftotext", "-layout", "-f", str(page), "-l", str(page), str(out), "-"]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def test_the_sellers_block_stays_on_page_one_beside_long_customer_details(
    client: TestClient, tmp_path: Path
) -> None:
    assert len(EMAIL) > 85
    a = make_account(client, "sales")
    c = _customer(client, a, name="Long Details Co", tax_id="", email=EMAIL, address=ADDRESS)
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    state = client.app.state  # type: ignore[attr-defined]
    settings = state.settings
    state.settings = settings.model_copy(
        update={"company_name": "Vendor Co", "company_tax_id": "22099131"}
    )
    try:
        r = client.get(f"/api/v1/plans/{p['id']}/pdf?lang=en", headers=a.headers)
    finally:
        state.settings = settings
    assert r.status_code == 200
    first = _page_text(r.content, tmp_path, 1)
    # the seller's block, labelled "Seller", on page 1 (the letterhead above it names the
    # company too: the block is what went missing)
    block = first[first.index("Customer") :]
    assert "Seller" in block and "Vendor Co" in block and "22099131" in block, first
    lines = [line.strip() for line in first.splitlines()]
    # the address's second line starts a line of its own (the customer's half of the table)
    assert any(line.startswith("德田館 B1 機房") for line in lines), first
    # the long e-mail is printed to its end, broken inside its half (it was cut at "ntu.ed")
    assert "procurement.averyvery" in block and "ntu.edu.tw" in block, block


def _boxes(box: Any) -> Iterator[Any]:
    yield box
    for child in getattr(box, "children", None) or ():
        yield from _boxes(child)


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_no_box_of_the_quote_runs_into_the_right_margin(client: TestClient, lang: str) -> None:
    """Every box WeasyPrint lays out ends inside its page's content width (A4 less 16 mm a
    side). QA: the parties table, its halves given `width: 50%` on top of their padding and
    borders, ran 31.8 pt (11 mm) past the right margin on every quote, in both languages."""
    a = make_account(client, "sales")
    c = _customer(client, a, name="Long Details Co", tax_id="", email=EMAIL, address=ADDRESS)
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    with Session(client.app.state.engine) as s:  # type: ignore[attr-defined]
        plan = s.get(Plan, p["id"])
        assert plan is not None
        html = quote_html(
            plan, lang=lang, session=s, letterhead={"name": "Vendor Co", "tax_id": "22099131"}
        )
    root = str(templates.env.loader.searchpath[0])  # type: ignore[union-attr]
    pages = weasyprint.HTML(string=html, base_url=root).render().pages
    past = []
    for number, page in enumerate(pages, 1):
        page_box = page._page_box
        right = page_box.content_box_x() + page_box.width
        for box in _boxes(page_box):
            if getattr(box, "element_tag", None) in (None, "html", "body"):
                continue
            end = box.border_box_x() + box.border_width()
            if end > right + 0.5:  # half a point: rounding, not a box past the margin
                past.append(f"page {number}: <{box.element_tag}> {end - right:.1f} pt past")
    assert pages and not past, past


def test_ways_to_pay_keep_a_rate_with_its_count_and_the_header_whole(
    client: TestClient, tmp_path: Path
) -> None:
    """QA: in a 24% column "NT$200,000/month ×" and "1 month" sat on two lines, and the
    header broke inside its parenthesis ("(excl. / tax)"). The total's column is 32% wide
    and the header's parenthesis wraps whole."""
    a = make_account(client, "sales")
    c = _customer(client, a, name="Layout Co", language="en")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    r = client.get(f"/api/v1/plans/{p['id']}/pdf?lang=en", headers=a.headers)
    assert r.status_code == 200
    pages = [_page_text(r.content, tmp_path, n) for n in (1, 2)]
    text = next(t for t in pages if "Ways to pay for this plan" in t)
    lines = text[text.index("Ways to pay for this plan") :].splitlines()
    assert any("Total for the period (excl. tax)" in line for line in lines), text
    rates = [line for line in lines if "/month ×" in line]
    assert rates, text
    for line in rates:
        assert re.search(r"/month × [\d,.]+ months?\s*$", line), line


def test_buyings_breakdown_breaks_only_between_its_terms(
    client: TestClient, tmp_path: Path
) -> None:
    """QA: 「前期費用 … ＋ 12 個月營／運費用 NT$…」 broke inside a word. Each term of the sum
    wraps whole: 「營運費用 NT$」 is on one line of the PDF's text, and no line ends inside
    a term (every line break in the breakdown follows its ＋ or −)."""
    a = make_account(client, "sales")
    c = _customer(client, a, name="佈局公司", language="zh-TW")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    r = client.get(f"/api/v1/plans/{p['id']}/pdf?lang=zh-TW", headers=a.headers)
    assert r.status_code == 200
    text = next(
        t for t in (_page_text(r.content, tmp_path, n) for n in (1, 2, 3)) if "前期費用 NT$" in t
    )
    lines = [line.strip() for line in text.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("前期費用 NT$"))
    assert "營運費用 NT$" in lines[start] or "營運費用 NT$" in lines[start + 1], lines[
        start : start + 2
    ]
    first = lines[start].split("  ")[0].rstrip()  # the breakdown's part of the row
    assert first.endswith(("＋", "−")) or "營運費用 NT$" in first, first
