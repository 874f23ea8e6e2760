"""Plan pages (server-rendered, HTMX-enhanced) for sales and admins.

* `/plans` list: search (an HTMX request gets only the table), filters, sort links that work
  without JavaScript, pagination.
* `/plans/new` (POST from the planner's "Save as plan"), `/plans/{id}` (summary, results,
  history, actions), `/plans/{id}/edit`, `/plans/{id}/diff?a=&b=`.
* `/compare?ids=1,2` or `?rev=ID:VERSION` — two to four scenarios side by side;
  `POST /compare/t16` saves seed T16's two scenarios and opens their comparison.

Every POST carries the CSRF token; every route needs a sales or admin user. Permission to
change a plan is decided by `app.plans.service` (owner or admin).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.web import SalesPageUser
from app.catalog.current import price_book
from app.deps import SessionDep, SettingsDep
from app.engine.estimate import InputError
from app.errors import InvalidNested
from app.ids import DbId
from app.planner import views as planner
from app.plans import builder, forms, service, views
from app.plans.models import Plan
from app.quotes import views as quote_views
from app.web import htmx
from app.web.csrf import CsrfDep
from app.web.forms import PostedFields, PostedText, message_for, parse_id
from app.web.notices import form_message
from app.web.templating import activate, choose_currency, is_fragment, render

router = APIRouter(include_in_schema=False)


def _planner_again(
    request: Request, form: dict[str, str], status: int, **extra: object
) -> Response:
    """The planner as posted (its form, results and save cards) for a save from it that did
    not go through: nothing typed is lost, and `extra` says why beside the card."""
    lang = activate(request)
    ctx = planner.plan_page(
        form, currency=choose_currency(request), book=price_book(request), lang=lang
    )
    return render(request, "pages/plan.html", {**ctx, **extra}, status_code=status)


def _see(url: str) -> Response:
    return RedirectResponse(url, status_code=303)


@router.get("/plans")
def plans_list(request: Request, session: SessionDep, user: SalesPageUser) -> Response:
    """Saved plans: search, filters, sort and pages (HTMX: the table block only)."""
    ctx = views.list_context(session=session, params=request.query_params, user=user)
    return render(request, "plans/list.html", ctx, "table" if is_fragment(request) else None)


@router.post("/plans/new")
def plans_new(
    request: Request, session: SessionDep, user: SalesPageUser, _csrf: CsrfDep, form: PostedText
) -> Response:
    """Save the planner's workload as a new plan, then open it."""
    try:
        plan, errors = forms.save_from_planner(
            session=session, form=form, user=user, currency=choose_currency(request)
        )
    except (InputError, service.Invalid, InvalidNested):
        # What the engine refuses (0 training tokens, TP 3 on 32 heads, an unknown preset):
        # the planner as posted says it beside the field, as GET /plan does; the bare error
        # page lost every typed value (QA).
        kept = {k: form.get(k, "") for k in ("name", "customer")}
        return _planner_again(request, form, 422, save_values=kept)
    if plan is None:
        # The planner again, as posted, with the errors beside the fields they name.
        kept = {k: form.get(k, "") for k in ("name", "customer")}
        return _planner_again(request, form, 422, save_errors=errors, save_values=kept)
    return _see(f"/plans/{plan.id}")


@router.get("/plans/{plan_id}")
def plan_detail(
    plan_id: DbId, request: Request, session: SessionDep, user: SalesPageUser, settings: SettingsDep
) -> Response:
    """One plan: summary, quote builder, results, notes, revision history and actions."""
    return detail_page(request, session, user, settings, plan_id)


def detail_page(
    request: Request,
    session: SessionDep,
    user: SalesPageUser,
    settings: SettingsDep,
    plan_id: int,
    *,
    status: int = 200,
    extra: dict[str, Any] | None = None,
) -> Response:
    """The plan page, with `extra` context (an action's error beside its form) and `status`
    (422 for a refused action)."""
    ctx = views.detail_context(
        session=session,
        plan_id=plan_id,
        user=user,
        currency=choose_currency(request),
        conflict=request.query_params.get("conflict"),
    )
    ctx.update(
        quote_views.builder_context(
            session=session,
            plan=ctx["plan"],
            user=user,
            limit_pct=settings.sales_discount_limit_pct,
        )
    )
    ctx.update(extra or {})
    return render(request, "plans/detail.html", ctx, status_code=status)


@router.get("/plans/{plan_id}/edit")
def plan_edit_form(
    plan_id: DbId, request: Request, session: SessionDep, user: SalesPageUser
) -> Response:
    """The edit form (name, customer, status, tags, notes) with the version it is based on;
    for someone who may not change the plan, a page that says who can (403), before they
    type anything."""
    plan = service.get_plan(session=session, plan_id=plan_id)
    if not service.can_edit(user, plan):
        return _read_only(request, session, plan)
    ctx = {"nav_active": "plans", "plan": plan, "values": forms.edit_values(plan), "errors": {}}
    return render(request, "plans/edit.html", {**ctx, **forms.form_choices(plan)})


def _read_only(request: Request, session: SessionDep, plan: Plan) -> Response:
    """The edit page of a plan the user may not change: who can, and the way to a copy of
    their own (a 403)."""
    ctx = {
        "nav_active": "plans",
        "plan": plan,
        "read_only": True,
        **views.owner_context(session, plan),
    }
    return render(request, "plans/edit.html", ctx, status_code=403)


def _editable(session: SessionDep, user: SalesPageUser, plan_id: int) -> Plan:
    """The plan, when `user` may change it; else Forbidden, before any input is read."""
    plan = service.get_plan(session=session, plan_id=plan_id)
    service.require_edit(user, plan)
    return plan


@router.post("/plans/{plan_id}/edit")
def plan_edit(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    user: SalesPageUser,
    _csrf: CsrfDep,
    form: PostedFields,
) -> Response:
    """Save the edit; a stale version re-shows the form with the user's input and what changed."""
    plan = service.get_plan(session=session, plan_id=plan_id)
    if not service.can_edit(user, plan):
        return _read_only(request, session, plan)
    ctx = forms.save_edit(session=session, plan_id=plan_id, form=form, user=user)
    if ctx is None:
        return _see(f"/plans/{plan_id}")
    return render(request, "plans/edit.html", ctx, status_code=ctx["status"])


@router.post("/plans/{plan_id}/status")
def plan_status(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    user: SalesPageUser,
    settings: SettingsDep,
    _csrf: CsrfDep,
    form: PostedFields,
) -> Response:
    """Change the plan's status (draft, sent, accepted, lost); a refusal is said beside it."""
    _editable(session, user, plan_id)
    activate(request)
    try:
        return _see(forms.set_status(session=session, plan_id=plan_id, form=form, user=user))
    except forms.StatusRefused as e:
        extra = {"status_error": e.message}
        return detail_page(request, session, user, settings, plan_id, status=e.status, extra=extra)


@router.post("/plans/{plan_id}/duplicate")
def plan_duplicate(
    plan_id: DbId, session: SessionDep, user: SalesPageUser, _csrf: CsrfDep
) -> Response:
    """Copy the plan into a new draft owned by the current user."""
    plan = service.duplicate_plan(session=session, plan_id=plan_id, actor=user)
    return _see(f"/plans/{plan.id}")


@router.post("/plans/{plan_id}/archive")
def plan_archive(
    plan_id: DbId, session: SessionDep, user: SalesPageUser, _csrf: CsrfDep
) -> Response:
    """Archive the plan (hidden from the default list, history kept)."""
    service.archive_plan(session=session, plan_id=plan_id, actor=user)
    return _see(f"/plans/{plan_id}")


@router.post("/plans/{plan_id}/restore")
def plan_restore(
    plan_id: DbId, session: SessionDep, user: SalesPageUser, _csrf: CsrfDep
) -> Response:
    """Bring an archived plan back to the list."""
    service.restore_plan(session=session, plan_id=plan_id, actor=user)
    return _see(f"/plans/{plan_id}")


@router.post("/plans/{plan_id}/reprice")
def plan_reprice(
    plan_id: DbId,
    session: SessionDep,
    user: SalesPageUser,
    settings: SettingsDep,
    _csrf: CsrfDep,
) -> Response:
    """Re-price with the current price list as a new revision (the quote too); show the
    totals before/after and what the quote lost."""
    r = service.reprice_plan(
        session=session,
        plan_id=plan_id,
        actor=user,
        quote_defaults=service.QuoteDefaults.from_settings(settings),
    )
    return _see(f"/plans/{plan_id}/diff?a={r.plan.version - 1}&b={r.plan.version}")


@router.get("/plans/{plan_id}/diff")
def plan_diff(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    user: SalesPageUser,
    a: DbId | None = None,
    b: DbId | None = None,
) -> Response:
    """What changed between two revisions, with the cost totals before and after."""
    ctx = views.diff_context(session=session, plan_id=plan_id, a=a, b=b)
    return render(request, "plans/diff.html", ctx)


@router.get("/compare")
def compare(request: Request, session: SessionDep, user: SalesPageUser) -> Response:
    """Two to four plans (or revisions) side by side, with overlaid charts; by id, quote
    number or the plan list's tick boxes."""
    # Ids come typed (`ids=1,2`, or the quote numbers users see: `Q-2026-000012`) or as
    # one `ids` per ticked box of the plan list.
    ids = service.ids_for_quote_numbers(
        session=session, text=",".join(request.query_params.getlist("ids"))
    )
    items, error = forms.parse_compare(ids, request.query_params.getlist("rev"))
    missing = views.missing_compared(session=session, items=items)
    if missing:
        # Named, on the compare page: the generic 404 "no page at this address" did not say
        # which of the plans was gone (QA: ?ids=1,99999).
        ctx = views.compare_context(session=session, items=[], error=missing)
        return render(request, "plans/compare.html", ctx, status_code=404)
    ctx = views.compare_context(session=session, items=items, error=error)
    return render(request, "plans/compare.html", ctx, status_code=422 if error else 200)


@router.post("/compare/t16")
def compare_t16(
    request: Request, session: SessionDep, user: SalesPageUser, _csrf: CsrfDep
) -> Response:
    """Save seed T16's two scenarios as plans of the current user and compare them."""
    plans = service.create_t16_example(
        session=session, owner=user, currency=choose_currency(request)
    )
    return _see("/compare?ids=" + ",".join(str(p.id) for p in plans))


@router.post("/plans/{plan_id}/workload")
def plan_workload(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    user: SalesPageUser,
    _csrf: CsrfDep,
    form: PostedText,
) -> Response:
    """Save the planner's workload as a new revision of the plan, then show the diff."""
    _editable(session, user, plan_id)
    version = parse_id(form.get("version")) or 0  # not a version: stale (409) like any other
    try:
        plan = forms.save_workload(
            session=session,
            plan_id=plan_id,
            form=form,
            user=user,
            version=version,
        )
    except service.Conflict as e:
        # Saved by someone else since: the planner keeps the workload, and saving again
        # makes it the version after the current one (knowingly).
        activate(request)
        stale = e.form_message(version)
        revise = {"id": str(plan_id), "version": str(e.current_version)}
        return _planner_again(request, form, 409, revise=revise, revise_error=stale)
    except InputError:
        # What the engine refuses (a GPU the select never offered): the planner as posted
        # says it beside the field, as GET /plan does; the bare error page lost every typed
        # value (QA).
        revise = {"id": str(plan_id), "version": str(version)}
        return _planner_again(request, form, 422, revise=revise)
    except (service.Invalid, service.Decided, InvalidNested) as e:
        activate(request)
        revise = {"id": str(plan_id), "version": str(version)}
        said = (
            message_for(e.errors[0])
            if isinstance(e, InvalidNested) and e.errors
            else form_message(e.message_id, e.params)
        )
        return _planner_again(request, form, e.status, revise=revise, revise_error=said)
    if plan.version == version:  # nothing changed, no revision: not a diff with itself
        return _see(f"/plans/{plan_id}")
    return _see(f"/plans/{plan_id}/diff?a={version}&b={plan.version}")


@router.post("/plans/{plan_id}/phases")
def plan_phases(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: SalesPageUser,
    _csrf: CsrfDep,
    form: PostedText,
) -> Response:
    """The phase builder: add, move or remove a phase and see the costs (not saved), or save
    the phases as a new revision and show its diff; errors re-render it inline (422)."""
    activate(request)
    plan = _editable(session, user, plan_id)
    out = builder.post(session=session, plan=plan, form=form, user=user)
    if out.redirect:
        return htmx.redirect(out.redirect) if is_fragment(request) else _see(out.redirect)
    status = out.status
    ctx = views.phase_builder_context(
        session=session, plan=plan, values=out.values, errors=out.errors, preview=out.preview
    )
    if is_fragment(request):
        return render(request, "plans/_phases.html", {"plan": plan, **ctx}, status_code=status)
    full = views.detail_context(
        session=session, plan_id=plan_id, user=user, currency=choose_currency(request)
    )
    full.update(
        quote_views.builder_context(
            session=session, plan=plan, user=user, limit_pct=settings.sales_discount_limit_pct
        )
    )
    return render(request, "plans/detail.html", {**full, **ctx}, status_code=status)
