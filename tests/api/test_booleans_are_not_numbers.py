"""A JSON `true` or `false` given to a numeric field is refused in every input model, not
read as 1 or 0 (app/engine/strict_numbers.py). Non-negotiable 4: a wrong value gets a 422
naming the field."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ValidationError

from app.catalog import models as catalog
from app.costs.service import CostRequest
from app.customers.models import CustomerCreate
from app.engine.schemas import EstimateRequest, ModelInput, SloIn
from app.engine.strict_numbers import NumbersNotBooleans, is_numeric
from app.ids import DbId
from app.leads.models import LeadCreate
from app.plans.models import PlanCreate, PlanUpdate, RepriceIn
from app.plans.schedule import PhaseIn, ScheduleIn
from app.quotes.export import PlanImport
from app.quotes.models import QuoteIn, QuoteLineIn
from app.sharing.models import ShareCreate

INPUTS: tuple[type[BaseModel], ...] = (
    EstimateRequest, ModelInput, SloIn, CostRequest, PhaseIn, ScheduleIn, QuoteIn, QuoteLineIn,
    PlanCreate, PlanUpdate, RepriceIn, PlanImport, CustomerCreate, LeadCreate, ShareCreate,
    catalog.PriceListCreate, catalog.PriceListUpdate, catalog.GpuCreate, catalog.GpuPriceCreate,
    catalog.ServerSkuCreate, catalog.RentalOfferCreate, catalog.CloudInstanceCreate,
    catalog.EnergyPriceCreate, catalog.BuyParametersCreate, catalog.FxRateCreate,
)  # fmt: skip


def test_what_counts_as_a_number() -> None:
    assert is_numeric(int) and is_numeric(float) and is_numeric(Decimal)
    assert is_numeric(float | None) and is_numeric(Literal[0, 1, 2, 3])
    assert not is_numeric(bool) and not is_numeric(bool | None) and not is_numeric(str)
    assert not is_numeric(Literal["none", "full"]) and not is_numeric(list[float])
    # QA: `customer_id: DbId | None` took `true` as customer 1 (an Annotated int in a union)
    assert is_numeric(DbId) and is_numeric(DbId | None)


def _schema_says_number(prop: dict[str, Any]) -> bool:
    kinds = [prop, *prop.get("anyOf", [])]
    return any(k.get("type") in ("integer", "number") for k in kinds)


@pytest.mark.parametrize("model", INPUTS, ids=lambda m: m.__name__)
def test_every_field_the_schema_calls_a_number_is_checked(model: type[BaseModel]) -> None:
    """Read from the published JSON schema, not from `is_numeric` itself: a field the API
    documents as a number that the mixin does not see would take `true` as 1."""
    props = model.model_json_schema()["properties"]
    missed = [
        name
        for name, prop in props.items()
        if _schema_says_number(prop) and not is_numeric(model.model_fields[name].annotation)
    ]
    assert missed == []


def test_a_map_of_numbers_refuses_booleans_as_values() -> None:
    with pytest.raises(ValidationError) as e:
        catalog.RentalOfferCreate.model_validate({"term_discounts": {"12": False}})
    (err,) = [x for x in e.value.errors() if x["loc"] == ("term_discounts",)]
    assert err["type"] == "number_type" and "(at 12)" in err["msg"]


@pytest.mark.parametrize("model", INPUTS, ids=lambda m: m.__name__)
def test_every_numeric_field_refuses_a_boolean(model: type[BaseModel]) -> None:
    assert issubclass(model, NumbersNotBooleans)
    numeric = [n for n, f in model.model_fields.items() if is_numeric(f.annotation)]
    for name in numeric:
        with pytest.raises(ValidationError) as e:
            model.model_validate({name: True})
        mine = [err for err in e.value.errors() if err["loc"] == (name,)]
        assert mine and mine[0]["type"] == "number_type", (name, e.value.errors())
