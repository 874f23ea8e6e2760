"""Quote builder pages on a saved plan: save the quote, send it, approve its discount.

`POST /plans/{id}/quote` reads the builder form: "add line" / "remove line i" re-render the
builder (HTMX swaps the section) without saving; "save" validates and saves a new revision,
or re-renders with inline errors in the page's language (422).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from app import errors
from app.accounts.web import AdminPageUser, SalesPageUser
from app.deps import SessionDep, SettingsDep
from app.i18n import N_
from app.i18n import gettext as _
from app.ids import DbId
from app.plans import service as plans
from app.plans import views as plan_views
from app.quotes import service, views
from app.web.csrf import CsrfDep
from app.web.forms import PostedText, parse_id, posted_version
from app.web.templating import activate, choose_currency, is_fragment, render

router = APIRouter(include_in_schema=False)


def _builder(
    request: Request,
    session: SessionDep,
    settings: Any,
    plan_id: DbId,
    user: Any,
    values: dict[str, Any] | None,
    errs: dict[str, str],
    status: int = 200,
) -> Response:
    plan = plans.get_plan(session=session, plan_id=plan_id)
    ctx = views.builder_context(
        session=session,
        plan=plan,
        user=user,
        limit_pct=settings.sales_discount_limit_pct,
        values=values,
        errors=errs,
        seller_tax_id=settings.company_tax_id,
    )
    if is_fragment(request):
        return render(
            request, "quotes/_builder_swap.html", {"plan": plan, **ctx}, status_code=status
        )
    full = plan_views.detail_context(
        session=session, plan_id=plan_id, user=user, currency=choose_currency(request)
    )
    return render(request, "plans/detail.html", {**full, **ctx}, status_code=status)


@router.post("/plans/{plan_id}/quote")
def save_quote(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: SalesPageUser,
    _csrf: CsrfDep,
    form: PostedText,
) -> Response:
    """Add or remove a builder line (not saved), or save the quote as a new revision."""
    # Who may not change the plan is told so before anything they posted is checked.
    plans.require_edit(user, plans.get_plan(session=session, plan_id=plan_id))
    activate(request)
    values, form_errs = views.values_from_form(form)
    action = form.get("action", "save")
    if action != "save":
        values = views.apply_action(values, action)
        over = views.lines_over_limit(values)
        return _builder(
            request, session, settings, plan_id, user, values, over, 422 if over else 200
        )
    if form_errs:  # no line count, or past MAX_LINES lines: nothing is saved
        return _builder(request, session, settings, plan_id, user, values, form_errs, 422)
    # Every input's problem in one answer (QA: a line discount of 150 % was named, a validity
    # date in the past only on the next save).
    errs: dict[str, str] = {}
    try:
        quote = views.quote_in(values)
    except ValidationError as e:
        errs.update(views.errors_of(e))
    if "valid_until" not in errs:
        errs.update(views.validity_errors(values, plans.today()))
    customer_id = parse_id(values["customer_id"]) if values["customer_id"] else None
    if values["customer_id"] and customer_id is None:
        errs["customer_id"] = _("Choose one of the listed options.")
    if errs:
        return _builder(request, session, settings, plan_id, user, values, errs, 422)
    changes: dict[str, Any] = {"quote": quote}
    if customer_id is not None:
        changes["customer_id"] = customer_id
    plan = plans.get_plan(session=session, plan_id=plan_id)
    # No version: the one on screen; one the plan never had keeps the typed lines (409).
    version = posted_version(form.get("version"), plan.version)
    if version is None:
        unknown = _(plans.UNKNOWN_FORM_VERSION) % {"new": plan.version}
        return _builder(request, session, settings, plan_id, user, values, {"send": unknown}, 409)
    try:
        plans.update_plan(
            session=session,
            plan_id=plan_id,
            expected_version=version,
            changes=changes,
            actor=user,
            quote_defaults=plans.QuoteDefaults.from_settings(settings),
        )
    except plans.Decided as e:
        # Answered while the builder was open: say why above it, in the page's language, with
        # the typed lines still there to copy into a duplicate (QA: they were dropped).
        return _builder(request, session, settings, plan_id, user, values, {"send": e.message}, 409)
    except plans.Conflict as e:
        # Saved by someone else since: the typed lines stay, on top of the current version.
        stale = e.form_message(version)
        return _builder(request, session, settings, plan_id, user, values, {"send": stale}, 409)
    except errors.Invalid as e:
        # The API's words name its customer list; the page has its own (QA read "choose one
        # from GET /api/v1/customers" beside the builder's customer select).
        said = _(GONE_CUSTOMER) % e.params if e.message_id == plans.NO_SUCH_CUSTOMER else e.message
        return _builder(
            request,
            session,
            settings,
            plan_id,
            user,
            values,
            {views.field_key(e.field): said},
            422,
        )
    if is_fragment(request):
        return _builder(request, session, settings, plan_id, user, None, {})
    return RedirectResponse(f"/plans/{plan_id}#quote-builder", status_code=303)


GONE_CUSTOMER: Final = N_("customer %(id)s no longer exists: choose one from the list")

#: Above the builder when the quote changed between loading the page and pressing its
#: button: nothing was sent or approved (the builder below is now the current version).
CHANGED_SINCE_LOADED: Final = {
    "send": N_(
        "This quote was changed while you were looking at it (version %(old)s, now "
        "%(new)s): nothing was sent. Check it below, then send again."
    ),
    "approve": N_(
        "This quote was changed while you were looking at it (version %(old)s, now "
        "%(new)s): nothing was approved. Check the discount below, then approve again."
    ),
}


def _act(
    request: Request,
    session: SessionDep,
    settings: Any,
    plan_id: DbId,
    user: Any,
    action: str,
    seen: int | None,
    act: Callable[[], object],
) -> Response:
    """Run a builder button's `act` (send, approve) and go back to the builder; a refusal
    re-renders the builder with why above it, in the page's language."""
    activate(request)
    try:
        act()
    except plans.Conflict as e:
        message = _(CHANGED_SINCE_LOADED[action]) % {"old": seen, "new": e.current_version}
        return _builder(request, session, settings, plan_id, user, None, {"send": message}, 409)
    except (errors.Invalid, errors.Conflict) as e:
        return _builder(
            request, session, settings, plan_id, user, None, {"send": e.message}, e.status
        )
    return RedirectResponse(f"/plans/{plan_id}#quote-builder", status_code=303)


@router.post("/plans/{plan_id}/send")
def send_quote(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: SalesPageUser,
    _csrf: CsrfDep,
    version: Annotated[str | None, Form()] = None,
) -> Response:
    """Send the quote (freezes this revision for the share link) as the builder showed it:
    the form carries the version it was loaded at."""
    seen = parse_id(version)

    def send() -> object:
        return service.send_quote(
            session=session,
            plan_id=plan_id,
            actor=user,
            limit_pct=settings.sales_discount_limit_pct,
            version=seen,
        )

    return _act(request, session, settings, plan_id, user, "send", seen, send)


@router.post("/plans/{plan_id}/approve-discount")
def approve_discount(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: AdminPageUser,
    _csrf: CsrfDep,
    version: Annotated[str | None, Form()] = None,
) -> Response:
    """Approve the quote's discount (admins), the one the page showed: the form carries the
    version it was loaded at, so a deeper discount saved meanwhile is not approved unseen."""
    seen = parse_id(version)

    def approve() -> object:
        return service.approve_discount(session=session, plan_id=plan_id, actor=user, version=seen)

    return _act(request, session, settings, plan_id, user, "approve", seen, approve)
