"""Template contexts and form reading for the customer pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pydantic import ValidationError
from sqlmodel import Session

from app.customers.models import Customer, CustomerCreate, CustomerUpdate
from app.i18n import N_
from app.plans import service as plans_service
from app.web.forms import validation_messages

FIELDS: Final = ("name", "tax_id", "contact", "email", "address", "language", "currency")
EMPTY: Final[Mapping[str, str]] = {
    "name": "",
    "tax_id": "",
    "contact": "",
    "email": "",
    "address": "",
    "language": "zh-TW",
    "currency": "TWD",
    "export": "",
}
LANGUAGE_NAMES: Final = (("zh-TW", "中文"), ("en", "English"))
CURRENCY_NAMES: Final = (("TWD", N_("New Taiwan dollar (NT$)")), ("USD", N_("US dollar (US$)")))


def _data(values: Mapping[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {k: values.get(k, "") for k in FIELDS}
    for key in ("language", "currency"):  # a form without the select takes the default
        if not data[key]:
            data[key] = EMPTY[key]
    data["export"] = values.get("export") in ("on", "true", "1")
    return data


def create_from_form(values: Mapping[str, str]) -> CustomerCreate:
    return CustomerCreate.model_validate(_data(values))


def update_from_form(values: Mapping[str, str]) -> CustomerUpdate:
    return CustomerUpdate.model_validate(_data(values))


def values_of(customer: Customer) -> dict[str, str]:
    out = {k: str(getattr(customer, k) or "") for k in FIELDS}
    out["export"] = "on" if customer.export else ""
    return out


def errors_of(e: ValidationError) -> dict[str, str]:
    return validation_messages(e)


def form_context(
    *,
    customer: Customer | None,
    values: Mapping[str, str],
    errors: Mapping[str, str],
    session: Session | None = None,
) -> dict[str, Any]:
    plans: list[Any] = []
    if customer is not None and session is not None:
        assert customer.id is not None
        plans = plans_service.list_plans(session=session, customer_id=customer.id).items
    return {
        "nav_active": "customers",
        "customer": customer,
        "values": values,
        "errors": errors,
        "language_choices": LANGUAGE_NAMES,
        "currency_choices": CURRENCY_NAMES,
        "plans": plans,
    }
