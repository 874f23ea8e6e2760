"""A customer's document lists the seller's own ways to pay; other providers' prices — public
cloud and GPU marketplaces — only when the quote switches the comparison on.

QA: every single-GPU quote listed RunPod's H100 at NT$96/h (US$2.99 at 32 NT$/US$, the
shipped list's marketplace reference) beside the seller's own NT$120/h (seed 003 T8), with
the comparison off: the filter hid only the cloud kinds, and a marketplace rents by the hour
and the month like the seller. The seller is the price list's own provider
(`PriceBook.house_provider`: the provider with the most offers in the list's home currency —
Stratagem Taipei's six TWD offers in the shipped list, against RunPod's and Lambda's USD
reference rates).
"""

from __future__ import annotations

from datetime import date

import pytest
from fastapi.testclient import TestClient

from app.catalog.shipped import shipped_price_book
from app.engine.price_book import PriceBook, RentalOffer
from tests.accounts.helpers import make_account
from tests.quotes.test_quote_fixes import _flat, _html
from tests.quotes.test_quote_life import _customer, _share

# One H100 for a day of LoRA: the seller's 1-GPU server and RunPod's 1-GPU pod both run it.
WORKLOAD = {
    "model": {"preset": "llama-3.1-8b"},
    "task": "lora",
    "dataset_gb": 1,
    "gpu": "h100-sxm-80gb",
}
OTHERS = ("RunPod", "AWS", "Lambda")


def _single_gpu_plan(client: TestClient, *, compare: bool, lang: str) -> tuple[int, object]:
    a = make_account(client, "sales")
    c = _customer(client, a, language=lang)
    quote = {"lines": [{"option_key": "rent_hourly:stratagem-tpe-h100-x1"}],
             "include_cloud_comparison": compare}  # fmt: skip
    body = {"name": "LoRA", "workload": WORKLOAD, "customer_id": c["id"], "quote": quote}
    r = client.post("/api/v1/plans", json=body, headers=a.headers)
    assert r.status_code == 201, r.text
    plan = r.json()
    providers = {o["provider"] for o in plan["result"]["cost"]["options"]}
    assert {"Stratagem Taipei", "RunPod"} <= providers  # both priced for the seller
    return plan["id"], a


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_with_the_comparison_off_the_document_names_only_the_seller(
    client: TestClient, lang: str
) -> None:
    plan_id, a = _single_gpu_plan(client, compare=False, lang=lang)
    text = _flat(_html(client, plan_id, lang))
    assert "Stratagem Taipei" in text
    assert not [o for o in OTHERS if o in text], text[:400]
    page = client.get(_share(client, a, plan_id), headers={"Accept-Language": lang})  # type: ignore[arg-type]
    assert page.status_code == 200
    assert not [o for o in OTHERS if o in page.text]


def test_with_the_comparison_on_the_marketplace_and_cloud_are_listed(client: TestClient) -> None:
    plan_id, _a = _single_gpu_plan(client, compare=True, lang="en")
    text = _flat(_html(client, plan_id, "en"))
    assert "Hourly rent · 1 × NVIDIA H100 SXM5 80GB · RunPod" in text
    assert "AWS" in text


def test_the_house_provider_is_the_one_with_most_offers_in_the_home_currency() -> None:
    assert shipped_price_book().house_provider == "Stratagem Taipei"

    def offer(provider: str, currency: str, n: int) -> RentalOffer:
        return RentalOffer(
            id=f"{provider}-{n}", provider=provider, gpu_id="h100-sxm-80gb", gpu_count=1,
            monthly_price=1.0, hourly_price=None, currency=currency,
        )  # fmt: skip

    def book(*offers: RentalOffer) -> PriceBook:
        return PriceBook(name="t", effective_date=date(2026, 1, 1), currency="TWD", offers=offers)

    # three USD offers do not make a provider the seller of a TWD list
    many_usd = book(offer("B", "TWD", 1), *(offer("M", "USD", i) for i in range(3)))
    assert many_usd.house_provider == "B"
    assert book(offer("B", "TWD", 1), offer("A", "TWD", 1)).house_provider == "A"  # a tie: by name
    assert book(offer("M", "USD", 1)).house_provider == ""
