"""The five-year charts rent on the contract the quote names.

QA: a bank's 36-month chat service was quoted "Term rent · 36-month contract" at
NT$560,000/month, while the same PDF's cumulative and TCO charts drew "Term rent · 12-month
contract" at the same NT$560,000: one document, two contracts. The five-year view now rents
on the plan's own contract when it is a year or longer (app.engine.plan_costs.
five_year_contract), and on 12 months otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.engine.costs.model import TCO_MONTHS

# 16 H100 of independent replicas as two 8-GPU machines (Stratagem Taipei, shipped list):
# 2 × NT$350,000 = NT$700,000/month list price.
SERVICE = {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "users": 200,
           "slo": {"ttft_s": 1, "tokens_per_s_per_user": 20}}  # fmt: skip
TERM = "rent_term:stratagem-tpe-h100-x8"


def _cost(client: TestClient, **extra: Any) -> dict[str, Any]:
    r = client.post("/api/v1/estimate", json={**SERVICE, **extra})
    assert r.status_code == 200, r.text
    return r.json()["cost"]


def _term(options: list[dict[str, Any]]) -> dict[str, Any]:
    return next(o for o in options if o["key"] == TERM)


@pytest.mark.parametrize(("months", "contract"), [(36, 36), (24, 24), (7, 12), (72, TCO_MONTHS)])
def test_the_five_year_view_rents_on_the_quoted_contract(
    client: TestClient, months: int, contract: int
) -> None:
    cost = _cost(client, rent_months=months)
    five_year = _term(cost["tco_options"]["options"])
    assert five_year["label"].startswith(f"{contract}-month contract — ")
    # Seed T8: the 12-month tier (−20 %) prices any contract of 12 months or more:
    # NT$700,000 × 0.8 = NT$560,000/month; the 7-month plan's own contract is the 6-month
    # tier (−10 %), NT$630,000, and the five-year view's is the year's.
    assert five_year["monthly_rate"] == pytest.approx(560_000)
    if months >= 12:
        assert _term(cost["options"])["monthly_rate"] == pytest.approx(560_000)
    else:
        assert _term(cost["options"])["monthly_rate"] == pytest.approx(630_000)


def test_a_named_contract_is_the_five_year_views_too(client: TestClient) -> None:
    cost = _cost(client, rent_months=36, term_months=6)
    assert _term(cost["tco_options"]["options"])["label"].startswith("6-month contract — ")
    assert _term(cost["options"])["label"].startswith("6-month contract — ")
