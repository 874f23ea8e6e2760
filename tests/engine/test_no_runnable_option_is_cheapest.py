"""An option that cannot run the workload is never called the cheapest.

QA: the planner with Llama 3.1 70B QLoRA on RTX 4090 marked every cost option 「無法執行」,
yet tagged RunPod's hourly row (4 × 1-GPU machines, NT$88.32/h × 15,768 h = NT$1,392,630)
「時租 最便宜」 and the explanations said 「最便宜的方案 NT$1,392,630」. When nothing can run
the plan, `cost.cheapest` is null, a warning says so and what would make it runnable, and
no "Cheapest option" figure is explained. The shipped price list (app/data/catalog.yaml,
`servers`) prices no RTX 4090, L40S or RTX 6000 Ada server: that is said too.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

QLORA_4090 = {"model": {"preset": "llama-3.1-70b"}, "task": "qlora", "gpu": "rtx-4090-24gb",
              "utilization": 0.6, "rent_months": 36, "pricing_mode": "capacity"}  # fmt: skip
NO_PURCHASE = "No purchase price in the price list for a server with this GPU"


def _answer(client: TestClient, workload: dict[str, Any]) -> dict[str, Any]:
    r = client.post("/api/v1/estimate", json=workload)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_when_no_option_can_run_the_plan_none_is_the_cheapest(client: TestClient) -> None:
    answer = _answer(client, QLORA_4090)
    cost = answer["cost"]
    assert cost["options"] and all(o["feasible"] is False for o in cost["options"])
    assert cost["cheapest"] is None
    # RunPod hourly: NT$88.32/h (4 × US$0.69 × 32 TWD/USD) × 15,768 h = 1,392,629.76 → its
    # total is still priced and shown, for comparison, with its note saying why it cannot run.
    hourly = next(o for o in cost["options"] if o["kind"] == "rent_hourly")
    assert hourly["total"] == 1392630 and hourly["note"]
    assert not any(e["figure"] == "Cheapest option" for e in answer["explain"])
    assert any("none is named the cheapest" in w for w in answer["warnings"])


@pytest.mark.parametrize("gpu", ["rtx-4090-24gb", "l40s-48gb", "rtx-6000-ada-48gb"])
def test_a_gpu_without_a_purchase_price_says_buying_is_not_compared(
    client: TestClient, gpu: str
) -> None:
    answer = _answer(client, {**QLORA_4090, "gpu": gpu})
    assert not any(o["kind"] == "buy" for o in answer["cost"]["options"])
    assert any(NO_PURCHASE in w for w in answer["warnings"])


def test_a_runnable_plan_still_names_its_cheapest_option(client: TestClient) -> None:
    answer = _answer(client, {**QLORA_4090, "gpu": "h100-sxm-80gb"})
    cost = answer["cost"]
    named = next(o for o in cost["options"] if o["key"] == cost["cheapest"])
    assert named["feasible"] is True
    assert named["total"] == min(o["total"] for o in cost["options"] if o["feasible"]
                                 and o["economical"])  # fmt: skip
    assert not any(NO_PURCHASE in w for w in answer["warnings"])
    assert any(e["figure"] == "Cheapest option" for e in answer["explain"])
