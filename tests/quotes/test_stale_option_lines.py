"""A quote line whose cost option a revision of the plan took away is flagged in the builder
and never sent (QA, 2026-12-03).

The plan quoted its 4-GPU server's 6-month contract; the workload was then revised to 8 GPUs,
whose options are other offers. The line stayed with its NT$180,000 a month but no option:
the builder showed it as a free line with an empty description, "send again" went through,
and the customer's page and PDF printed a price with no name.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.plan_quotes import WORKLOAD, leave_quote_behind
from tests.quotes.test_quote_life import TERM, _customer, _plan


@pytest.fixture(scope="module")
def revised(client: TestClient) -> dict:
    a = make_account(client, "sales")
    c = _customer(client, a, name="Revised Co")
    p = _plan(client, a, c["id"], {"lines": [{"option_key": TERM}]})
    assert client.post(f"/api/v1/plans/{p['id']}/send", headers=a.headers).status_code == 200
    # A save now takes such a line out (tests/quotes/test_workload_change_moves_the_quote.py);
    # plans revised before that still hold one.
    leave_quote_behind(client.app, p["id"], {**WORKLOAD, "gpu_count": 8})
    plan = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    keys = {o["key"] for o in plan["result"]["cost"]["options"]}
    assert TERM not in keys and plan["quote"]["lines"][0]["option_key"] == TERM
    return {"plan": plan, "account": a}


def test_sending_a_line_whose_option_is_gone_is_refused(client: TestClient, revised: dict) -> None:
    a, plan = revised["account"], revised["plan"]
    for lang, text in (
        ("en", "line 1 quotes a cost option this revision of the plan no longer has"),
        ("zh-TW", "第 1 行報價的費用選項已不在此版方案中"),
    ):
        r = client.post(f"/api/v1/plans/{plan['id']}/send",
                        headers={**a.headers, "Accept-Language": lang})  # fmt: skip
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["loc"] == ["body", "quote", "lines"] and text in detail["msg"]
    # Nothing was sent: the customer keeps the version sent before the revision.
    after = client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()
    assert after["sent_version"] == plan["sent_version"]


@pytest.mark.parametrize(
    ("lang", "gone", "why"),
    [
        ("en", "— No longer in this plan —", "A revision of the plan took this cost option away"),
        ("zh-TW", "— 已不在此方案中 —", "方案修訂後已沒有這個費用選項"),
    ],
)
def test_the_builder_keeps_the_line_selected_and_says_why(
    client: TestClient, revised: dict, lang: str, gone: str, why: str
) -> None:
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, revised["account"].user)
    page = BeautifulSoup(
        pages.get(f"/plans/{revised['plan']['id']}", headers={"Accept-Language": lang}).text,
        "html.parser",
    )
    select = page.select_one("select[name='line-0-option_key']")
    chosen = select.select_one("option[selected]")
    assert chosen is not None and chosen["value"] == TERM and chosen.get_text() == gone
    assert why in page.select_one("#err-line-0-option_key").get_text()
    # Its price is still the one typed for the old option, for the engineer to see.
    assert page.select_one("input[name='line-0-unit_price']") is not None
