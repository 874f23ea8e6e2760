"""A purchase or an hourly option quoted as a line takes no months.

QA: the builder's 月 box of a "Buy · 4 × H100" line said 一次性 (one-off), but a 12 typed
there made the line NT$5,426,381 × 1 × 12 = NT$65,116,572; through the API an AWS p5.4xlarge
line with months 12 was 12 × NT$220 = NT$2,640. A line of one's own already refused months
on a one-off or hourly line; an option's line now does too, beside the field, and nothing is
saved.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.accounts.helpers import make_account
from tests.plan_quotes import WORKLOAD

BUY = "buy:h100-4gpu-nvlink-server"


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"option_key": BUY, "quantity": 1, "months": 12}, "has no months"),
        ({"option_key": "rent_hourly:stratagem-tpe-h100-x4", "quantity": 100, "months": 12},
         "put every hour in the quantity"),
    ],
    ids=["buy", "hourly"],
)  # fmt: skip
def test_months_on_a_one_off_or_hourly_option_line_are_refused(
    client: TestClient, line: dict[str, object], said: str
) -> None:
    who = make_account(client, "sales")
    body = {"name": "Months", "workload": WORKLOAD, "quote": {"lines": [line]}}
    r = client.post("/api/v1/plans", json=body, headers=who.headers)
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["loc"] == ["body", "quote", "lines", 0, "months"]
    assert said in detail["msg"]


def test_a_purchase_line_is_its_upfront_price_once(client: TestClient) -> None:
    who = make_account(client, "sales")
    body = {"name": "Buy once", "workload": WORKLOAD,
            "quote": {"lines": [{"option_key": BUY, "quantity": 1}]}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body, headers=who.headers)
    assert r.status_code == 201, r.text
    plan = r.json()
    upfront = next(o for o in plan["result"]["cost"]["options"] if o["key"] == BUY)["upfront"]
    # One server's up-front price (servers, installation, network and storage), once.
    assert plan["quote_totals"]["subtotal"] == str(round(upfront))
