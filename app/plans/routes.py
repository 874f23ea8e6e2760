"""JSON API v1: saved plans (quotes). Every route needs a bearer token.

Who may do what is decided in `app.plans.service` (read: everyone signed in; change: the
owner or an admin).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, status

from app.accounts.deps import ApiUser
from app.deps import SessionDep, SettingsDep
from app.ids import DbId
from app.plans import service
from app.plans.models import (
    STATUSES,
    ConflictOut,
    CostDelta,
    DuplicateIn,
    FieldChange,
    OptionTotalChange,
    PlanCreate,
    PlanPage,
    PlanPublic,
    PlanRevision,
    PlanSaved,
    PlanSummary,
    PlanUpdate,
    QuoteLineChange,
    QuoteTotalsAt,
    QuoteTotalsChange,
    RemovedLine,
    RepriceIn,
    RepriceOut,
    RevisionDiff,
    RevisionPublic,
    StatusName,
    TierName,
    VersionCheckIn,
)
from app.quotes import pricing
from app.quotes import service as quotes_service
from app.quotes.models import QuoteIn

router = APIRouter(
    prefix="/api/v1/plans",
    tags=["plans"],
    responses={
        401: {"description": "No token, or an invalid or revoked one."},
        404: {"description": "No such plan."},
    },
)
_FORBIDDEN: dict[int | str, dict[str, Any]] = {
    403: {"description": "Only the owner or an admin may change this plan."}
}
_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": ConflictOut, "description": "Saved by someone else since `version`."},
    **_FORBIDDEN,
}


@router.post("", status_code=status.HTTP_201_CREATED, response_model=PlanPublic)
def create_plan(
    body: PlanCreate, session: SessionDep, user: ApiUser, settings: SettingsDep
) -> PlanPublic:
    """Save a workload as a new plan, priced with the current price list (version 1)."""
    plan = service.create_plan(
        session=session,
        owner=user,
        quote_defaults=service.QuoteDefaults.from_settings(settings),
        **dict(body),
    )
    return quotes_service.public(session=session, plan=plan)


@router.get("", response_model=PlanPage)
def list_plans(
    session: SessionDep,
    _: ApiUser,
    search: Annotated[
        str | None,
        Query(description="In name, customer, quote number or the customer's 統一編號."),
    ] = None,
    status: Annotated[StatusName | None, Query(description=" | ".join(STATUSES))] = None,
    customer: Annotated[str | None, Query(description="Exact customer name.")] = None,
    customer_id: Annotated[DbId | None, Query(description="The customer's id.")] = None,
    owner_id: Annotated[DbId | None, Query()] = None,
    tier: Annotated[
        TierName | None, Query(description="single_gpu | multi_gpu | multi_node")
    ] = None,
    archived: Annotated[bool, Query(description="List archived plans instead.")] = False,
    sort: Annotated[str, Query(description="Field, '-' prefix for descending.")] = "-updated_at",
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=service.MAX_PER_PAGE)] = 25,
) -> PlanPage:
    """List plans (without workload and result), filtered, sorted and paginated."""
    p = service.list_plans(
        session=session,
        search=search,
        status=status,
        customer=customer,
        customer_id=customer_id,
        owner_id=owner_id,
        tier=tier,
        archived=archived,
        sort=sort,
        page=page,
        per_page=per_page,
    )
    items = [PlanSummary.model_validate(x, from_attributes=True) for x in p.items]
    return PlanPage(items=items, total=p.total, page=p.page, per_page=p.per_page)


@router.get("/{plan_id}", response_model=PlanPublic)
def get_plan(plan_id: DbId, session: SessionDep, _: ApiUser) -> PlanPublic:
    """One plan with its version, workload and computed result."""
    return quotes_service.public(
        session=session, plan=service.get_plan(session=session, plan_id=plan_id)
    )


@router.put("/{plan_id}", response_model=PlanSaved, responses=_CONFLICT)
def update_plan(
    plan_id: DbId, body: PlanUpdate, session: SessionDep, user: ApiUser, settings: SettingsDep
) -> PlanSaved:
    """Save changes made on top of `version`; 409 with what changed if someone saved since.
    A new workload moves the quote's option lines with it (`quote_changes`, `removed_lines`)."""
    changes = body.changes()
    if body.quote is not None:
        changes["quote"] = _quote_with_saved_fields(session, plan_id, body.quote)
    saved = service.save_plan(
        session=session,
        plan_id=plan_id,
        expected_version=body.version,
        changes=changes,
        actor=user,
        quote_defaults=service.QuoteDefaults.from_settings(settings),
    )
    out = quotes_service.public(session=session, plan=saved.plan)
    return PlanSaved(
        **dict(out),
        quote_changes=[QuoteLineChange(**x) for x in saved.quote_lines],
        removed_lines=[RemovedLine(**x) for x in saved.removed_lines],
    )


def _quote_with_saved_fields(session: SessionDep, plan_id: int, quote: QuoteIn) -> QuoteIn:
    """The quote a PUT gives, its left-out fields as saved (absent = unchanged, as for the
    plan's other fields). QA: `{"quote": {"tax_rate": "0.05"}}` emptied the quote's three
    lines and reset its payment terms to the default. The saved quote is read back as input
    (`service.quote_input`, as a duplicate reads it); a plan saved since fails the version
    check of the save itself."""
    given = quote.model_fields_set
    stored = service.get_plan(session=session, plan_id=plan_id).quote
    if not stored or given >= set(QuoteIn.model_fields):
        return quote
    saved = service.quote_input(stored)
    return QuoteIn.model_validate(
        {**{k: v for k, v in saved.items() if k not in given},
         **{k: getattr(quote, k) for k in given}}
    )  # fmt: skip


@router.get("/{plan_id}/revisions", response_model=list[RevisionPublic])
def list_revisions(plan_id: DbId, session: SessionDep, _: ApiUser) -> list[PlanRevision]:
    """Every saved version of the plan, oldest first."""
    return service.list_revisions(session=session, plan_id=plan_id)


@router.get("/{plan_id}/diff", response_model=RevisionDiff)
def diff_revisions(
    plan_id: DbId,
    session: SessionDep,
    _: ApiUser,
    from_version: Annotated[DbId, Query(alias="from")],
    to_version: Annotated[DbId, Query(alias="to")],
) -> RevisionDiff:
    """What changed between two versions of the plan, field by field, with the money: the
    quote's totals in each and the cost options whose totals changed."""
    cmp = service.compare_revisions(
        session=session, plan_id=plan_id, from_version=from_version, to_version=to_version
    )
    return RevisionDiff(
        from_version=from_version,
        to_version=to_version,
        changes=[FieldChange(field=f, before=x, after=y) for f, x, y in cmp.changes],
        quote_totals=_quote_totals(cmp.a, cmp.b),
        currency=cmp.currency,
        options=_changed_options(cmp),
    )


def _quote_totals(a: PlanRevision, b: PlanRevision) -> QuoteTotalsChange | None:
    """Each version's quote totals (None without lines), None when neither has lines."""

    def at(rev: PlanRevision) -> QuoteTotalsAt | None:
        if not (rev.quote or {}).get("lines"):
            return None
        t = pricing.totals(rev.quote or {})
        return QuoteTotalsAt(
            subtotal=str(t.subtotal), tax=str(t.tax), total=str(t.total), currency=t.currency
        )

    before, after = at(a), at(b)
    return (
        None if before is None and after is None else QuoteTotalsChange(before=before, after=after)
    )


def _changed_options(cmp: service.RevisionComparison) -> list[OptionTotalChange]:
    """The options whose totals differ, named as the quote document names them."""
    from app.quotes.document import option_labels_of

    names = option_labels_of([cmp.b.result or {}, cmp.a.result or {}])
    return [
        OptionTotalChange(
            key=o["key"],
            label=names.get(o["key"], o["label"]),
            before=o["before"],
            after=o["after"],
        )
        for o in cmp.options
        if o["before"] != o["after"]
    ]


@router.post("/{plan_id}/duplicate", status_code=201, response_model=PlanPublic)
def duplicate_plan(
    plan_id: DbId, session: SessionDep, user: ApiUser, body: DuplicateIn | None = None
) -> PlanPublic:
    """Copy the plan into a new draft owned by you (same workload and prices), named `name`
    or, without one, the source's name with "(copy)"."""
    name = body.name if body is not None else None
    plan = service.duplicate_plan(session=session, plan_id=plan_id, actor=user, name=name)
    return quotes_service.public(session=session, plan=plan)


@router.post("/{plan_id}/archive", response_model=PlanPublic, responses=_CONFLICT)
def archive_plan(
    plan_id: DbId, session: SessionDep, user: ApiUser, body: VersionCheckIn | None = None
) -> PlanPublic:
    """Archive the plan: hidden from the default list, kept with its history. With
    `version`, a 409 when the plan changed since that version."""
    version = body.version if body is not None else None
    plan = service.archive_plan(
        session=session, plan_id=plan_id, actor=user, expected_version=version
    )
    return quotes_service.public(session=session, plan=plan)


@router.post("/{plan_id}/restore", response_model=PlanPublic, responses=_CONFLICT)
def restore_plan(
    plan_id: DbId, session: SessionDep, user: ApiUser, body: VersionCheckIn | None = None
) -> PlanPublic:
    """Bring an archived plan back to the list. With `version`, a 409 when the plan changed
    since that version."""
    version = body.version if body is not None else None
    plan = service.restore_plan(
        session=session, plan_id=plan_id, actor=user, expected_version=version
    )
    return quotes_service.public(session=session, plan=plan)


@router.post("/{plan_id}/reprice", response_model=RepriceOut, responses=_CONFLICT)
def reprice_plan(
    plan_id: DbId,
    session: SessionDep,
    user: ApiUser,
    settings: SettingsDep,
    body: RepriceIn | None = None,
) -> RepriceOut:
    """Recompute with the current (or a given) price list, the quote's option lines at that
    list's prices; returns cost totals before/after and the quote lines it cannot price."""
    body = body or RepriceIn()
    r = service.reprice_plan(
        session=session,
        plan_id=plan_id,
        actor=user,
        price_list_id=body.price_list_id,
        expected_version=body.version,
        quote_defaults=service.QuoteDefaults.from_settings(settings),
    )
    return RepriceOut(
        plan=quotes_service.public(session=session, plan=r.plan),
        price_list_before=r.price_list_before,
        price_list_after=r.price_list_after,
        currency=r.currency,
        options=[CostDelta(**o) for o in r.options],
        cheapest_before=r.cheapest_before,
        cheapest_after=r.cheapest_after,
        cheapest_delta=r.cheapest_delta,
        removed_lines=[RemovedLine(**x) for x in r.removed_lines],
        quote_total_before=r.quote_total_before,
        quote_total_after=r.quote_total_after,
        quote_currency=r.quote_currency,
    )
