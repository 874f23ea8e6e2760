"""A public cloud line quoted through the API stays itself in the quote builder, so the quote
can be saved again there (QA: the builder offers the seller's own options only; the line
showed as "Free line" with no description, and "Save quote" with nothing changed answered
"a line needs a cost option or a description")."""

from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.quotes.test_builder_pages import _form
from tests.quotes.test_quote_life import _customer


def test_a_cloud_line_is_listed_and_the_quote_saves_again_unchanged(client: TestClient) -> None:
    a = make_account(client, "sales")
    c = _customer(client, a)
    body = {"name": "cloud", "customer_id": c["id"],
            "workload": {"model": {"preset": "llama-3.1-8b"}, "task": "lora"}}  # fmt: skip
    plan = client.post("/api/v1/plans", json=body, headers=a.headers).json()
    cloud = next(o for o in plan["result"]["cost"]["options"] if o["kind"] == "cloud")
    r = client.put(f"/api/v1/plans/{plan['id']}", headers=a.headers,
                   json={"version": plan["version"],
                         "quote": {"lines": [{"option_key": cloud["key"]}]}})  # fmt: skip
    assert r.status_code == 200, r.text
    saved = r.json()

    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{plan['id']}?lang=en").text, "html.parser")
    chosen = page.select_one("select[name=line-0-option_key] option[selected]")
    assert chosen is not None and chosen["value"] == cloud["key"]
    r = pages.post(f"/plans/{plan['id']}/quote", data={**_form(page), "action": "save"})
    assert r.status_code in (200, 303), r.text[:400]
    after = client.get(f"/api/v1/plans/{plan['id']}", headers=a.headers).json()
    assert after["quote"]["lines"][0]["option_key"] == cloud["key"]
    assert after["quote_totals"]["total"] == saved["quote_totals"]["total"]


def test_a_cloud_line_quoted_as_one_item_says_how_it_is_billed(client: TestClient) -> None:
    """QA: a public cloud's hours read "NT$32,400,507 × qty 1, one-off"; its rate is not a
    whole NT$, so the line is one item at the option's total, but it says the rate × hours
    that total is (NT$1,761.28/h × 18,396 h = NT$32,400,506.88 → NT$32,400,507)."""
    a = make_account(client, "sales")
    body = {"name": "cloud 36", "workload": {"model": {"preset": "llama-3.1-70b"},
            "task": "inference", "users": 200, "utilization": 0.7, "term_months": 36,
            "pricing_mode": "capacity"}}  # fmt: skip
    plan = client.post("/api/v1/plans", json=body, headers=a.headers).json()
    aws = next(o for o in plan["result"]["cost"]["options"] if o["key"].startswith("cloud:aws"))
    r = client.put(f"/api/v1/plans/{plan['id']}", headers=a.headers,
                   json={"version": plan["version"],
                         "quote": {"lines": [{"option_key": aws["key"]}]}})  # fmt: skip
    assert r.status_code == 200, r.text
    [line] = r.json()["quote"]["lines"]
    rate, hours = aws["hourly_rate"], aws["billed"]["quantity"]
    assert line["unit"] == "item" and int(line["unit_price"]) == round(rate * hours)
    pages = TestClient(client.app)
    sign_in(pages, a.user)
    page = BeautifulSoup(pages.get(f"/plans/{plan['id']}?lang=en").text, "html.parser")
    formula = " ".join(page.select_one(".qb-totals .line-formula").get_text().split())
    assert "one-off" not in formula
    assert f"/h × {hours:,.0f} h" in formula, formula
