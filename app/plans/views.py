"""What the plan pages show: template contexts built from plans, revisions and leads.

Routes in `app.plans.pages` parse the request, call one function here (which calls the plan
service) and render. Nothing here commits except through `app.plans.service`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Final
from urllib.parse import urlencode

from pydantic import ValidationError
from sqlmodel import Session

from app.accounts.models import User
from app.catalog import service as catalog
from app.charts import figures
from app.costs import presenters as costs_view
from app.engine.price_book import PriceBook
from app.engine.schemas import EstimateRequest, EstimateResponse
from app.i18n import N_, ngettext
from app.i18n import gettext as _
from app.planner import views as planner
from app.plans import schedule, service
from app.plans.models import STATUSES, Plan, PlanRevision

log = logging.getLogger("stratagem.web")

STATUS_NAMES: Final = {
    "draft": N_("Draft"),
    "sent": N_("Sent"),
    "accepted": N_("Accepted"),
    "lost": N_("Lost"),
}
FIELD_NAMES: Final = {
    "name": N_("Name"),
    "customer": N_("Customer"),
    "status": N_("Status"),
    "notes": N_("Internal notes"),
    "tags": N_("Tags"),
    "archived": N_("Archived"),
    "price_list_id": N_("Price list"),
    "result.tier": N_("Tier"),
    "result.gpu": N_("GPUs"),
    "result.cheapest_total": N_("Cheapest total"),
    "result.currency": N_("Currency"),
}
#: List columns that sort, with their labels.
SORT_COLUMNS: Final = (
    ("quote_number", N_("Quote")),
    ("name", N_("Name")),
    ("customer", N_("Customer")),
    ("status", N_("Status")),
    ("updated_at", N_("Updated")),
)
PER_PAGE: Final = 25
DAYS_PER_MONTH: Final = 365 / 12


# --------------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------------


def field_label(field: str) -> str:
    """A readable, translated name for a dotted snapshot field (`workload.seq_len`)."""
    if field in FIELD_NAMES:
        return _(FIELD_NAMES[field])
    if field.startswith("workload."):
        rest = field.removeprefix("workload.")
        if rest.startswith("schedule.phases"):
            return _("Phases")
        key = {"model.preset": "preset", "model.params_b": "params_b"}.get(rest, rest)
        if key in planner.FIELD_LABELS:
            return _(planner.FIELD_LABELS[key])
        return rest
    return field


def show_value(value: Any) -> str:
    """A snapshot value as text (lists joined, None as a dash)."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("Yes") if value else _("No")
    if isinstance(value, list):
        if value and isinstance(value[0], Mapping):
            return "; ".join(phase_text(p) for p in value)
        return ", ".join(str(v) for v in value) or "—"
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return str(value)


def phase_text(p: Mapping[str, Any]) -> str:
    months = float(p.get("months") or 0)
    return ngettext(
        "%(label)s: %(n)s × %(gpu)s for %(num)s month",
        "%(label)s: %(n)s × %(gpu)s for %(num)s months",
        int(months) if months.is_integer() else 2,
    ) % {
        "label": p.get("label") or _("Phase"),
        "n": f"{float(p.get('gpu_count') or 0):g}",
        "gpu": p.get("gpu_name") or p.get("gpu"),
        "num": f"{months:g}",
    }


# --------------------------------------------------------------------------------------------
# Key figures of a stored result (plans and revisions alike)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyFigures:
    tier: str
    gpu_count: float | None
    gpu_name: str
    days: float | None
    months: float | None
    monthly: float | None
    total: float | None
    currency: str
    cheapest_kind: str
    cheapest: Mapping[str, Any] | None
    break_even: Mapping[str, Any] | None
    price_list_name: str
    price_list_date: date | None
    phased: bool


def _iso_date(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def key_figures(result: Mapping[str, Any]) -> KeyFigures:
    cost = result.get("cost") or {}
    options = cost.get("options") or []
    cheapest = next((o for o in options if o.get("key") == cost.get("cheapest")), None)
    if cheapest is None and options:
        cheapest = min(options, key=lambda o: float(o.get("total") or math.inf))
    gpu = result.get("gpu") or {}
    sched = result.get("schedule")
    training = result.get("training") or {}
    days = training.get("days") if training else None
    months = cost.get("months")
    if sched:
        months = sched.get("months")
        days = float(months or 0) * DAYS_PER_MONTH
    names = {o.get("key"): costs_view.option_name(o) for o in options}
    be = next((b for b in cost.get("break_even") or [] if b.get("month") is not None), None)
    pl = cost.get("price_list") or {}
    return KeyFigures(
        tier=str(result.get("tier") or ""),
        gpu_count=gpu.get("count"),
        gpu_name=str(gpu.get("name") or ""),
        days=days,
        months=months,
        monthly=cheapest.get("monthly") if cheapest else None,
        total=cheapest.get("total") if cheapest else None,
        currency=str(cost.get("currency") or "TWD"),
        cheapest_kind=(
            _("Phased rental") if sched else (costs_view.option_name(cheapest) if cheapest else "")
        ),
        cheapest=cheapest,
        break_even=(
            {
                "a": names.get(be["a"], be["a"]),
                "b": names.get(be["b"], be["b"]),
                "month": be["month"],
            }
            if be
            else None
        ),
        price_list_name=str(pl.get("name") or ""),
        price_list_date=_iso_date(pl.get("effective_date")),
        phased=bool(sched),
    )


# --------------------------------------------------------------------------------------------
# /plans
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ListQuery:
    q: str = ""
    status: str = ""
    owner: str = ""
    tier: str = ""
    customer: str = ""
    sort: str = "-updated_at"
    page: int = 1
    archived: bool = False

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> ListQuery:
        sort = params.get("sort") or "-updated_at"
        if sort.removeprefix("-") not in service.SORTS:
            sort = "-updated_at"
        try:
            page = max(1, int(params.get("page") or 1))
        except ValueError:
            page = 1
        status = params.get("status") or ""
        tier = params.get("tier") or ""
        return cls(
            q=(params.get("q") or "").strip()[:100],
            status=status if status in STATUSES else "",
            owner=(params.get("owner") or "").strip()[:12],
            tier=tier if tier in planner.TIER_NAMES else "",
            customer=(params.get("customer") or "").strip()[:200],
            sort=sort,
            page=page,
            archived=params.get("archived") == "1",
        )

    def url(self, **change: Any) -> str:
        values = {
            "q": self.q,
            "status": self.status,
            "owner": self.owner,
            "tier": self.tier,
            "customer": self.customer,
            "sort": self.sort if self.sort != "-updated_at" else "",
            "page": self.page if self.page != 1 else "",
            "archived": "1" if self.archived else "",
        }
        values.update(change)
        query = urlencode({k: v for k, v in values.items() if v not in ("", None)})
        return "/plans" + (f"?{query}" if query else "")


def list_context(*, session: Session, params: Mapping[str, str], user: User) -> dict[str, Any]:
    """The plan list: one page of plans, filters, sort links and pagination."""
    lq = ListQuery.parse(params)
    owner_id: int | None = None
    if lq.owner == "me":
        owner_id = user.id
    elif lq.owner.isdigit():
        owner_id = int(lq.owner)
    page = service.list_plans(
        session=session,
        search=lq.q or None,
        status=lq.status or None,
        owner_id=owner_id,
        tier=lq.tier or None,
        customer=lq.customer or None,
        archived=lq.archived,
        sort=lq.sort,
        page=lq.page,
        per_page=PER_PAGE,
    )
    pages = max(1, math.ceil(page.total / page.per_page))
    field, descending = lq.sort.removeprefix("-"), lq.sort.startswith("-")
    columns = []
    for key, label in SORT_COLUMNS:
        on = key == field
        new_sort = (
            (key if descending else f"-{key}")
            if on
            else (f"-{key}" if key == "updated_at" else key)
        )
        columns.append(
            {
                "key": key,
                "label": _(label),
                "href": lq.url(sort=new_sort, page=""),
                "sorted": ("descending" if descending else "ascending") if on else None,
            }
        )
    staff = service.users_by_id(session=session)
    return {
        "nav_active": "plans",
        "lq": lq,
        "plans": page.items,
        "total": page.total,
        "page": page.page,
        "pages": pages,
        "prev_url": lq.url(page=page.page - 1) if page.page > 1 else None,
        "next_url": lq.url(page=page.page + 1) if page.page < pages else None,
        "columns": columns,
        "owners": staff,
        "customers": service.list_customers(session=session),
        "statuses": [(s, STATUS_NAMES[s]) for s in STATUSES],
        "tiers": list(planner.TIER_NAMES.items()),
        "status_names": STATUS_NAMES,
        "tier_names": planner.TIER_NAMES,
        "filtered": bool(lq.q or lq.status or lq.owner or lq.tier or lq.customer),
    }


# --------------------------------------------------------------------------------------------
# /plans/{id}
# --------------------------------------------------------------------------------------------


def _book(session: Session, price_list_id: int | None) -> PriceBook | None:
    if price_list_id is None:
        return None
    try:
        return catalog.price_book_for(session=session, price_list_id=price_list_id)
    except Exception:  # a deleted list: the stored result still shows its figures
        return None


def results_context(
    *, session: Session, plan: Plan | PlanRevision, currency: str
) -> dict[str, Any]:
    """The planner's result partials for a stored estimate (or the phases of a schedule)."""
    if schedule.is_schedule(plan.workload):
        return schedule_context(plan.result)
    try:
        req = EstimateRequest.model_validate(plan.workload)
        resp = EstimateResponse.model_validate(plan.result)
    except ValidationError:
        log.exception("stored plan result unreadable")
        return {"resp": None}
    book = _book(session, plan.price_list_id)
    explain = planner.explain_items(resp)
    return {
        "req": req,
        "resp": resp,
        "explain": explain,
        "explain_ids": {e["figure"]: e["id"] for e in explain},
        "layout": planner.parallel_layout(resp),
        "charts": {
            "memory": figures.memory(resp),
            "scaling": figures.scaling(
                planner.scaling_points(req, resp), req.deadline_days, resp.gpu.count
            ),
        },
        "costs": costs_view.view(
            plan.result.get("cost"), book, currency, utilization=req.utilization
        ),
        "task_names": planner.TASK_NAMES,
        "tier_names": planner.TIER_NAMES,
        "saved_plan": True,
    }


def schedule_context(result: Mapping[str, Any]) -> dict[str, Any]:
    sched = result.get("schedule") or {}
    cost = result.get("cost") or {}
    ccy = str(cost.get("currency") or "TWD")
    option = {**(cost.get("options") or [{}])[0], "label": _("Phased rental")}
    return {
        "resp": None,
        "phased": sched,
        "charts": {
            "timeline": figures.timeline([(_("Schedule"), sched.get("phases") or [])]),
            "cumulative": figures.cumulative([option], [], ccy),
        },
        "explain": result.get("explain") or [],
        "kind_names": costs_view.KIND_NAMES,
    }


def detail_context(
    *, session: Session, plan_id: int, user: User, currency: str, conflict: str | None = None
) -> dict[str, Any]:
    """Everything /plans/{id} shows."""
    plan = service.get_plan(session=session, plan_id=plan_id)
    revisions = service.list_revisions(session=session, plan_id=plan_id)
    people = service.users_by_id(
        session=session, ids=[plan.owner_id, *(r.author_id for r in revisions)]
    )
    ctx = {
        "nav_active": "plans",
        "plan": plan,
        "kf": key_figures(plan.result),
        "owner": people.get(plan.owner_id),
        "people": people,
        "revisions": list(reversed(revisions)),
        "can_edit": service.can_edit(user, plan),
        "statuses": [(s, STATUS_NAMES[s]) for s in STATUSES],
        "status_names": STATUS_NAMES,
        "tier_names": planner.TIER_NAMES,
        "summary_text": summary_text,
        "phased_plan": schedule.is_schedule(plan.workload),
        "conflict_version": int(conflict) if conflict and conflict.isdigit() else None,
    }
    ctx.update(results_context(session=session, plan=plan, currency=currency))
    return ctx


def summary_text(summary: str) -> str:
    """A revision's change summary ('name, workload.seq_len') with translated field names."""
    if not summary:
        return ""
    if summary == "created":
        return _("Created")
    if summary in ("archived", "restored"):
        return _("Archived") if summary == "archived" else _("Restored")
    if summary.startswith("repriced"):
        return _("Repriced with the current price list")
    if summary.startswith("duplicated from "):
        return _("Duplicated from %(quote)s") % {"quote": summary.removeprefix("duplicated from ")}
    parts = [p.strip() for p in summary.split(",") if p.strip()]
    return _("Changed: %(fields)s") % {
        "fields": ", ".join(dict.fromkeys(field_label(p) for p in parts))
    }


def edit_values(plan: Plan) -> dict[str, str]:
    return {
        "name": plan.name,
        "customer": plan.customer,
        "status": plan.status,
        "tags": ", ".join(plan.tags),
        "notes": plan.notes,
        "version": str(plan.version),
    }


def parse_edit(form: Mapping[str, str]) -> tuple[int, dict[str, Any], dict[str, str]]:
    """(version, changes, errors) from the edit form."""
    errors: dict[str, str] = {}
    try:
        version = int(form.get("version") or "0")
    except ValueError:
        version = 0
    name = (form.get("name") or "").strip()
    if not name:
        errors["name"] = _("Give the plan a name.")
    elif len(name) > 200:
        errors["name"] = _("At most %(n)s characters.") % {"n": 200}
    customer = (form.get("customer") or "").strip()
    if len(customer) > 200:
        errors["customer"] = _("At most %(n)s characters.") % {"n": 200}
    status = form.get("status") or "draft"
    if status not in STATUSES:
        errors["status"] = _("Choose a status.")
    notes = form.get("notes") or ""
    if len(notes) > 20_000:
        errors["notes"] = _("At most %(n)s characters.") % {"n": 20_000}
    tags = [t.strip()[:50] for t in (form.get("tags") or "").split(",") if t.strip()]
    changes = {
        "name": name,
        "customer": customer,
        "status": status,
        "notes": notes,
        "tags": list(dict.fromkeys(tags))[:50],
    }
    return version, changes, errors


def conflict_context(*, session: Session, plan_id: int, expected_version: int) -> dict[str, Any]:
    """What changed since `expected_version`: [(label, then, now)] and the current plan."""
    plan = service.get_plan(session=session, plan_id=plan_id)
    try:
        then = service.get_revision(session=session, plan_id=plan_id, version=expected_version)
        diff = service.diff_snapshots(service.snapshot(then), service.snapshot(plan))
    except service.NotFound:
        diff = []
    rows = [(field_label(f), show_value(a), show_value(b)) for f, a, b in diff]
    return {"current": plan, "since": rows, "current_version": plan.version}


def diff_context(*, session: Session, plan_id: int, a: int | None, b: int | None) -> dict[str, Any]:
    """Two versions compared (default: the latest against the one before it)."""
    if b is None:
        b = service.get_plan(session=session, plan_id=plan_id).version
    if a is None:
        a = max(1, b - 1)
    cmp = service.compare_revisions(session=session, plan_id=plan_id, from_version=a, to_version=b)
    revisions = service.list_revisions(session=session, plan_id=plan_id)
    return {
        "nav_active": "plans",
        "plan": cmp.plan,
        "cmp": cmp,
        "rows": [(field_label(f), show_value(x), show_value(y)) for f, x, y in cmp.changes],
        "options": [
            {
                **o,
                "name": costs_view.option_name(
                    {"kind": o["key"].split(":")[0], "label": o["label"]}
                ),
            }
            for o in cmp.options
        ],
        "revisions": revisions,
        "summary_text": summary_text,
    }


# --------------------------------------------------------------------------------------------
# /compare
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scenario:
    plan: Plan
    version: int
    name: str
    workload: dict[str, Any]
    result: dict[str, Any]
    kf: KeyFigures
    href: str


def parse_compare(ids: str, revs: Sequence[str]) -> tuple[list[tuple[int, int | None]], str]:
    """[(plan id, version or None)] from `ids=1,2` and `rev=3:2` items, or an error message."""
    items: list[tuple[int, int | None]] = []
    try:
        for part in (ids or "").replace(" ", "").split(","):
            if part:
                items.append((int(part), None))
        for r in revs:
            for part in r.replace(" ", "").split(","):
                if part:
                    pid, _sep, ver = part.partition(":")
                    items.append((int(pid), int(ver) if ver else None))
    except ValueError:
        return [], _("Plans are numbers: ?ids=1,2 or ?rev=1:3 (plan 1, version 3).")
    if len(items) > 4:
        return [], _("Compare two to four plans.")
    return items, ""


def _flat_inputs(workload: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    if schedule.is_schedule(workload):
        for i, p in enumerate((workload.get("schedule") or {}).get("phases") or []):
            out[f"phase{i + 1}"] = phase_text(
                {**p, "gpu_name": p.get("gpu", "").replace("-sxm-80gb", "").upper()}
            )
        return out
    flat: dict[str, Any] = {}
    service._flatten("workload", dict(workload), flat)
    for k, v in flat.items():
        if v is None or k in ("workload.currency",):
            continue
        key = k.removeprefix("workload.")
        if key == "task":
            out[key] = _(planner.TASK_NAMES.get(str(v), str(v)))
        else:
            out[key] = show_value(v)
    return out


def _input_label(key: str) -> str:
    if key.startswith("phase"):
        return _("Phase %(n)s") % {"n": key.removeprefix("phase")}
    return field_label(f"workload.{key}")


def compare_context(
    *, session: Session, items: Sequence[tuple[int, int | None]], error: str = ""
) -> dict[str, Any]:
    """Scenarios side by side: inputs (differences marked), key figures, overlaid charts."""
    scenarios: list[Scenario] = []
    for pid, ver in items:
        plan = service.get_plan(session=session, plan_id=pid)
        if ver is None or ver == plan.version:
            src: Plan | PlanRevision = plan
            version = plan.version
            href = f"/plans/{pid}"
        else:
            src = service.get_revision(session=session, plan_id=pid, version=ver)
            version = ver
            href = f"/plans/{pid}#v{ver}"
        scenarios.append(
            Scenario(
                plan,
                version,
                src.name,
                dict(src.workload),
                dict(src.result),
                key_figures(src.result),
                href,
            )
        )
    flats = [_flat_inputs(s.workload) for s in scenarios]
    keys = list(dict.fromkeys(k for f in flats for k in f))
    inputs = []
    for k in keys:
        values = [f.get(k, "—") for f in flats]
        inputs.append({"label": _input_label(k), "values": values, "differs": len(set(values)) > 1})
    totals = [s.kf.total for s in scenarios if s.kf.total]
    cheapest = min(totals) if totals else None
    ccy = scenarios[0].kf.currency if scenarios else "TWD"
    options = []
    for i, s in enumerate(scenarios):
        o = s.kf.cheapest
        if o and o.get("cumulative"):
            options.append(
                {
                    "key": f"s{i}",
                    "kind": str(o.get("kind") or "rent_monthly"),
                    "label": f"{chr(65 + i)}: {s.name[:40]}",
                    "cumulative": list(o["cumulative"]),
                    "total": o.get("total"),
                    "monthly": o.get("monthly"),
                }
            )
    rows = []
    for i, s in enumerate(scenarios):
        sched = s.result.get("schedule")
        if sched:
            phases = sched.get("phases") or []
        elif s.kf.days is not None:
            phases = [
                {
                    "label": _("Training run"),
                    "gpu_count": s.kf.gpu_count or 0,
                    "months": s.kf.days / DAYS_PER_MONTH,
                    "start_month": 0,
                }
            ]
        else:
            phases = []
        rows.append((f"{chr(65 + i)}", phases))
    return {
        "nav_active": "plans",
        "scenarios": scenarios,
        "inputs": inputs,
        "cheapest_total": cheapest,
        "currency": ccy,
        "tier_names": planner.TIER_NAMES,
        "error": error,
        "charts": {
            "cumulative": figures.cumulative(options, [], ccy) if options else None,
            "timeline": figures.timeline(rows) if any(p for _n, p in rows) else None,
        },
    }


# --------------------------------------------------------------------------------------------
# Saving from the pages
# --------------------------------------------------------------------------------------------


def default_name(req: EstimateRequest) -> str:
    """'llama-2-13b · Full fine-tuning' for a plan saved without a name."""
    model = req.model.preset or (
        f"{req.model.params_b:g}B" if req.model.params_b else _("Custom model")
    )
    return f"{model} · {_(planner.TASK_NAMES.get(req.task, req.task))}"


def save_from_planner(
    *, session: Session, form: Mapping[str, str], user: User, currency: str
) -> tuple[Plan | None, dict[str, str]]:
    """A new plan from the planner's form (its fields plus name and customer)."""
    req, errors = planner.build_request(planner.form_values(form), currency)
    if req is None:
        return None, errors
    plan = service.create_plan(
        session=session,
        owner=user,
        name=(form.get("name") or "").strip()[:200] or default_name(req),
        customer=(form.get("customer") or "").strip()[:200],
        workload=req,
    )
    return plan, {}


def form_choices() -> dict[str, Any]:
    return {"statuses": [(s, STATUS_NAMES[s]) for s in STATUSES]}


def save_edit(
    *, session: Session, plan_id: int, form: Mapping[str, str], user: User
) -> dict[str, Any] | None:
    """Save the edit form; None when saved, else the form's context (errors or a conflict).

    On a conflict the user's input stays in the form, the hidden version moves to the
    current one (saving again overwrites, knowingly) and the changes since are listed."""
    version, changes, errors = parse_edit(form)
    values = {k: str(form.get(k, "")) for k in ("name", "customer", "status", "tags", "notes")}
    values["version"] = str(version)
    plan = service.get_plan(session=session, plan_id=plan_id)
    ctx: dict[str, Any] = {
        "nav_active": "plans",
        "plan": plan,
        "values": values,
        "errors": errors,
        "status": 422,
        **form_choices(),
    }
    if errors:
        return ctx
    try:
        service.update_plan(
            session=session, plan_id=plan_id, expected_version=version, changes=changes, actor=user
        )
    except service.Conflict:
        conflict = conflict_context(session=session, plan_id=plan_id, expected_version=version)
        values["version"] = str(conflict["current_version"])
        ctx.update(plan=conflict["current"], conflict=conflict, conflict_from=version, status=409)
        return ctx
    return None


def set_status(*, session: Session, plan_id: int, form: Mapping[str, str], user: User) -> str:
    """Change the status; the URL to go to next (the plan, with a note on a conflict)."""
    status = form.get("status", "")
    if status not in STATUSES:
        raise service.Invalid("status", _("Choose a status."))
    try:
        version = int(form.get("version") or "0")
    except ValueError:
        version = 0
    try:
        service.update_plan(
            session=session,
            plan_id=plan_id,
            expected_version=version,
            changes={"status": status},
            actor=user,
        )
    except service.Conflict:
        return f"/plans/{plan_id}?conflict={version}"
    return f"/plans/{plan_id}"
