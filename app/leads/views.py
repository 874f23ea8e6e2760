"""What the lead pages show: the 'request a quote' form parsed, statuses and answers labelled."""

from __future__ import annotations

from typing import Any, Final

from pydantic import ValidationError

from app.i18n import N_
from app.i18n import gettext as _
from app.leads.models import Lead, LeadCreate
from app.planner import views as planner
from app.web.forms import validation_messages

STATUS_NAMES: Final = {
    "new": N_("New request"),
    "contacted": N_("Contacted"),
    "converted": N_("Converted"),
    "closed": N_("Closed"),
}
ANSWER_NAMES: Final = {
    "task": N_("Task"),
    "size": N_("Model size (billions)"),
    "size_other": N_("Other size (billions)"),
    "data": N_("Training data (GB)"),
    "deadline": N_("Deadline (days)"),
    "users": N_("Concurrent users"),
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
        if key == "task":
            value = _(planner.TASK_NAMES.get(value, value))
        elif value == "none":
            value = _("No deadline")
        elif value == "other":
            value = _("Other")
        rows.append((_(label), value))
    return rows
