"""A saved plan keeps its own currency: the display switch only changes what a page shows.

QA: with the US$ display switch on (/set-currency?currency=USD), saving the planner's
workload into a NT$ customer's plan (dataset_gb=40) answered 303 and the diff read
workload.currency TWD → USD and result.currency TWD → USD, while the customer and the
quote's totals stayed in NT$.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account, sign_in
from tests.plans.test_stale_forms import soup
from tests.quotes.test_quote_life import TERM, _customer, _plan


def test_saving_the_planners_workload_with_the_usd_display_keeps_the_plan_in_twd(
    client: TestClient,
) -> None:
    sales = make_account(client, "sales")
    plan = _plan(client, sales, _customer(client, sales)["id"], {"lines": [{"option_key": TERM}]})
    assert plan["workload"]["currency"] == "TWD"
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, sales.user)
    assert pages.get("/set-currency?currency=USD&next=/").status_code in (302, 303)

    planner = pages.get("/plan", params={"revise": plan["id"], "version": "1"})
    form = soup(planner.text).select_one(f"form[action='/plans/{plan['id']}/workload']")
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    # the planner shows US$ (the reader's choice) ...
    assert "US$" in soup(planner.text).select_one("main").get_text()
    r = pages.post(f"/plans/{plan['id']}/workload", data=data)
    assert r.status_code == 303, soup(r.text).get_text(" ", strip=True)[:300]

    saved = client.get(f"/api/v1/plans/{plan['id']}", headers=sales.headers).json()
    assert saved["version"] == 2
    # ... the plan stays in its own currency, as its customer and quote are
    assert saved["workload"]["currency"] == "TWD"
    assert saved["result"]["cost"]["currency"] == "TWD"
    assert saved["quote"]["currency"] == "TWD"
    diff = client.get(
        f"/api/v1/plans/{plan['id']}/diff", params={"from": 1, "to": 2}, headers=sales.headers
    ).json()
    fields = {c["field"] for c in diff["changes"]}
    assert not fields & {"workload.currency", "result.currency", "quote.currency"}
