"""The phase builder on /plans/{id}: form values ⇄ phases, its actions, preview and save.

Phases are posted as ``phase-<i>-<field>`` inputs. "Add a workload phase", "add a capacity
line", "up", "down" and "remove" re-render the builder with the typed values and their
costs (nothing is saved); "save" validates and saves the phases as a new revision. Errors
are keyed by the input they belong to (``phase-1-months``) and name the field in the page's
language ("Months: must be at least 1."); one that has no input of its own (a workload
field the builder does not show) is keyed ``phase-<i>``.

A plan of one workload opens with that workload as phase 1: saving makes it a phased plan.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError
from sqlmodel import Session

from app import errors, i18n
from app.accounts.models import User
from app.catalog import service as catalog
from app.engine.price_book import PriceBook
from app.i18n import N_
from app.i18n import gettext as _
from app.planner import views as planner
from app.plans import presenters, schedule, service
from app.plans.models import Plan
from app.text import first_surrogate
from app.web.forms import message_for, parse_id, posted_version
from app.web.notices import form_message

KIND_FIELDS: Final = {
    "capacity": ("gpu", "gpu_count"),
    "workload": ("task", "preset", "dataset_gb", "epochs", "concurrency", "wgpu", "wgpu_count"),
}
COMMON: Final = ("kind", "label", "months", "option", "hours_per_month", "base")
FIELDS: Final = (*COMMON, *KIND_FIELDS["capacity"], *KIND_FIELDS["workload"])
LABELS: Final = {
    **schedule.PHASE_FIELDS,
    "task": N_("Task"),
    "preset": N_("Model"),
    "dataset_gb": N_("Dataset (GB)"),
    "epochs": N_("Epochs"),
    "concurrency": N_("Users served at once"),  # the planner's word for it (QA)
    "wgpu": N_("GPU"),
    "wgpu_count": N_("GPU count"),
}
# A workload field's input in the builder (the rest of the workload rides in `base`).
_WORKLOAD_INPUTS: Final = {
    "task": "task",
    "model": "preset",
    "dataset_gb": "dataset_gb",
    "epochs": "epochs",
    "concurrency": "concurrency",
    "gpu": "wgpu",
    "gpu_count": "wgpu_count",
}


def _num(value: Any) -> str:
    if value is None or value == "":
        return ""
    v = float(value)
    return f"{v:g}" if abs(v) < 1e15 else str(value)


def phase_values(p: Mapping[str, Any]) -> dict[str, str]:
    """One stored phase as the builder's strings."""
    kind = str(p.get("kind") or ("capacity" if "gpu" in p else "workload"))
    out = {f: "" for f in FIELDS}
    out.update(
        kind=kind,
        label=str(p.get("label") or ""),
        months=_num(p.get("months", 1)),
        option=str(p.get("option") or "cheapest"),
        hours_per_month=_num(p.get("hours_per_month", 730)),
    )
    if kind == "capacity":
        out.update(gpu=str(p.get("gpu") or ""), gpu_count=_num(p.get("gpu_count")))
        return out
    w = dict(p.get("workload") or {})
    model = w.get("model") or {}
    out.update(
        task=str(w.get("task") or ""),
        preset=str(model.get("preset") or ""),
        # 0 GB is the API's "not given" (the job counts `tokens`): blank, not "0 GB"
        dataset_gb=_num(w.get("dataset_gb") or None),
        epochs=_num(w.get("epochs")),
        # A phase made through the API may give `users`, which the engine takes over
        # `concurrency` (QA: the box read 1 for a phase sized on 200 users, and what was typed
        # in it changed nothing).
        concurrency=_num(w.get("users") or w.get("concurrency")),
        wgpu=str(w.get("gpu") or ""),
        wgpu_count=_num(w.get("gpu_count")),
        base=json.dumps(w, separators=(",", ":"), sort_keys=True),
    )
    return out


#: A quoted rental's kind as a phase's `option` (`schedule.OPTIONS`).
_BILLED_AS: Final = {"rent_hourly": "hourly", "rent_monthly": "monthly", "rent_term": "contract"}


def values_of(plan: Plan) -> list[dict[str, str]]:
    """The builder's phases from the saved plan.

    A plain plan opens as its workload in phase 1, so that saving it unchanged keeps what
    the plan says: rented for the months its job takes (at least one) or, for a service,
    the months its costs run; billed as its quote's rental if the quote names one (the
    quote's one contract line stays a contract of that length), else the cheapest way (QA:
    a 12-month service quoted on a 12-month contract opened as 1 month of the cheapest,
    and "Save phases" untouched re-quoted it as one month of monthly rent)."""
    phases = schedule.phases_of(plan.workload)
    if phases is not None:
        return [phase_values(p) for p in phases]
    result = plan.result or {}
    cost = result.get("cost") or {}
    days = (result.get("training") or {}).get("days")
    if days:
        months = max(1, math.ceil(float(days) / (365 / 12) - 1e-9))
    else:
        months = max(1, math.ceil(float(cost.get("months") or 1) - 1e-9))
    first = schedule.from_workload(plan.workload, months=months)
    kinds = {
        str(line["option_key"]).split(":", 1)[0]
        for line in (plan.quote or {}).get("lines") or []
        if line.get("option_key")
    }
    if len(kinds) == 1 and (kind := kinds.pop()) in _BILLED_AS:
        first["option"] = _BILLED_AS[kind]
        if kind == "rent_hourly" and cost.get("hours_per_month"):
            first["hours_per_month"] = cost["hours_per_month"]
    return [phase_values(first)]


def values_from_form(form: Mapping[str, str]) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The posted phases, and an error on `phases` when the phase count is not a count. Every
    posted phase is kept (a form holds no more phases than it has fields): past MAX_PHASES
    is `over_limit`'s error, never a cut to the first ones."""
    count = parse_id(form.get("phases"), minimum=0)
    errs: dict[str, str] = {}
    if count is None:
        errs["phases"] = _(
            "The phase count is missing or not a number: check the phases, then save."
        )
        indices = [i for i in range(len(form)) if any(f"phase-{i}-{f}" in form for f in FIELDS)]
    else:
        indices = list(range(min(count, len(form))))
    return [{f: form.get(f"phase-{i}-{f}", "").strip() for f in FIELDS} for i in indices], errs


def over_limit(values: Sequence[Mapping[str, str]]) -> dict[str, str]:
    """{"phases": message} past MAX_PHASES phases (the API's limit), else {}."""
    if len(values) <= schedule.MAX_PHASES:
        return {}
    return {"phases": _("At most %(n)s phases.") % {"n": schedule.MAX_PHASES}}


def new_phase(kind: str, after: Sequence[Mapping[str, str]]) -> dict[str, str]:
    """A new phase: a capacity line of the last phase's GPU (else H100 × 1), or a LoRA
    workload of the last workload's model."""
    last = dict(after[-1]) if after else {}
    out = {f: "" for f in FIELDS}
    out.update(kind=kind, months="1", option="cheapest", hours_per_month="730")
    if kind == "capacity":
        out.update(gpu=last.get("gpu") or last.get("wgpu") or schedule.H100, gpu_count="1")
    else:
        preset = next((p["preset"] for p in reversed(after) if p.get("preset")), "llama-3.1-8b")
        out.update(task="inference", preset=preset, concurrency="16")
    return out


def apply_action(
    values: list[dict[str, str]], action: str
) -> tuple[list[dict[str, str]], dict[str, str]]:
    """(phases, errors) after 'add-workload', 'add-capacity', 'up-<i>', 'down-<i>',
    'remove-<i>' (the last phase cannot be removed: a plan has at least one)."""
    phases = [dict(p) for p in values]
    name, _sep, arg = action.partition("-")
    i = parse_id(arg, minimum=0)
    i = -1 if i is None else i
    if name == "add" and arg in KIND_FIELDS:
        if len(phases) >= schedule.MAX_PHASES:
            return phases, {"phases": _("At most %(n)s phases.") % {"n": schedule.MAX_PHASES}}
        phases.append(new_phase(arg, phases))
    elif name == "up" and 0 < i < len(phases):
        phases[i - 1], phases[i] = phases[i], phases[i - 1]
    elif name == "down" and 0 <= i < len(phases) - 1:
        phases[i + 1], phases[i] = phases[i], phases[i + 1]
    elif name == "remove" and 0 <= i < len(phases):
        if len(phases) == 1:
            return phases, {"phases": _("A plan needs at least one phase.")}
        del phases[i]
    return phases, {}


#: A phase's hidden `base` (its saved workload, written by the page) that is not one: the
#: page is out of date or the form was changed. Read as empty, the phase lost its deadline,
#: users and images and the plan was saved at a quarter of its GPUs (QA).
BAD_BASE: Final = N_(
    "this phase's saved workload (phase-%(n)s-base) could not be read: the form is out of "
    "date or was changed. Reload the page; nothing was saved."
)


def saved_workload(text: str) -> dict[str, Any] | None:
    """A phase's hidden `base` as the workload it holds ({} for none: a phase added on the
    page), or None when it holds none the page could have written: not JSON, not an object,
    or text no form carries (a lone surrogate)."""
    if not text:
        return {}
    try:
        base = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(base, dict) or first_surrogate(base) is not None:
        return None
    return base


def _workload(p: Mapping[str, str], shown: frozenset[str]) -> dict[str, Any]:
    w: dict[str, Any] = dict(saved_workload(p.get("base") or "") or {})
    for key, name in _WORKLOAD_INPUTS.items():
        value = p.get(name, "") if name in shown else ""
        if key == "model":
            if value:
                w["model"] = {"preset": value}
        elif key == "concurrency" and value and "users" in w:
            w["users"] = value  # the users served at once, where the engine reads them
        elif value:
            w[key] = value
        else:
            w.pop(key, None)
    return w


def phase_body(p: Mapping[str, str]) -> dict[str, Any]:
    """One phase's strings as the API's `phases[i]` (blank optional fields left out).

    Only what the phase shows (`shown_inputs`): a value riding in a hidden input, kept so
    that switching back restores it, does not apply to the phase as it is. Busy hours typed
    for hourly rent and then the phase switched to monthly rent refused the save with an
    error on a field the page no longer drew (QA); a task switched from serving to LoRA
    sent its concurrency along."""
    shown = shown_inputs(p)
    body: dict[str, Any] = {"kind": p.get("kind") or "", "label": p.get("label", "")}
    for f in ("months", "option", "hours_per_month"):
        body[f] = p.get(f, "")
    if not body["hours_per_month"] or "hours_per_month" not in shown:
        body.pop("hours_per_month")
    if p.get("kind") == "capacity":
        body.update(gpu=p.get("gpu") or None, gpu_count=p.get("gpu_count") or None)
    else:
        body["workload"] = _workload(p, shown)
    return body


def input_key(i: int, loc: Sequence[Any]) -> tuple[str, str]:
    """(the builder input, the field's name) for a location inside phase `i`."""
    parts = [str(x) for x in loc]
    if parts[:1] == ["workload"] and len(parts) >= 2 and parts[1] in _WORKLOAD_INPUTS:
        name = _WORKLOAD_INPUTS[parts[1]]
        return f"phase-{i}-{name}", _(LABELS[name])
    if parts and parts[0] in LABELS:
        return f"phase-{i}-{parts[0]}", _(LABELS[parts[0]])
    # A field the builder has no input for (one of the workload's, kept in `base`), named in
    # words as the plan's history names it ("Sequence length", not "workload.seq_len").
    return f"phase-{i}", presenters.field_label(".".join(parts))


def shown_inputs(v: Mapping[str, str]) -> frozenset[str]:
    """The fields a phase with the values `v` has an input for on the page
    (templates/plans/_phases.html draws exactly these; the rest ride in hidden inputs or in
    `base`)."""
    shown = {"months", "option", "label"}
    if v.get("kind") == "capacity":
        shown |= {"gpu", "gpu_count"}
    else:
        shown |= {"task", "preset", "wgpu", "wgpu_count"}
        if v.get("task") == "inference":
            shown.add("concurrency")
        elif v.get("task") != "image":
            shown |= {"dataset_gb", "epochs"}
    if v.get("option") in ("hourly", "cheapest"):
        shown.add("hours_per_month")
    return frozenset(shown)


_INPUT_KEY: Final = re.compile(r"phase-(\d+)-(\w+)")


def placed_errors(values: Sequence[Mapping[str, str]], errors: Mapping[str, str]) -> dict[str, str]:
    """`errors` where the page can show them: one keyed to an input its phase does not show
    (busy hours typed for hourly rent, then the phase switched to monthly) is said at the
    head of the phase, still naming its field — before, the save answered 422 with no
    message anywhere on the page (QA)."""
    out: dict[str, str] = {}
    for key, text in errors.items():
        m = _INPUT_KEY.fullmatch(key)
        if m and int(m[1]) < len(values) and m[2] not in shown_inputs(values[int(m[1])]):
            key = f"phase-{m[1]}"
        out[key] = f"{out[key]} {text}" if key in out else text
    return out


def _named(label: str, message: str) -> str:
    return f"{label}{i18n.colon()}{message}" if label else message


def parse(values: Sequence[Mapping[str, str]]) -> tuple[list[schedule.PhaseIn], dict[str, str]]:
    """The phases as `PhaseIn`, or the inline errors (each naming its field)."""
    out: list[schedule.PhaseIn] = []
    errs: dict[str, str] = {}
    if not values:
        return [], {"phases": _("A plan needs at least one phase.")}
    for i, p in enumerate(values):
        if p.get("kind") != "capacity" and saved_workload(p.get("base") or "") is None:
            errs[f"phase-{i}-base"] = _(BAD_BASE) % {"n": i}
            continue
        body = phase_body(p)
        # Busy hours the phase does not show (it is not billed by the hour) are not applied,
        # but are checked as the input is where it shows: 800 h refused on an hourly phase
        # was saved without a word on a monthly one (QA).
        hidden_hours = "hours_per_month" not in body and bool(p.get("hours_per_month"))
        try:
            checked = {**body, "hours_per_month": p["hours_per_month"]} if hidden_hours else body
            phase = schedule.PhaseIn.model_validate(checked)
            out.append(schedule.PhaseIn.model_validate(body) if hidden_hours else phase)
        except ValidationError as e:
            for err in e.errors():
                key, label = input_key(i, err.get("loc", ()))
                errs.setdefault(key, _named(label, message_for(err)))
    return out, errs


def service_error_key(field: str | None) -> tuple[str, str]:
    """A service error's field (`phases.1.workload.gpu`) as (input, field name)."""
    parts = (field or "").split(".")
    if (
        parts[:1] == ["phases"]
        and len(parts) >= 2
        and (i := parse_id(parts[1], minimum=0)) is not None
    ):
        return input_key(i, parts[2:])
    if parts[:1] == ["quote"]:
        # The quote the phases carry along (a line per phase): its field, named, above the
        # phases (QA: "is more than the lines come to …" with no word of what).
        field = ".".join(parts[:2])
        return "phases", (
            presenters.field_label(field) if field in presenters.FIELD_NAMES else _("Quote")
        )
    return "phases", ""


def _book(session: Session, plan: Plan) -> PriceBook | None:
    return catalog.price_book_if_any(session=session, price_list_id=plan.price_list_id)


def preview(
    *, session: Session, plan: Plan, phases: Sequence[schedule.PhaseIn]
) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """(the priced `schedule` block, errors) for the builder's phases with the plan's list."""
    try:
        _w, result = schedule.compute(
            schedule.schedule_workload(phases, service.plan_currency(plan)), _book(session, plan)
        )
    except schedule.ScheduleError as e:
        key, label = service_error_key(e.field)
        return None, {key: _named(label, form_message(e.message, e.params))}
    return result["schedule"], {}


def save(
    *, session: Session, plan_id: int, version: int, phases: list[schedule.PhaseIn], user: User
) -> tuple[Plan | None, dict[str, str]]:
    """A new revision with these phases, or the errors (a 422 naming the field)."""
    try:
        plan = service.update_plan(
            session=session,
            plan_id=plan_id,
            expected_version=version,
            changes={"phases": phases},
            actor=user,
        )
    except errors.Invalid as e:
        key, label = service_error_key(e.field)
        return None, {key: _named(label, form_message(e.message_id, e.params))}
    return plan, {}


def choices(session: Session, plan: Plan) -> dict[str, Any]:
    """The builder's <select> options, in the page's language."""
    book = _book(session, plan)
    offered = {o.gpu_id for o in book.offers} if book is not None else set()
    gpus = [c.pair for c in planner.gpu_choices(book) if not offered or c.value in offered]
    return {
        "pb_gpus": gpus,
        "pb_tasks": [(k, _(v)) for k, v in planner.TASKS],
        "pb_presets": [
            (c.value, c.label) for _group, items in planner.preset_groups() for c in items
        ],
        "pb_options": [(k, _(v)) for k, v in schedule.OPTION_NAMES.items()],
        "pb_kind_names": schedule.KIND_NAMES,
    }


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a builder POST leads to: a redirect after a save, or the builder re-rendered."""

    redirect: str | None
    values: list[dict[str, str]]
    errors: dict[str, str]
    preview: dict[str, Any] | None
    status: int


def post(*, session: Session, plan: Plan, form: Mapping[str, str], user: User) -> Outcome:
    """Apply the form's action ("save" by default): the costs of what is typed, and on
    "save" without errors a new revision (then the diff of it)."""
    assert plan.id is not None
    action = form.get("action", "save")
    posted, count_errs = values_from_form(form)
    values, errs = apply_action(posted, action)
    # After the action: removing phases from a form that is over the limit must still work.
    limit_errs = {**over_limit(values), **(count_errs if action == "save" else {})}
    phases, parse_errs = parse(values)
    errs = {**parse_errs, **limit_errs, **errs}
    priced = None
    stale = False
    if not parse_errs and not limit_errs:
        priced, preview_errs = preview(session=session, plan=plan, phases=phases)
        errs = {**preview_errs, **errs}
    if action == "save" and not errs:
        # No version: the one on screen; one the plan never had keeps the input (409).
        version = posted_version(form.get("version"), plan.version)
        saved = None
        if version is None:
            stale = True
            errs = {"phases": _(service.UNKNOWN_FORM_VERSION) % {"new": plan.version}}
        else:
            try:
                saved, errs = save(
                    session=session, plan_id=plan.id, version=version, phases=phases, user=user
                )
            except service.Conflict as e:
                # Saved by someone else since: the typed phases stay, on the current version.
                saved, stale = None, True
                errs = {"phases": e.form_message(version)}
        if saved is not None:
            url = f"/plans/{plan.id}/diff?a={version}&b={saved.version}"
            if saved.version == version:
                # Nothing changed, so no revision: the plan itself, not a diff of a version
                # with itself (QA: "version 2 → version 2" listing changed fields).
                url = f"/plans/{plan.id}#phase-builder"
            return Outcome(url, values, {}, priced, 303)
    status = 409 if stale else 422 if errs and action == "save" else 200
    return Outcome(None, values, errs, priced, status)
