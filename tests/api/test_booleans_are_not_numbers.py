"""A JSON `true` or `false` given to a numeric field is refused in every input model, not
read as 1 or 0 (app/engine/strict_numbers.py). Non-negotiable 4: a wrong value gets a 422
naming the field."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

import pytest
from pydantic import BaseModel, ValidationError

from app.catalog import models as catalog
from app.costs.service import CostRequest
from app.customers.models import CustomerCreate
from app.engine.schemas import EstimateRequest, ModelInput, SloIn
from app.engine.strict_numbers import NumbersNotBooleans, is_numeric
from app.leads.models import LeadCreate
from app.plans.models import PlanCreate, PlanUpdate, RepriceIn
from app.plans.schedule import PhaseIn, ScheduleIn
from app.quotes.models import QuoteIn, QuoteLineIn
from app.sharing.models import ShareCreate

INPUTS: tuple[type[BaseModel], ...] = (
    EstimateRequest, ModelInput, SloIn, CostRequest, PhaseIn, ScheduleIn, QuoteIn, QuoteLineIn,
    PlanCreate, PlanUpdate, RepriceIn, CustomerCreate, LeadCreate, ShareCreate,
    catalog.PriceListCreate, catalog.PriceListUpdate, catalog.GpuCreate, catalog.GpuPriceCreate,
    catalog.ServerSkuCreate, catalog.RentalOfferCreate, catalog.CloudInstanceCreate,
    catalog.EnergyPriceCreate, catalog.BuyParametersCreate, catalog.FxRateCreate,
)  # fmt: skip


def test_what_counts_as_a_number() -> None:
    assert is_numeric(int) and is_numeric(float) and is_numeric(Decimal)
    assert is_numeric(float | None) and is_numeric(Literal[0, 1, 2, 3])
    assert not is_numeric(bool) and not is_numeric(bool | None) and not is_numeric(str)
    assert not is_numeric(Literal["none", "full"]) and not is_numeric(list[float])


@pytest.mark.parametrize("model", INPUTS, ids=lambda m: m.__name__)
def test_every_numeric_field_refuses_a_boolean(model: type[BaseModel]) -> None:
    assert issubclass(model, NumbersNotBooleans)
    numeric = [n for n, f in model.model_fields.items() if is_numeric(f.annotation)]
    for name in numeric:
        with pytest.raises(ValidationError) as e:
            model.model_validate({name: True})
        mine = [err for err in e.value.errors() if err["loc"] == (name,)]
        assert mine and mine[0]["type"] == "number_type", (name, e.value.errors())
