"""Template contexts and form reading for the customer pages."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlencode

from pydantic import ValidationError
from sqlmodel import Session

from app.customers import service
from app.customers.models import Customer, CustomerCreate, CustomerUpdate
from app.i18n import N_, gettext
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


#: Customers a page of the list shows.
PER_PAGE: Final = 50


def list_context(*, session: Session, q: str, page: str | None) -> dict[str, Any]:
    """The customer list's page `page` (1 when it is not a page number; the last when past
    it), with its count and the links either side. The list stopped at 500 without saying
    so: a customer after it was only found by searching."""
    total = service.count_customers(session=session, search=q)
    pages = max(1, math.ceil(total / PER_PAGE))
    wanted = int(page) if page and page.isascii() and page.isdigit() else 1
    current = min(max(1, wanted), pages)

    def url(n: int) -> str:
        return "/customers?" + urlencode({**({"q": q} if q else {}), "page": n})

    return {
        "customers": service.list_customers(
            session=session, search=q, limit=PER_PAGE, offset=(current - 1) * PER_PAGE
        ),
        "q": q,
        "total": total,
        "page": current,
        "pages": pages,
        "prev_url": url(current - 1) if current > 1 else None,
        "next_url": url(current + 1) if current < pages else None,
    }


def _data(values: Mapping[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {k: values.get(k, "") for k in FIELDS}
    for key in ("language", "currency"):  # a form without the select takes the default
        if not data[key]:
            data[key] = EMPTY[key]
    # The checkbox posts "on" or nothing; anything else (a crafted "-1", "NaN") is left
    # for the model to refuse as not yes or no, not read silently as "not export" (QA).
    box = values.get("export")
    data["export"] = (
        True
        if box in ("on", "true", "1")
        else False
        if box in (None, "", "off", "false", "0")
        else box
    )
    return data


def create_from_form(values: Mapping[str, str]) -> CustomerCreate:
    return CustomerCreate.model_validate(_data(values))


def update_from_form(values: Mapping[str, str], version: int) -> CustomerUpdate:
    """The edit form's change, based on `version` (the form's hidden field)."""
    return CustomerUpdate.model_validate({**_data(values), "version": version})


def values_of(customer: Customer) -> dict[str, str]:
    out = {k: str(getattr(customer, k) or "") for k in FIELDS}
    out["export"] = "on" if customer.export else ""
    out["version"] = str(customer.version)
    return out


#: The form's labels, for a conflict's "saved meanwhile" list (the template's own msgids).
LABELS: Final = {
    "name": N_("Company name"),
    "tax_id": N_("Tax ID (統一編號)"),
    "contact": N_("Contact person"),
    "email": N_("E-mail"),
    "address": N_("Address"),
    "language": N_("Language of documents"),
    "currency": N_("Currency"),
    "export": N_("Export customer (%(rate)s business tax)"),
}


@dataclass(frozen=True, slots=True)
class Merged:
    """A stale customer form merged with what was saved meanwhile (`merge_stale`)."""

    values: dict[str, str]  # the form to show again
    rows: list[tuple[str, str, bool]]  # (label, value saved meanwhile, the form kept yours)


def _posted(values: Mapping[str, str], key: str, prefix: str = "") -> str | None:
    raw = values.get(prefix + key)
    if key == "export":
        return None if prefix and raw is None else ("on" if raw else "")
    return None if raw is None else raw.strip()


def merge_stale(customer: Customer, values: Mapping[str, str]) -> Merged:
    """The form again after a colleague saved the customer while it was open.

    The form carries each field as it was loaded (`was-<field>`). A field the colleague
    changed and the user did not takes the saved value (saving again must not undo the
    colleague's edit); a field both changed keeps the user's input, with the colleague's
    value beside it; everything else stays as typed. `rows` lists the colleague's changes."""
    now = values_of(customer)
    merged = dict(values)
    rows: list[tuple[str, str, bool]] = []
    for key, label in LABELS.items():
        mine, was = _posted(values, key), _posted(values, key, "was-")
        if mine is None:
            mine = ""
        changed_by_them = now[key] != was if was is not None else now[key] != mine
        if not changed_by_them:
            continue
        kept_mine = was is None or mine != was
        if not kept_mine:
            merged[key] = now[key]
        text = gettext(label) % {"rate": "0%"} if key == "export" else gettext(label)
        shown = (gettext("yes") if now[key] else gettext("no")) if key == "export" else now[key]
        rows.append((text, shown or "—", kept_mine and mine != now[key]))
    merged["version"] = now["version"]
    merged.update({f"was-{k}": now[k] for k in LABELS})
    return Merged(merged, rows)


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
    same_tax_id: list[Customer] = []
    same_tax_id_count = 0
    same_name: list[Customer] = []
    if customer is not None and session is not None:
        assert customer.id is not None
        plans = plans_service.list_plans(session=session, customer_id=customer.id).items
        same_tax_id = service.sharing_tax_id(session=session, customer=customer)
        same_tax_id_count = service.sharing_tax_id_count(session=session, customer=customer)
        same_name = service.sharing_name(session=session, customer=customer)
    return {
        "nav_active": "customers",
        "customer": customer,
        "values": values,
        "errors": errors,
        "language_choices": LANGUAGE_NAMES,
        "currency_choices": CURRENCY_NAMES,
        "plans": plans,
        "same_tax_id": same_tax_id,
        "same_tax_id_count": same_tax_id_count,
        "same_name": same_name,
    }
