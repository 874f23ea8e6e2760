"""For any value a request field accepts, the engine answers with finite figures (issue 13).

The strategies are built from the request models' own bounds (`ge`/`gt`/`le` in
app/engine/schemas.py and app/costs/service.py), so a bound loosened there is fuzzed here.
An input the engine refuses must be an `InputError` (a 422 naming the field); any other
exception, or a NaN/infinite/negative number anywhere in the answer, fails the test.
"""

from __future__ import annotations

import math
from typing import Any

import annotated_types as at
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from app.catalog.shipped import shipped_price_book
from app.costs.service import CostRequest, compare
from app.engine.architectures import list_presets
from app.engine.estimate import InputError, estimate
from app.engine.schemas import EstimateRequest, ModelInput

PRICES = shipped_price_book()


def bounds(model: type[BaseModel], name: str) -> tuple[float, float]:
    """(lowest, highest) value field `name` of `model` accepts, from its metadata."""
    low, high = -math.inf, math.inf
    for m in model.model_fields[name].metadata:
        if isinstance(m, at.Ge):
            low = float(m.ge)  # type: ignore[arg-type]
        elif isinstance(m, at.Gt):
            low = math.nextafter(float(m.gt), math.inf)  # type: ignore[arg-type]
        elif isinstance(m, at.Le):
            high = float(m.le)  # type: ignore[arg-type]
    assert math.isfinite(low) and math.isfinite(high), f"{model.__name__}.{name} is unbounded"
    return low, high


def number(model: type[BaseModel], name: str, *, integer: bool) -> st.SearchStrategy[Any]:
    """Values at both ends of the field's range and anywhere between."""
    low, high = bounds(model, name)
    if integer:
        lo, hi = math.ceil(low), math.floor(high)
        return st.one_of(st.sampled_from([lo, hi]), st.integers(lo, hi))
    return st.one_of(
        st.sampled_from([low, high]),
        st.floats(low, high, allow_nan=False, allow_infinity=False),
    )


def walk_numbers(value: Any, path: str = "") -> list[tuple[str, float]]:
    """Every number in a JSON-like answer with its path."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [(path, float(value))]
    if isinstance(value, dict):
        return [n for k, v in value.items() for n in walk_numbers(v, f"{path}.{k}")]
    if isinstance(value, (list, tuple)):
        return [n for i, v in enumerate(value) for n in walk_numbers(v, f"{path}[{i}]")]
    return []


def assert_finite(answer: dict[str, Any]) -> None:
    for path, x in walk_numbers(answer):
        assert math.isfinite(x), f"{path} = {x}"


ESTIMATE_NUMBERS = {
    name: number(EstimateRequest, name, integer=f.annotation in (int, int | None))
    for name, f in EstimateRequest.model_fields.items()
    if any(isinstance(m, (at.Ge, at.Gt, at.Le)) for m in f.metadata)
}
PRESETS = [p.id for p in list_presets()]


@st.composite
def estimate_requests(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        model: dict[str, Any] = {"preset": draw(st.sampled_from(PRESETS))}
    else:
        model = {"params_b": draw(number(ModelInput, "params_b", integer=False))}
    body: dict[str, Any] = {
        "model": model,
        "task": draw(st.sampled_from(["pretrain", "full_finetune", "lora", "qlora", "inference"])),
        "precision": draw(st.sampled_from(["bf16", "fp16", "fp8", "int8", "int4"])),
    }
    # A random subset of the numeric fields, each anywhere in its accepted range.
    for name in draw(st.sets(st.sampled_from(sorted(ESTIMATE_NUMBERS)), max_size=8)):
        body[name] = draw(ESTIMATE_NUMBERS[name])
    return body


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(estimate_requests())
def test_any_accepted_estimate_gives_finite_figures(body: dict[str, Any]) -> None:
    try:
        req = EstimateRequest.model_validate(body)
    except ValidationError:
        return  # a cross-field rule said no: a 422, which is fine
    try:
        answer = estimate(req, prices=PRICES).model_dump(mode="json")
    except InputError:
        return  # the engine said no, naming the field: a 422
    assert_finite(answer)
    memory = answer["memory_gb"]
    assert memory["total"] > 0 and memory["per_gpu"] > 0
    assert answer["gpu"]["count"] >= 1
    if answer["training"]:
        assert answer["training"]["days"] >= 0 and answer["training"]["gpu_hours"] >= 0


COST_NUMBERS = {
    name: number(CostRequest, name, integer=f.annotation in (int, int | None))
    for name, f in CostRequest.model_fields.items()
    if any(isinstance(m, (at.Ge, at.Gt, at.Le)) for m in f.metadata)
}


@settings(max_examples=100, deadline=None)
@given(st.fixed_dictionaries({}, optional=COST_NUMBERS))
def test_any_accepted_cost_request_gives_finite_figures(body: dict[str, Any]) -> None:
    try:
        req = CostRequest.model_validate(body)
    except ValidationError:
        return
    try:
        answer = compare(req, prices=PRICES)
    except InputError:
        return
    assert_finite(answer)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("name", sorted({*ESTIMATE_NUMBERS} - {"images"}))
def test_non_finite_numbers_are_refused(name: str, value: float) -> None:
    """NaN and ±Infinity in any number field are a validation error naming that field."""
    with pytest.raises(ValidationError) as e:
        EstimateRequest.model_validate(
            {"model": {"preset": "llama-3.1-8b"}, "task": "lora", name: value}
        )
    assert any(err["loc"] == (name,) for err in e.value.errors())
