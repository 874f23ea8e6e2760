"""Customer pages for sales and admins: the list (with each customer's plans), new, edit.

A form that does not validate is shown again with the typed values and an inline error per
field, in the page's language (a wrong 統一編號 names the field).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from app.accounts.web import SalesPageUser
from app.customers import service, views
from app.deps import SessionDep
from app.i18n import N_
from app.i18n import gettext as _
from app.ids import DbId
from app.web.csrf import CsrfDep
from app.web.forms import PostedFields, parse_id, repeated_errors
from app.web.templating import activate, render

router = APIRouter(include_in_schema=False)

CUSTOMER_STALE = N_(
    "Someone else saved this customer while you were editing: you started from version "
    "%(old)s, it is now at version %(new)s. Your changes are still below and were not "
    "saved. What they changed is below: fields you left alone now hold their value; check "
    "the others, then save again."
)

#: The edit form's hidden version is missing or not a version: the form was changed.
FORM_UNREADABLE = N_(
    "This form is out of date or was changed: it does not say which version of the customer "
    "it was opened at, so nothing was saved. Reload the page to edit the customer as it is "
    "now; what you typed is still below to copy."
)


@router.get("/customers")
def customers_list(request: Request, session: SessionDep, user: SalesPageUser) -> Response:
    """Customers by name, searchable, with a link to each one's plans."""
    activate(request)
    # Searched whole, as the API does (QA: cut to 100 characters, it found customers the
    # text typed does not match).
    q = (request.query_params.get("q") or "").strip()
    ctx = views.list_context(session=session, q=q, page=request.query_params.get("page"))
    return render(request, "customers/list.html", {**ctx, "nav_active": "customers"})


@router.get("/customers/new")
def customer_new_form(request: Request, user: SalesPageUser) -> Response:
    """The new-customer form."""
    activate(request)
    ctx = views.form_context(customer=None, values=views.EMPTY, errors={})
    return render(request, "customers/form.html", ctx)


@router.post("/customers/new")
def customer_create(
    request: Request, session: SessionDep, user: SalesPageUser, _csrf: CsrfDep, values: PostedFields
) -> Response:
    """Create a customer; invalid fields come back inline (422)."""
    activate(request)
    if values.repeated:
        return _repeated(request, None, values)
    try:
        data = views.create_from_form(values)
    except ValidationError as e:
        return _invalid(request, None, values, e)
    customer = service.create_customer(session=session, data=data)
    return RedirectResponse(f"/customers/{customer.id}?created=1", status_code=303)


@router.get("/customers/{customer_id}")
def customer_edit_form(
    customer_id: DbId, request: Request, session: SessionDep, user: SalesPageUser
) -> Response:
    """A customer's details (editable) and its plans."""
    activate(request)
    customer = service.get_customer(session=session, customer_id=customer_id)
    ctx = views.form_context(
        customer=customer, values=views.values_of(customer), errors={}, session=session
    )
    # Said once, after the redirect of a save (QA: nothing said the save went through).
    if request.query_params.get("created") == "1":
        ctx["done"] = _("Customer created.")
    elif request.query_params.get("saved") == "1":
        ctx["done"] = _("Changes saved.")
    return render(request, "customers/form.html", ctx)


@router.post("/customers/{customer_id}")
def customer_update(
    customer_id: DbId,
    request: Request,
    session: SessionDep,
    user: SalesPageUser,
    _csrf: CsrfDep,
    values: PostedFields,
) -> Response:
    """Save a customer's details; invalid fields come back inline (422)."""
    activate(request)
    customer = service.get_customer(session=session, customer_id=customer_id)
    if values.repeated:
        return _repeated(request, customer, values)
    version = parse_id(values.get("version"))
    if version is None or version > customer.version:
        # Not a version (a tampered or truncated form), or one this customer never had (a
        # page kept open across a restore of an older backup): which one the edit started
        # from is unknown, so nothing is saved and the form asks for a reload. It read "you
        # started from version 0", or "from version 999, it is now at version 2" (QA).
        errors = {"form": _(FORM_UNREADABLE)}
        ctx = views.form_context(customer=customer, values=values, errors=errors)
        return render(request, "customers/form.html", ctx, status_code=422)
    try:
        data = views.update_from_form(values, version)
        service.update_customer(session=session, customer_id=customer_id, data=data)
    except ValidationError as e:
        return _invalid(request, customer, values, e)
    except service.CustomerConflict as e:
        # Saved by someone else since: the typed values stay, beside what is saved now; the
        # form carries the current version, so saving again overwrites knowingly.
        session.refresh(customer)
        merged = views.merge_stale(customer, values)
        ctx = views.form_context(
            customer=customer, values=merged.values, errors={}, session=session
        )
        ctx["conflict"] = {
            "message": _(CUSTOMER_STALE) % {"old": version, "new": e.current_version},
            "saved": merged.rows,
        }
        return render(request, "customers/form.html", ctx, status_code=409)
    return RedirectResponse(f"/customers/{customer_id}?saved=1", status_code=303)


def _invalid(
    request: Request, customer: Any, values: dict[str, str], e: ValidationError
) -> Response:
    ctx = views.form_context(customer=customer, values=values, errors=views.errors_of(e))
    return render(request, "customers/form.html", ctx, status_code=422)


def _repeated(request: Request, customer: Any, values: PostedFields) -> Response:
    """The form again for a field sent more than once (QA: `name=a&name=b` saved "b"),
    named beside its input; nothing saved. The form takes each field once."""
    errors = repeated_errors(values, (*views.FIELDS, "export"))
    ctx = views.form_context(customer=customer, values=values, errors=errors)
    return render(request, "customers/form.html", ctx, status_code=422)
