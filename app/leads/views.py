"""What the lead pages show: the 'request a quote' form parsed, statuses and answers labelled."""

from __future__ import annotations

from typing import Any, Final

from pydantic import ValidationError

from app.assess import views as assessment
from app.i18n import N_
from app.i18n import gettext as _
from app.leads.models import Lead, LeadCreate
from app.planner import views as planner
from app.web.forms import validation_messages

ANSWER_NAMES: Final = {
    "task": N_("Task"),
    "size": N_("Model size (billions)"),
    "size_other": N_("Other size (billions)"),
    "data": N_("Training data"),
    "deadline": N_("Deadline"),
    "users": N_("Concurrent users"),
    # The currency the customer read the prices in (recorded since quote requests kept it):
    # the converted customer and plan are in it, so sales see it before converting.
    "currency": N_("Prices read in"),
}
_CURRENCY_NAMES: Final = {"TWD": N_("New Taiwan dollars (NT$)"), "USD": N_("US dollars (US$)")}
# The choices as the customer saw them: "100 GB–1 TB", not the band's stored top "1000"
# under "Training data (GB)" (QA read 1,000 GB where the customer picked 100 GB–1 TB).
_CHOICES: Final = {
    "size": assessment.SIZE_OPTIONS,
    "data": assessment.DATA_OPTIONS,
    "deadline": assessment.DEADLINE_OPTIONS,
    "users": assessment.USERS_OPTIONS,
}


def parse_lead(
    form: dict[str, str], *, lang: str, tier: str, answers: dict[str, Any]
) -> tuple[LeadCreate | None, dict[str, str]]:
    """The validated lead, or None and {field: translated message}."""
    try:
        data = LeadCreate(
            name=form.get("name", ""),
            company=form.get("company", ""),
            email=form.get("email", ""),
            notes=form.get("notes", ""),
            tax_id=form.get("tax_id", ""),
            lang=lang,
            tier=tier,
            answers=answers,
        )
    except ValidationError as exc:
        return None, validation_messages(exc)
    return data, {}


def answer_rows(lead: Lead) -> list[tuple[str, str]]:
    rows = []
    for key, label in ANSWER_NAMES.items():
        value = str(lead.answers.get(key) or "")
        if not value:
            continue
        choice = next((o for o in _CHOICES.get(key, ()) if o.value == value), None)
        if key == "task":
            value = _(planner.TASK_NAMES.get(value, value))
        elif key == "currency":
            value = _(_CURRENCY_NAMES.get(value, value))
        elif choice is not None:
            value = _(choice.label)
        rows.append((_(label), value))
    return rows
