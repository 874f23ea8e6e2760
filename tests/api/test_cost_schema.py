"""The OpenAPI document says what the cost block holds, with units, and says it truly.

QA (a CRM integrator): `EstimateResponse.cost` and the 200 answer of `POST /api/v1/costs`
were `{"type": "object", "additionalProperties": true}`: `options[].monthly_rate`, `billed`,
`total`, their currency and units were nowhere in /openapi.json. They are now described
(app.engine.cost_schema). Real answers over a grid (training, serving, image; TWD and US$;
a purchase, the cloud, a MIG slice) validate against the description, and every field an
answer carries is described — so the document cannot drift from the data.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from app.engine.cost_schema import (
    BilledDoc,
    ComparisonDoc,
    CostOptionDoc,
    CostsAnswerDoc,
    EstimateCostDoc,
    PriceListDoc,
)

ESTIMATES = [
    {"model": {"preset": "llama-3.1-8b"}, "task": "lora", "tokens": 1e8},
    {"model": {"preset": "llama-3.1-70b"}, "task": "inference", "users": 200,
     "slo": {"ttft_s": 1, "tokens_per_s_per_user": 20}, "rent_months": 36},
    {"model": {"preset": "llama-3.1-8b"}, "task": "inference", "users": 5,
     "gpu": "h100-sxm-80gb", "slo": {"tokens_per_s_per_user": 10}},
    {"model": {"preset": "sdxl"}, "task": "image", "images_per_hour": 500, "currency": "USD"},
    {"model": {"preset": "llama-2-7b"}, "task": "pretrain", "tokens": 1e11},
]  # fmt: skip
COSTS = [
    {"gpu": "h100-sxm-80gb", "gpu_count": 8, "months": 36, "utilization": 0.8},
    {"gpu": "h100-sxm-80gb", "gpu_count": 0.25, "months": 6, "currency": "USD"},
]


def _undescribed(model: type[BaseModel], data: dict[str, Any], where: str) -> list[str]:
    return [f"{where}.{k}" for k in data if k not in model.model_fields]


def _check(block: dict[str, Any], model: type[BaseModel]) -> list[str]:
    model.model_validate(block, strict=True)
    missing = _undescribed(model, block, "cost")
    views = [("cost", block)]
    if "tco_options" in block:
        missing += _undescribed(ComparisonDoc, block["tco_options"], "cost.tco_options")
        views.append(("cost.tco_options", block["tco_options"]))
    for where, view in views:
        for o in view["options"]:
            missing += _undescribed(CostOptionDoc, o, f"{where}.options[]")
            if o["billed"] is not None:
                missing += _undescribed(BilledDoc, o["billed"], f"{where}.options[].billed")
    if "price_list" in block:
        missing += _undescribed(PriceListDoc, block["price_list"], "cost.price_list")
    return missing


@pytest.mark.parametrize("body", ESTIMATES, ids=lambda b: f"{b['task']}-{b['model']['preset']}")
def test_an_estimates_cost_block_is_what_the_schema_describes(
    client: TestClient, body: dict[str, Any]
) -> None:
    r = client.post("/api/v1/estimate", json=body)
    assert r.status_code == 200, r.text
    cost = r.json()["cost"]
    assert cost is not None and cost["options"]
    assert _check(cost, EstimateCostDoc) == []


@pytest.mark.parametrize("body", COSTS, ids=["8-gpus-36-months", "mig-slice-usd"])
def test_the_costs_answer_is_what_the_schema_describes(
    client: TestClient, body: dict[str, Any]
) -> None:
    r = client.post("/api/v1/costs", json=body)
    assert r.status_code == 200, r.text
    assert _check(r.json(), CostsAnswerDoc) == []


def test_openapi_describes_the_options_with_their_units(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    estimate_cost = doc["components"]["schemas"]["EstimateResponse"]["properties"]["cost"]
    block = next(s for s in estimate_cost["anyOf"] if s.get("type") == "object")
    costs_answer = doc["paths"]["/api/v1/costs"]["post"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"]
    for schema in (block, costs_answer):
        option = schema["properties"]["options"]["items"]["properties"]
        assert "Per month" in option["monthly_rate"]["description"]
        assert "excl. tax" in option["total"]["description"]
        assert set(option["billed"]["anyOf"][0]["properties"]) == {
            "unit", "quantity", "gpus", "nodes"
        }  # fmt: skip
        assert option["kind"]["enum"] == [
            "rent_hourly", "rent_monthly", "rent_term", "mig", "buy", "cloud", "cloud_reserved"
        ]  # fmt: skip
        # Inlined: no reference into a `$defs` the OpenAPI document does not have.
        assert "$ref" not in str(schema)


@pytest.mark.parametrize(
    "name",
    ["TrainingOut", "InferenceOut", "ServingPointOut", "InfraOut", "NetworkOut", "MemoryGB",
     "MemoryTerms", "GpuOut", "ParallelismOut"],
)  # fmt: skip
def test_every_figure_of_an_estimate_says_what_it_is_and_its_unit(
    client: TestClient, name: str
) -> None:
    """QA: `tokens_per_s`, `cost_per_million_tokens` (which currency?), `cooling`, `network`
    and the memory terms had no description in /openapi.json."""
    schema = client.get("/openapi.json").json()["components"]["schemas"][name]
    bare = [k for k, v in schema["properties"].items() if not v.get("description")]
    assert bare == [], f"{name}: {bare}"
