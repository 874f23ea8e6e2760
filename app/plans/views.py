"""What the plan pages show: template contexts built from plans, revisions and leads.

Routes in `app.plans.pages` parse the request, call one function here (which calls the plan
service) and render. Labels and key figures are `app.plans.presenters`; form handling and
saving are `app.plans.forms`. Nothing here commits except through `app.plans.service`.
"""

from __future__ import annotations

import logging
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError
from sqlmodel import Session

from app.accounts.models import User
from app.catalog import service as catalog
from app.charts import figures
from app.costs import explained
from app.costs import presenters as costs_view
from app.customers.models import Customer
from app.engine.formatting import number
from app.engine.price_book import PriceBook
from app.engine.schemas import EstimateRequest, EstimateResponse
from app.i18n import N_, listing
from app.i18n import gettext as _
from app.planner import views as planner
from app.plans import builder, schedule, service
from app.plans.forms import PER_PAGE, SORT_COLUMNS, ListQuery
from app.plans.models import STATUSES, Plan, PlanRevision
from app.plans.presenters import (
    DAYS_PER_MONTH,
    STATUS_NAMES,
    KeyFigures,
    Quoted,
    applies,
    compare_inputs,
    field_label,
    field_value,
    key_figures,
    number_text,
    quoted_figures,
    summary_text,
)
from app.quotes import pricing
from app.web.forms import parse_id

log = logging.getLogger("stratagem.web")


# --------------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Key figures of a stored result (plans and revisions alike)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# /plans
# --------------------------------------------------------------------------------------------


#: What the list does instead of a filter it cannot apply, per parameter.
_REFUSED: Final[dict[str, str]] = {
    "status": N_("Status “%(value)s” is not a plan status (%(allowed)s): plans of every status are shown."),
    "tier": N_("Tier “%(value)s” is not a tier (%(allowed)s): plans of every tier are shown."),
    "owner": N_("Owner “%(value)s” is not “me” or a user number: everyone's plans are shown."),
    "customer_id": N_("Customer number “%(value)s” is not a whole number from 1: every customer's plans are shown."),
    "sort": N_("Sort “%(value)s” is not a column the list sorts by (%(allowed)s, “-” first for descending): the most recently updated plans come first."),
    "page": N_("Page “%(value)s” is not a page number (a whole number from 1): the first page is shown."),
    "archived": N_("Show “%(value)s” is not 1 (archived plans) or 0 (live plans): live plans are shown."),
}  # fmt: skip


def refused_filters(lq: ListQuery) -> list[tuple[str, str]]:
    """(parameter, message) of each filter in the address the list left out, in the page's
    language, naming what the parameter takes."""
    allowed = {
        "status": listing(STATUSES),
        "tier": listing(planner.TIER_NAMES),
        "sort": listing(service.SORTS),
    }
    return [
        (name, _(_REFUSED[name]) % {"value": value[:60], "allowed": allowed.get(name, "")})
        for name, value in lq.refused
    ]


def list_context(*, session: Session, params: Mapping[str, str], user: User) -> dict[str, Any]:
    """The plan list: one page of plans, filters, sort links and pagination."""
    lq = ListQuery.parse(params)
    owner_id: int | None = None
    if lq.owner == "me":
        owner_id = user.id
    elif lq.owner:  # an id: ListQuery.parse left out anything else ('²', 5,000 digits)
        owner_id = parse_id(lq.owner)

    page = service.list_plans(
        session=session,
        search=lq.q or None,
        status=lq.status or None,
        owner_id=owner_id,
        tier=lq.tier or None,
        customer=lq.customer or None,
        customer_id=parse_id(lq.customer_id),  # an id or "" (ListQuery.parse)
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
    current = catalog.current_price_list(session=session)
    return {
        "nav_active": "plans",
        "lq": lq,
        # A plan priced on another list says so in its row: a sales manager looking for
        # the plans to re-price opened each one (QA).
        "current_list_id": current.id if current is not None else None,
        "refused_filters": refused_filters(lq),
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
        "filtered": bool(lq.q or lq.status or lq.owner or lq.tier or lq.customer or lq.customer_id),
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
    explain = planner.explain_items(resp, book)
    return {
        "req": req,
        "resp": resp,
        "explain": explain,
        "explain_by_figure": {e["figure"]: e for e in explain},
        "notices": planner.page_notices(resp, book),
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
    names = [phase_name(p, p, i) for i, p in enumerate(sched.get("phases") or [])]
    named = [{**p, "label": n} for p, n in zip(sched.get("phases") or [], names, strict=True)]
    return {
        "resp": None,
        "phased": sched,
        "phase_names": names,
        "charts": {
            "timeline": figures.timeline([(_("Schedule"), named)]),
            "cumulative": figures.cumulative([option], [], ccy),
        },
        "explain": _schedule_explain(result.get("explain") or [], sched.get("phases") or [], names),
        "kind_names": costs_view.KIND_NAMES,
    }


def _schedule_explain(
    explain: Sequence[Mapping[str, Any]], phases: Sequence[Mapping[str, Any]], names: list[str]
) -> list[dict[str, Any]]:
    """The schedule's explanations, each phase's named in the page's language with its GPU's
    name ("第 2 階段 · 全參數微調:4 × NVIDIA H100 SXM5 80GB"), not the engine's English and
    catalog id ("Phase 2: 4× h100-sxm-80gb"); `name` is absent where none is known. Each
    formula is said as the planner's Explain panel says it (`explained.formula_said`, marked
    English where it stays the engine's); the sources are the engine's, marked English."""
    out = []
    for i, e in enumerate(explain):
        entry = dict(e)
        entry["formula"], entry["formula_lang"] = explained.formula_said(
            str(e.get("figure", "")), str(e.get("formula", "")), None
        )
        entry["source_lang"] = "en"
        phase = phases[i] if i < len(phases) else None
        if phase is not None and str(e.get("figure", "")).endswith(f"× {phase.get('gpu')}"):
            entry["name"] = _("Phase %(n)s · %(name)s: %(gpus)s × %(gpu)s") % {
                "n": i + 1,
                "name": names[i],
                "gpus": number(float(phase.get("billed_gpus") or phase.get("gpu_count") or 0)),
                "gpu": phase.get("gpu_name") or phase.get("gpu"),
            }
        elif e.get("figure") == "Schedule total":
            entry["name"] = _("Schedule total")
        out.append(entry)
    return out


def phase_builder_context(
    *,
    session: Session,
    plan: Plan,
    values: Sequence[Mapping[str, str]] | None = None,
    errors: Mapping[str, str] | None = None,
    preview: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The phase builder's section (`plans/_phases.html`): its phases, their costs (the
    saved ones, or the preview of what is typed) and its errors."""
    saved = values is None
    if saved:
        values = builder.values_of(plan)
        preview = (
            (plan.result or {}).get("schedule") if schedule.is_schedule(plan.workload) else None
        )
    priced = list((preview or {}).get("phases") or [])
    rows = []
    for i, v in enumerate(values or []):
        p = priced[i] if i < len(priced) else None
        rows.append(
            {"v": v, "priced": p, "name": phase_name(v, p, i), "shown": builder.shown_inputs(v)}
        )
    return {
        "pb_phases": rows,
        "pb_errors": builder.placed_errors(values or [], errors or {}),
        "pb_preview": preview,
        "pb_saved": saved,
        "pb_phased": schedule.is_schedule(plan.workload),
        # a plain plan whose quote names cost options: saving re-quotes it a line per phase
        "pb_requotes": not schedule.is_schedule(plan.workload)
        and any(line.get("option_key") for line in (plan.quote or {}).get("lines") or []),
        "pb_max": schedule.MAX_PHASES,
        "kind_names": costs_view.KIND_NAMES,
        **builder.choices(session, plan),
    }


def phase_name(v: Mapping[str, Any], priced: Mapping[str, Any] | None, i: int) -> str:
    """A phase's name on the page: its label, else its task (workload) or "Capacity"."""
    if v.get("label"):
        return str(v["label"])
    if v.get("kind") == "workload" and v.get("task") in planner.TASK_NAMES:
        return _(planner.TASK_NAMES[str(v["task"])])
    if v.get("kind") == "capacity":
        return _("Capacity")
    return _("Phase %(n)s") % {"n": i + 1}


def detail_context(
    *, session: Session, plan_id: int, user: User, currency: str, conflict: str | None = None
) -> dict[str, Any]:
    """Everything /plans/{id} shows."""
    plan = service.get_plan(session=session, plan_id=plan_id)
    revisions = service.list_revisions(session=session, plan_id=plan_id)
    people = service.users_by_id(
        session=session, ids=[plan.owner_id, *(r.author_id for r in revisions)]
    )
    book = _book(session, plan.price_list_id)
    ctx = {
        "nav_active": "plans",
        "plan": plan,
        "kf": key_figures(plan.result, book),
        # What the quote quotes, which the summary describes where the quote has an option
        # line (QA: 「每月 NT$160,000 · 36 個月合約」 above a quote for buying the GPUs).
        "quoted": quoted_figures(plan.result, plan.quote, book),
        "owner": people.get(plan.owner_id),
        "people": people,
        "revisions": list(reversed(revisions)),
        "can_edit": service.can_edit(user, plan),
        # The customer answered the quote: its workload and prices stay as answered
        # (`service.require_undecided`), so the page offers no action that changes them.
        "decided": plan.status in service.DECIDED_STATUSES,
        # Only what a save may set: the answers and "sent" have their own ways (send, share).
        "statuses": [(s, STATUS_NAMES[s]) for s in service.settable_statuses(plan)],
        "status_names": STATUS_NAMES,
        "tier_names": planner.TIER_NAMES,
        "summary_text": summary_text,
        "phased_plan": schedule.is_schedule(plan.workload),
        "planner_url": planner_url(plan),
        "conflict_version": parse_id(conflict, minimum=0),  # 0: a posted version that was none
    }
    ctx.update(results_context(session=session, plan=plan, currency=currency))
    ctx["newer_price_list"] = (
        newer_price_list(session=session, plan=plan)
        if ctx["can_edit"] and not ctx["decided"]
        else None
    )
    if ctx["can_edit"] and not ctx["decided"]:
        ctx.update(phase_builder_context(session=session, plan=plan))
    return ctx


def owner_context(session: Session, plan: Plan) -> dict[str, Any]:
    """Who may change `plan`, for the sentence a reader who may not reads: its owner by name
    (an admin can too)."""
    owner = service.users_by_id(session=session, ids=[plan.owner_id]).get(plan.owner_id)
    return {"owner_name": (owner.name or owner.email) if owner is not None else "—"}


def newer_price_list(*, session: Session, plan: Plan) -> dict[str, Any] | None:
    """The price list in effect today when it is newer than the one the plan was priced on
    (its name and effective date, and the plan's list's name), else None. QA published a
    list that raised the 1-GPU H100 from NT$50,000 to NT$55,000: the draft kept showing
    NT$50,000 with nothing saying a newer list was in effect until "Re-price" was pressed."""
    if plan.price_list_id is None:
        return None
    current = catalog.current_price_list(session=session)
    if current is None or current.id == plan.price_list_id:
        return None
    try:
        priced_on = catalog.get_price_list(session=session, price_list_id=plan.price_list_id)
    except catalog.NotFound:
        priced_on = None
    if priced_on is not None and (priced_on.effective_date, priced_on.id or 0) > (
        current.effective_date,
        current.id or 0,
    ):
        return None  # priced on a list that takes effect later: nothing newer is in effect
    return {
        "name": current.name,
        "effective": current.effective_date,
        "priced_on": priced_on.name if priced_on is not None else None,
    }


def diff_context(*, session: Session, plan_id: int, a: int | None, b: int | None) -> dict[str, Any]:
    """Two versions compared (default: the latest against the one before it)."""
    if b is None:
        b = service.get_plan(session=session, plan_id=plan_id).version
    if a is None:
        a = max(1, b - 1)
    cmp = service.compare_revisions(session=session, plan_id=plan_id, from_version=a, to_version=b)
    revisions = service.list_revisions(session=session, plan_id=plan_id)
    book_a, book_b = _book(session, cmp.a.price_list_id), _book(session, cmp.b.price_list_id)
    # The quote's lines are compared line by line below (`quote_changes`), not as text.
    rows = [
        (
            field_label(f),
            _diff_value(session, f, x, _result_currency(cmp.a), book_a),
            _diff_value(session, f, y, _result_currency(cmp.b), book_b),
        )
        for f, x, y in cmp.changes
        if f != "quote.lines" and _means_something(f, cmp.a, cmp.b)
    ]
    # Named as the quote document names them, providers told apart over both versions: a
    # Stratagem and a RunPod hourly rent read alike, and so did a RunPod offer the new list
    # dropped (QA).
    names = option_names(cmp.b, cmp.a)
    return {
        "nav_active": "plans",
        "plan": cmp.plan,
        "cmp": cmp,
        "rows": rows,
        # Only the lines changed: the table must not say "the two versions are the same"
        # above a quote whose total moved (QA: NT$864,000 → NT$1,766,400).
        "only_lines_changed": not rows and any(f == "quote.lines" for f, _x, _y in cmp.changes),
        # Each total says what it covers and whether buying pays for that period, as the
        # plan page does (QA: 36 hours, 1 month and 12 months in one column, unsaid).
        "options": [
            {
                **o,
                "name": names.get(o["key"]) or _option_label(o["key"], cmp.b, cmp.a),
                **_option_period(o["key"], cmp.b, cmp.a),
            }
            for o in cmp.options
        ],
        "revisions": revisions,
        "summary_text": summary_text,
        "quote": quote_changes(cmp.a, cmp.b),
        # A new workload moves the quote's option lines with it (`service.save_plan`).
        "workload_changed": any(f.startswith("workload") for f, _x, _y in cmp.changes),
    }


def _means_something(field: str, *revisions: PlanRevision) -> bool:
    """Whether a changed workload field means something for the task of either revision: the
    planner's form posts every field, so a training plan edited there gained "users 1", which
    the diff showed as "Users served at once — → 1" (`presenters.applies`)."""
    key = field.removeprefix("workload.")
    if key == field or key.startswith("schedule"):
        return True
    return any(applies(key, (rev.workload or {}).get("task")) for rev in revisions)


def _find_option(
    key: str, revisions: Sequence[PlanRevision]
) -> tuple[Mapping[str, Any], Mapping[str, Any]] | None:
    """(the option with this key, its revision's result) from the first revision that has it."""
    for rev in revisions:
        result = rev.result or {}
        for option in (result.get("cost") or {}).get("options") or []:
            if option.get("key") == key:
                return option, result
    return None


def _option_period(key: str, *revisions: PlanRevision) -> dict[str, Any]:
    """{"period": "for 12 months", "economical": bool, "feasible": bool} of the option in
    the first revision that has it (app.quotes.document.period_text): an option whose
    machines cannot hold the plan is said to be so, as the plan page says it (its total sat
    below the "cheapest option" above it, unexplained)."""
    from app.quotes.document import period_text

    found = _find_option(key, revisions)
    if found is None:
        return {"period": "", "economical": True, "feasible": True}
    option, _result = found
    return {
        "period": period_text(option),
        "economical": option.get("economical") is not False,
        "feasible": option.get("feasible") is not False,
    }


def option_names(*revisions: PlanRevision) -> dict[str, str]:
    """Every cost option of `revisions` by key, named as the quote document names it
    (`document.option_labels_of`): no catalog ids, each rental's provider said where another
    provider rents the same."""
    from app.quotes.document import option_labels_of

    return option_labels_of([rev.result or {} for rev in revisions])


def _option_label(key: str, *revisions: PlanRevision) -> str:
    """A cost option named as the quote document names it ('Hourly rent · 1 × NVIDIA H100
    SXM5 80GB'), from the first revision that has it: no catalog ids, no engine English."""
    from app.quotes.document import option_label

    found = _find_option(key, revisions)
    if found is None:
        return costs_view.option_name({"kind": key.split(":")[0]})
    option, result = found
    hours = float((result.get("cost") or {}).get("hours_per_month") or 730.0)
    return option_label(option, result.get("gpu") or {}, hours)


def _diff_value(
    session: Session, field: str, value: Any, currency: str, book: PriceBook | None = None
) -> str:
    """A changed field's value as the diff shows it: a price list by its name (not its id),
    the cheapest total as money, anything else as `field_value` writes it."""
    from app.web.templating import money

    if value is None or value == "":
        return field_value(field, value)
    if field == "price_list_id":
        try:
            return catalog.get_price_list(session=session, price_list_id=int(value)).name
        except catalog.NotFound:  # a draft list deleted since
            return field_value(field, value)
    if field == "quote.currency":
        # By name, as the customer's page lists it (QA read "報價幣別 TWD → USD").
        from app.customers.views import CURRENCY_NAMES

        named = dict(CURRENCY_NAMES).get(str(value))
        return _(named) if named else field_value(field, value)
    if field == "result.cheapest_total" and isinstance(value, (int, float)):
        return money(value, currency or "TWD")
    if field == "customer_id":
        # The customer by name, as the plan page says it (QA read "Customer record — 1").
        found = session.get(Customer, value) if isinstance(value, int) else None
        return found.name if found is not None else _("a customer since deleted")
    if field == "quote.tax_rate":  # stored as a share, 0.05; read as 營業稅 5%
        try:
            return f"{number_text(float(value) * 100)}%"
        except (TypeError, ValueError):
            return field_value(field, value)
    return field_value(field, value, book)


def quote_changes(a: PlanRevision, b: PlanRevision) -> dict[str, Any] | None:
    """The quote's lines in two revisions, as printed (description, amount), matched by the
    option or free line they quote: a line only in `a` was taken out (a reprice with a list
    that does not offer its option), a line only in `b` was added. None without a quote."""
    from app.quotes import document, pricing

    if not a.quote and not b.quote:
        return None

    def printed(rev: PlanRevision) -> dict[tuple[str, str], dict[str, Any]]:
        if not rev.quote:
            return {}
        cost = (rev.result or {}).get("cost") or {}
        shown = document.quote_lines(
            rev.quote,
            list(cost.get("options") or []),
            (rev.result or {}).get("gpu") or {},
            float(cost.get("hours_per_month") or 730.0),
        )
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for stored, line in zip(rev.quote.get("lines") or [], shown, strict=True):
            key = (str(stored.get("option_key") or ""), str(stored.get("description") or ""))
            while key in out:  # the same option quoted twice: keep both, in order
                key = (key[0], key[1] + "\u0000")
            out[key] = {**line, "stored": stored}
        return out

    before, after = printed(a), printed(b)
    rows = []
    for key in dict.fromkeys([*before, *after]):
        x, y = before.get(key), after.get(key)
        now = (y or {}).get("stored") or {}
        listed = pricing.dec(now.get("list_price") or 0)
        rows.append(
            {
                "description": (y or x or {}).get("description") or "—",
                "before": x["amount"] if x else None,
                "after": y["amount"] if y else None,
                "removed": y is None,
                "added": x is None,
                # A typed unit price below its option's own: a discount the approval
                # limit judges (after a workload change, against the new option's price).
                "list_price": listed
                if now.get("option_key") and 0 < pricing.dec(now.get("unit_price") or 0) < listed
                else None,
            }
        )
    # Each side in its own currency (a quote moved to a USD customer was in NT$ before);
    # a difference only between amounts in one currency.
    ca = str((a.quote or {}).get("currency") or "TWD")
    cb = str((b.quote or {}).get("currency") or ca)
    return {
        "rows": rows,
        "currency_before": ca,
        "currency_after": cb,
        "comparable": ca == cb,
        "total_before": pricing.totals(a.quote).total if a.quote else None,
        "total_after": pricing.totals(b.quote).total if b.quote else None,
    }


def _result_currency(rev: PlanRevision) -> str:
    return str(((rev.result or {}).get("cost") or {}).get("currency") or "TWD")


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
    price_list_id: int | None = None
    #: What the scenario's quote asks, tax included (`quote_totals.total`), its currency and
    #: the option its largest line quotes; None without lines. QA: three plans quoting rent,
    #: buying and the cloud read alike, the page showing only each one's cheapest option.
    quoted_total: str | None = None
    quoted_currency: str = "TWD"
    quoted_name: str = ""
    #: The quoted option's figures (`presenters.quoted_figures`): the column's rate, period
    #: total, curve and break-even describe it; None where no option line is quoted, and the
    #: column shows the plan's cheapest option, named so.
    quoted: Quoted | None = None
    #: Where the quote stands, beside its total (`quote_status`): a sent plan repriced since
    #: listed its new total as if the customer had been asked it (QA).
    quote_status: str = ""

    @property
    def period_total(self) -> float | None:
        """The column's total for its period, excl. tax: the quoted option's (a purchase: its
        cost of ownership), else the plan's cheapest option's."""
        return self.quoted.total if self.quoted is not None else self.kf.total


#: The most a chart legend gives one scenario's name, in Latin letters (a CJK character
#: counts twice): longer names end in "…" (the table above names them in full).
LEGEND_WIDTH: Final = 34


def short_name(name: str, width: int = LEGEND_WIDTH) -> str:
    """`name` cut at a word (or, in CJK, a character) to fit `width`, with "…" when cut."""

    def w(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    if w(name) <= width:
        return name
    out = ""
    for ch in name:
        if w(out + ch) > width - 1:
            break
        out += ch
    cut_inside_a_word = not name[len(out)].isspace()
    if cut_inside_a_word and " " in out and w(out) > width // 2:  # end at a word
        out = out[: out.rstrip().rfind(" ")]
    return out.rstrip(" ·:,(→-–") + "…"


def quote_status(*, session: Session, plan: Plan, version: int) -> str:
    """Where version `version` of `plan`'s quote stands, in the page's language: the plan's
    status for its latest version, said with what the customer's link still asks where that
    version is a sent quote's unsent revision (`quotes.unsent_revision`); for an earlier
    version, whether it is the one sent."""
    from app.quotes import service as quotes
    from app.web.templating import money

    numbered = service.editions(session=session, plan_id=plan.id)
    if version != plan.version:
        if version == plan.sent_version:
            return _("Sent as the customer's version %(n)s") % {"n": numbered.of(version)}
        return _("An earlier version")
    unsent = quotes.unsent_revision(session=session, plan=plan)
    if unsent is None:
        return _(STATUS_NAMES[plan.status])
    if unsent.sent_total is None:
        return _("Not sent: the customer has version %(n)s") % {"n": unsent.sent_edition}
    return _("Not sent: the customer has version %(n)s at %(total)s (incl. tax)") % {
        "n": unsent.sent_edition,
        "total": money(unsent.sent_total.total, unsent.sent_total.currency),
    }


def missing_compared(*, session: Session, items: Sequence[tuple[int, int | None]]) -> str:
    """'' when every plan (and version) to compare exists, else a sentence naming the first
    that does not, in the page's language."""
    for pid, ver in items:
        try:
            plan = service.get_plan(session=session, plan_id=pid)
            if ver is not None and ver != plan.version:
                service.get_revision(session=session, plan_id=pid, version=ver)
        except service.NotFound:
            if ver is None or session.get(Plan, pid) is None:
                return _("There is no plan %(id)s: it may have been deleted. Compare the others "
                         "from the plan list.") % {"id": pid}  # fmt: skip
            return _("Plan %(id)s has no version %(version)s.") % {"id": pid, "version": ver}
    return ""


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
        quote = src.quote or {}
        lines = quote.get("lines") or []
        asked = pricing.totals(quote).public() if lines else None
        book = _book(session, src.price_list_id)
        quoted = quoted_figures(src.result or {}, quote, book)
        scenarios.append(
            Scenario(
                plan,
                version,
                src.name,
                dict(src.workload),
                dict(src.result),
                key_figures(src.result, book),
                href,
                src.price_list_id,
                quoted_total=str(asked["total"]) if asked else None,
                quoted_currency=str(asked["currency"]) if asked else "TWD",
                quoted_name=quoted.name if quoted else "",
                quoted=quoted,
                quote_status=quote_status(session=session, plan=plan, version=version),
            )
        )
    books = [_book(session, s.price_list_id) for s in scenarios]
    inputs = compare_inputs([s.workload for s in scenarios], books)
    # Each column's total is what its quote quotes (a purchase: its cost of ownership), so
    # "the cheapest" compares like with like: a quote to buy is not the 36-month rent beside it.
    totals = [s.period_total for s in scenarios if s.period_total]
    cheapest = min(totals) if totals else None
    ccy = scenarios[0].kf.currency if scenarios else "TWD"
    options = []
    for i, s in enumerate(scenarios):
        o = s.quoted.option if s.quoted is not None else s.kf.cheapest
        if o and o.get("cumulative"):
            options.append(
                {
                    "key": f"s{i}",
                    "kind": str(o.get("kind") or "rent_monthly"),
                    "label": f"{chr(65 + i)}: {short_name(s.name)}",
                    "cumulative": list(o["cumulative"]),
                    "total": o.get("total"),
                    "monthly_rate": o.get("monthly_rate", o.get("monthly")),
                    # a purchase's curve drops by its resale in its last month (`_resale`)
                    "billed": o.get("billed"),
                    "breakdown": o.get("breakdown"),
                }
            )
    rows = []
    untimed = []
    for i, s in enumerate(scenarios):
        letter = chr(65 + i)
        sched = s.result.get("schedule")
        if sched:
            phases = [
                {**p, "label": phase_name(p, p, n)} for n, p in enumerate(sched.get("phases") or [])
            ]
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
            # A service runs as long as it is rented: no bar (its length would be the
            # rental period, not a time to finish); the page says why it is missing.
            untimed.append(letter)
            continue
        rows.append((letter, phases))
    return {
        "nav_active": "plans",
        "scenarios": scenarios,
        "inputs": inputs,
        "cheapest_total": cheapest,
        "any_quoted": any(s.quoted is not None for s in scenarios),
        # Where a quote is not for its plan's cheapest option, that option is shown too, as
        # the cheapest alternative (never as what is quoted).
        "alternatives": any(s.quoted is not None and not s.quoted.is_cheapest for s in scenarios),
        "currency": ccy,
        "tier_names": planner.TIER_NAMES,
        "error": error,
        "untimed": untimed,
        "charts": {
            "cumulative": figures.cumulative(options, [], ccy) if options else None,
            "timeline": figures.timeline(rows) if any(p for _n, p in rows) else None,
        },
    }


# --------------------------------------------------------------------------------------------
# Saving from the pages
# --------------------------------------------------------------------------------------------


def planner_url(plan: Plan) -> str | None:
    """/plan with the plan's workload as the form's values, and the plan to revise (None for
    a phased plan: the planner edits one workload)."""
    from urllib.parse import urlencode

    w = plan.workload or {}
    if schedule.is_schedule(w):
        return None
    values = planner.form_query(w)
    values.update(revise=str(plan.id), version=str(plan.version))
    return "/plan?" + urlencode(values)
