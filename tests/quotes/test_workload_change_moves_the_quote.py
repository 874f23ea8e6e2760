"""A new workload moves the plan's quote with it, as a reprice does.

QA: a LoRA of Llama 3.1 70B on 20 GB in 7 days rents the provider's 16-GPU InfiniBand
cluster (one machine, NT$700,000 a month on the shipped list). The dataset changed to 200 GB
needs 88 GPUs, and that option then costs NT$3,850,000 a month — but the quote line kept
unit price and list price NT$700,000, and "send" answered 200: an 82% discount went to the
customer where a sales engineer's limit is 10%.

What must be true after a workload change:
* a line whose figures were its option's own takes the option's new figures;
* a price someone typed stays, and is judged against the option's new list price, so the
  approval limit applies to it;
* the save says what moved in the quote (line by line, before → after);
* a line whose option the plan no longer has is taken out and reported, as a reprice does.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from fastapi.testclient import TestClient

from app.quotes import pricing
from tests.accounts.helpers import Account, make_account
from tests.quotes.test_quote_life import _customer

X16 = "rent_monthly:stratagem-tpe-h100-x16-ib"
WORKLOAD: dict[str, Any] = {
    "model": {"preset": "llama-3.1-70b"},
    "task": "lora",
    "dataset_gb": 20,
    "deadline_days": 7,
}
BIGGER = {**WORKLOAD, "dataset_gb": 200}


def _plan(client: TestClient, who: Account, lines: list[dict[str, Any]]) -> dict[str, Any]:
    c = _customer(client, who)
    body = {"name": "wl2", "customer_id": c["id"], "workload": WORKLOAD, "quote": {"lines": lines}}
    r = client.post("/api/v1/plans", json=body, headers=who.headers)
    assert r.status_code == 201, r.text
    return r.json()


def _option(plan: dict[str, Any], key: str) -> dict[str, Any]:
    return next(o for o in plan["result"]["cost"]["options"] if o["key"] == key)


def _put(client: TestClient, who: Account, plan: dict[str, Any], **body: Any) -> Any:
    return client.put(
        f"/api/v1/plans/{plan['id']}",
        json={"version": plan["version"], **body},
        headers=who.headers,
    )


def test_a_line_at_its_options_price_follows_the_option_to_the_new_workload(
    client: TestClient,
) -> None:
    sales = make_account(client, "sales")
    plan = _plan(client, sales, [{"option_key": X16, "quantity": 1}])
    line = plan["quote"]["lines"][0]
    assert plan["result"]["gpu"]["count"] == 16
    assert (line["unit_price"], line["list_price"]) == ("700000", "700000")

    r = _put(client, sales, plan, workload=BIGGER)
    assert r.status_code == 200, r.text
    saved = r.json()
    assert saved["result"]["gpu"]["count"] == 88
    option = _option(saved, X16)
    line = saved["quote"]["lines"][0]
    # the option's own monthly price for 88 GPUs, on the line and as its list price
    monthly = Decimal(str(option["monthly_rate"]))
    assert pricing.gross(line) == monthly == Decimal(3_850_000)
    assert line["unit_price"] == line["list_price"]
    # 3,850,000 + 5% 營業稅
    assert Decimal(saved["quote_totals"]["total"]) == Decimal(4_042_500)
    # the save says what moved: line 1, NT$700,000 → NT$3,850,000 a month
    [moved] = saved["quote_changes"]
    assert moved["line"] == 1 and moved["option_key"] == X16
    assert (moved["amount_before"], moved["amount_after"]) == ("700000", "3850000")
    assert moved["typed_price"] is False
    assert saved["removed_lines"] == []
    # nothing was discounted: it goes out
    r = client.post(f"/api/v1/plans/{plan['id']}/send", json={}, headers=sales.headers)
    assert r.status_code == 200, r.text


def test_a_typed_price_stays_and_is_judged_against_the_new_list_price(
    client: TestClient,
) -> None:
    """NT$690,000 typed on the 16-GPU cluster (1.4% off, sent without approval) is 82% off
    the 88-GPU price: it stays on the line, and waits for an admin like any such discount."""
    sales = make_account(client, "sales")
    plan = _plan(client, sales, [{"option_key": X16, "quantity": 1, "unit_price": "690000"}])
    r = _put(client, sales, plan, workload=BIGGER)
    assert r.status_code == 200, r.text
    saved = r.json()
    line = saved["quote"]["lines"][0]
    assert line["unit_price"] == "690000"  # as typed
    assert Decimal(line["list_price"]) > Decimal(3_000_000)  # the 88-GPU option's
    assert pricing.max_discount_pct(saved["quote"]) > Decimal(10)
    [moved] = saved["quote_changes"]
    assert moved["typed_price"] is True
    assert (moved["unit_price_before"], moved["unit_price_after"]) == ("690000", "690000")
    assert moved["list_price_before"] == "700000"
    assert moved["list_price_after"] == line["list_price"]

    r = client.post(f"/api/v1/plans/{plan['id']}/send", json={}, headers=sales.headers)
    assert r.status_code == 409
    assert r.json()["detail"][0]["loc"] == ["body", "status", "discount_approval_required"]


def test_a_line_whose_option_is_gone_follows_its_kind_from_its_provider(
    client: TestClient,
) -> None:
    """The 4-GPU server rents the small job; the 88-GPU job has no such option. The line
    quoted the provider's monthly rent: it quotes the provider's monthly rent of the new
    machines, at their price (QA: a quoted purchase was taken out of the quote without a
    word when the workload chose another server)."""
    sales = make_account(client, "sales")
    small = {**WORKLOAD, "model": {"preset": "llama-3.1-8b"}, "dataset_gb": 1}
    c = _customer(client, sales)
    r = client.post(
        "/api/v1/plans",
        json={"name": "small", "customer_id": c["id"], "workload": small},
        headers=sales.headers,
    )
    assert r.status_code == 201, r.text
    plan = r.json()
    options = [o for o in plan["result"]["cost"]["options"] if o.get("feasible", True)]
    was_option = next(o for o in options if o["kind"] == "rent_monthly" and "x16" not in o["key"])
    gone = was_option["key"]
    quote = {
        "lines": [
            {"option_key": gone},
            {"description": "NAS 20 TB", "quantity": "1", "unit_price": "8000", "months": "1"},
        ]
    }
    r = _put(client, sales, plan, quote=quote)
    assert r.status_code == 200, r.text
    plan = r.json()

    r = _put(client, sales, plan, workload=BIGGER)
    assert r.status_code == 200, r.text
    saved = r.json()
    assert gone not in {o["key"] for o in saved["result"]["cost"]["options"]}
    assert saved["removed_lines"] == []
    line, nas = saved["quote"]["lines"]
    assert nas["description"] == "NAS 20 TB"
    successor = _option(saved, line["option_key"])
    assert successor["kind"] == "rent_monthly"
    assert successor["provider"] == was_option["provider"]
    # at the new option's own rate: its monthly rate × its months
    assert Decimal(line["unit_price"]) == pricing.round_money(
        Decimal(str(successor["monthly_rate"])), "TWD"
    )


def test_a_quoted_purchase_follows_the_server_a_new_workload_buys(client: TestClient) -> None:
    """QA: a chat service for 200 users quoted buying one 8-GPU server; at 600 users the
    engine buys 4-GPU servers instead, and the purchase line vanished from the quote."""
    sales = make_account(client, "sales")
    c = _customer(client, sales)
    serving = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "users": 200,
               "term_months": 36, "pricing_mode": "capacity"}  # fmt: skip
    r = client.post("/api/v1/plans", headers=sales.headers,
                    json={"name": "buy", "customer_id": c["id"], "workload": serving})  # fmt: skip
    assert r.status_code == 201, r.text
    plan = r.json()
    buy = next(o for o in plan["result"]["cost"]["options"] if o["kind"] == "buy")
    r = _put(client, sales, plan, quote={"lines": [{"option_key": buy["key"]}]})
    assert r.status_code == 200, r.text
    plan = r.json()
    r = _put(client, sales, plan, workload={**serving, "users": 600})
    assert r.status_code == 200, r.text
    saved = r.json()
    [line] = saved["quote"]["lines"]
    new_buy = next(o for o in saved["result"]["cost"]["options"] if o["kind"] == "buy")
    assert new_buy["key"] != buy["key"]  # another server
    assert line["option_key"] == new_buy["key"] and saved["removed_lines"] == []
    # paid once, up front: the new purchase's up-front price
    assert Decimal(line["unit_price"]) == pricing.round_money(
        Decimal(str(new_buy["upfront"])), "TWD"
    )


def test_the_planners_save_shows_the_quote_lines_before_and_after(client: TestClient) -> None:
    """From the planner: the save opens the diff, whose quote table says each line's
    amount before and after, and that a typed price stays typed against the new list."""
    from bs4 import BeautifulSoup

    from tests.accounts.helpers import sign_in

    sales = make_account(client, "sales")
    plan = _plan(
        client,
        sales,
        [{"option_key": X16, "quantity": 1}, {"option_key": X16, "unit_price": "690000"}],
    )
    pages = TestClient(client.app, follow_redirects=False)
    sign_in(pages, sales.user)
    detail = BeautifulSoup(pages.get(f"/plans/{plan['id']}").text, "html.parser")
    planner = pages.get(detail.select_one("a.edit-in-planner")["href"])
    form = BeautifulSoup(planner.text, "html.parser").select_one(
        f"form[action='/plans/{plan['id']}/workload']"
    )
    data = {i["name"]: i.get("value", "") for i in form.select("input[name]")}
    assert data["dataset_gb"] == "20"
    data["dataset_gb"] = "200"
    r = pages.post(f"/plans/{plan['id']}/workload", data=data)
    assert r.status_code == 303, r.text[:300]
    assert r.headers["location"] == f"/plans/{plan['id']}/diff?a=1&b=2"
    for lang, typed in (
        ("en", "Typed price; the option's list price is NT$3,850,000"),
        ("zh-TW", "自行輸入的單價；方案定價為 NT$3,850,000"),
    ):
        page = BeautifulSoup(
            pages.get(r.headers["location"], headers={"Accept-Language": lang}).text,
            "html.parser",
        )
        rows = page.select("table.quote-diff tbody tr:not(.total)")
        amounts = [[td.get_text(strip=True) for td in row.select("td")][:2] for row in rows]
        assert amounts == [["NT$700,000", "NT$3,850,000"], ["NT$690,000", "NT$690,000"]]
        assert rows[1].select_one(".list-price").get_text() == typed
        assert page.select_one(".below-list") is not None
