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
