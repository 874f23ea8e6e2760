"""A quote read with GET can be sent back with PUT as it is (QA: a 422 on every line's
`kind` and `list_price` and on the quote's `currency` and `issued`). The read-only fields
are taken and ignored, except a currency other than the customer's: refused, since the
quote would be priced in the customer's currency without a word."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.quotes.test_quote_life import _customer, _plan, _quote


def test_the_quote_read_back_saves_unchanged(client: TestClient) -> None:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("5"))
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    assert {"kind", "list_price"} <= set(got["quote"]["lines"][0])
    assert {"currency", "issued"} <= set(got["quote"])
    body = {"version": got["version"], "quote": got["quote"]}
    r = client.put(f"/api/v1/plans/{p['id']}", json=body, headers=a.headers)
    assert r.status_code == 200, r.text
    assert r.json()["quote"]["lines"] == got["quote"]["lines"]
    assert r.json()["quote_totals"] == got["quote_totals"]
    # Nothing changed, so no revision was written.
    assert r.json()["version"] == got["version"]


def test_read_only_fields_are_ignored_not_obeyed(client: TestClient) -> None:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    quote = got["quote"]
    quote["lines"][0] = {**quote["lines"][0], "kind": "buy", "list_price": "1"}
    quote["issued"] = "2020-01-01"
    r = client.put(
        f"/api/v1/plans/{p['id']}", json={"version": got["version"], "quote": quote},
        headers=a.headers,
    )  # fmt: skip
    assert r.status_code == 200, r.text
    line = r.json()["quote"]["lines"][0]
    # Seed 003 T8: the 4 × H100 6-month term rent is NT$180,000 a month, its list price.
    assert (line["kind"], line["list_price"]) == ("rent_term", "180000")
    assert r.json()["quote"]["issued"] != "2020-01-01"


def test_a_currency_other_than_the_customers_is_refused(client: TestClient) -> None:
    a = make_account(client, "sales")
    p = _plan(client, a, _customer(client, a)["id"], _quote("0"))  # a TWD customer
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    quote = {**got["quote"], "currency": "USD"}
    r = client.put(
        f"/api/v1/plans/{p['id']}", json={"version": got["version"], "quote": quote},
        headers={**a.headers, "Accept-Language": "en"},
    )  # fmt: skip
    assert r.status_code == 422
    (err,) = r.json()["detail"]
    assert err["loc"] == ["body", "quote", "currency"]
    assert err["msg"].startswith("is read-only: a quote is in its customer's currency")


def test_moving_a_read_back_quote_to_a_usd_customer_prices_it_in_usd(
    client: TestClient,
) -> None:
    a = make_account(client, "sales")
    # Its option line only: a free line's typed NT$ price is refused on a move to US$
    # (it cannot be converted without guessing; app.plans.service._carry_to_customer).
    only_option = {"lines": _quote("0")["lines"][:1]}
    p = _plan(client, a, _customer(client, a)["id"], only_option)
    usd = _customer(client, a, name="Acme AI Inc.", tax_id="", currency="USD", export=True,
                    language="en")  # fmt: skip
    got = client.get(f"/api/v1/plans/{p['id']}", headers=a.headers).json()
    body = {"version": got["version"], "quote": got["quote"], "customer_id": usd["id"]}
    r = client.put(f"/api/v1/plans/{p['id']}", json=body, headers=a.headers)
    assert r.status_code == 200, r.text
    assert r.json()["quote"]["currency"] == "USD"
