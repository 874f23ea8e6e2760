"""Share-link pages: create/revoke forms from the plan page, and the public view /s/{token}."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from app import errors, i18n
from app.accounts.web import PageUser
from app.dates import in_business_tz
from app.deps import SessionDep, SettingsDep
from app.i18n import N_, listing
from app.i18n import gettext as _
from app.ids import DbId
from app.plans import pages as plan_pages
from app.plans import service as plans
from app.plans.models import Plan
from app.quotes import service as quotes
from app.quotes.pdf import render_quote_pdf
from app.quotes.routes import pdf_response
from app.ratelimit import deps as limits
from app.ratelimit.service import SHARE_LOOKUPS
from app.sharing import service
from app.sharing.models import ShareLink
from app.sharing.routes import share_url
from app.sharing.views import shared_context
from app.web.csrf import CsrfDep, verify_csrf
from app.web.forms import as_sentence, parse_id, require_once
from app.web.templating import activate, render

router = APIRouter(include_in_schema=False)
# A shared page must not leak its secret URL to other sites, nor be indexed.
SHARED_HEADERS = {"Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex, nofollow"}
# A document link's language as the pages read it (app.i18n.normalise: "zh-tw", "zh-Hant",
# "en-US"), else the customer's: a link typed or forwarded as ?lang=zh-tw answered a customer
# with a 422 where the share page beside it opened (QA). The API's PDF keeps its strict list.
Lang = Annotated[str | None, Query(max_length=20)]


#: What a link that does not open says to a JSON client: the page's heading and sentence.
LINK_REFUSALS: dict[str, str] = {
    "revoked": N_(
        "This link has been revoked: the sender withdrew this shared quote. Ask them for a "
        "new link."
    ),
    "expired": N_(
        "This link has expired: shared quotes open only for a limited time. Ask the sender "
        "for a new link."
    ),
    "unknown": N_(
        "Link not found: there is no shared quote at this address. Check that the link was "
        "copied whole."
    ),
}


def _refused(
    request: Request, session: SessionDep, exc: Exception, is_json: bool = False
) -> Response:
    reason = exc.reason if isinstance(exc, service.LinkGone) else "unknown"
    status = 410 if isinstance(exc, service.LinkGone) else 404
    if is_json:
        # A JSON answer gets JSON whatever went wrong (QA: an HTML page for a bad token).
        activate(request)
        body = {"detail": _(LINK_REFUSALS[reason])}
        return JSONResponse(body, status_code=status, headers=SHARED_HEADERS)
    gone_plan = session.get(Plan, exc.plan_id) if isinstance(exc, service.LinkGone) else None
    if gone_plan is not None:
        # The customer's language, as the page was while the link worked (QA: a 中文
        # customer's revoked link answered in the browser's English). An unknown token has
        # no customer: the browser's language.
        _customer_language(request, session, gone_plan)
        activate(request)
    ctx = {"reason": reason}
    return render(request, "sharing/gone.html", ctx, status_code=status, headers=SHARED_HEADERS)


@router.post("/plans/{plan_id}/share")
def create_share(
    plan_id: DbId,
    request: Request,
    session: SessionDep,
    user: PageUser,
    _csrf: CsrfDep,
    settings: SettingsDep,
    expires_in_days: Annotated[str | None, Form()] = None,
) -> Response:
    """Create a share link from the plan page and show its URL once; a lifetime outside
    1–365 days is refused beside the form, in the page's language (422), not as raw JSON."""
    plans.require_edit(user, plans.get_plan(session=session, plan_id=plan_id))
    days = parse_id(expires_in_days) if expires_in_days not in (None, "") else None
    if expires_in_days not in (None, "") and (days is None or days > service.MAX_DAYS):
        activate(request)
        error = _("Choose how long the link lasts: 1 to %(max)s days.") % {"max": service.MAX_DAYS}
        extra = {"share_error": error, "share_value": expires_in_days}
        return plan_pages.detail_page(
            request, session, user, settings, plan_id, status=422, extra=extra
        )
    link, token = service.create_link(
        session=session, plan_id=plan_id, actor=user, expires_in_days=days
    )
    plan = plans.get_plan(session=session, plan_id=plan_id)
    # A link that closes before the quote's validity ends takes the customer's last days to
    # accept it (QA: a 7-day link on a quote valid to the month's end).
    closes = in_business_tz(link.expires_at).date() if link.expires_at is not None else None
    early = closes is not None and plan.valid_until is not None and closes < plan.valid_until
    ctx = {
        "plan": plan,
        "link": link,
        "url": share_url(request, token),
        "nav_active": "plans",
        "early": early,
    }
    return render(request, "sharing/created.html", ctx, headers={"Cache-Control": "no-store"})


@router.post("/plans/{plan_id}/share/revoke")
def revoke_shares(plan_id: DbId, session: SessionDep, user: PageUser, _csrf: CsrfDep) -> Response:
    """Revoke every active share link of the plan, then go back to the plan."""
    service.revoke_links(session=session, plan_id=plan_id, actor=user)
    return RedirectResponse(f"/plans/{plan_id}", status_code=303)


@router.get("/s/{token}", name="shared_plan")
def shared_plan(token: str, request: Request, session: SessionDep) -> Response:
    """The read-only, customer-facing view of a shared plan."""
    found = _open_link(token, request, session)
    if isinstance(found, Response):
        return found
    link, plan = found
    _customer_language(request, session, plan)
    activate(request)
    ctx = shared_context(
        session=session, plan=plan, link=link, token=token, settings=request.app.state.settings
    )
    return render(request, "sharing/shared.html", ctx, headers=SHARED_HEADERS)


def _resolve(token: str, request: Request, session: SessionDep) -> Plan | Response:
    """The plan a share token opens, or the page saying the link does not work."""
    found = _open_link(token, request, session)
    return found if isinstance(found, Response) else found[1]


def _open_link(
    token: str, request: Request, session: SessionDep, is_json: bool = False
) -> tuple[ShareLink, Plan] | Response:
    """The link and plan a share token opens, or the page (the JSON, for a JSON answer)
    saying the link does not work. A lookup that fails counts against the client's limit
    (429 after 10 a minute: a token search, by the page or by an answer); one that works does
    not count. While an address is over its limit every lookup from it is refused, a working
    link's too: answering that one would tell a searcher which guess was right. So a customer
    behind the same address as ten failed lookups in the last minute waits up to a minute
    (QA; the limit is per address, and an office NAT shares one)."""
    try:
        slot = limits.reserve(request, session, SHARE_LOOKUPS)
    except errors.TooManyRequests as exc:
        if not is_json:
            raise  # the error page (app.web.errors)
        activate(request)
        return JSONResponse(
            exc.json_body(),
            status_code=exc.status,
            headers={**SHARED_HEADERS, "Retry-After": str(exc.retry_after)},
        )
    try:
        link, plan = service.resolve(session=session, token=token)
    except (service.LinkGone, service.LinkNotFound) as exc:
        return _refused(request, session, exc, is_json)
    slot.release()
    return link, plan


def _customer_language(request: Request, session: SessionDep, plan: Plan) -> None:
    """The customer's document is in the customer's language unless the visitor chose one:
    a ``?lang=`` in the link (which the language middleware also remembers in the cookie)
    or the language switch (its cookie). The browser's Accept-Language alone does not beat
    the customer's saved language."""
    asked = i18n.normalise(request.query_params.get(i18n.LANG_COOKIE))
    if asked is None and not request.cookies.get(i18n.LANG_COOKIE):
        request.state.lang = quotes.document_language(session=session, plan=plan)


@router.get("/s/{token}/quote.pdf")
def shared_pdf(token: str, request: Request, session: SessionDep, lang: Lang = None) -> Response:
    """The PDF quote of a shared plan (the sent revision), by default in the customer's
    language."""
    plan = _resolve(token, request, session)
    if not isinstance(plan, Plan):
        return plan
    language = i18n.normalise(lang) or quotes.document_language(session=session, plan=plan)
    copy = quotes.customer_copy(session=session, plan=plan)
    head = quotes.letterhead(request.app.state.settings)
    response = pdf_response(
        plan,
        render_quote_pdf(copy, lang=language, session=session, letterhead=head),
        lang=language,
    )
    response.headers.update(SHARED_HEADERS)
    return response


@router.get("/plans/{plan_id}/quote.pdf")
def plan_pdf(
    plan_id: DbId, request: Request, session: SessionDep, _: PageUser, lang: Lang = None
) -> Response:
    """The plan's PDF quote, for signed-in users; by default in its customer's language.

    A page link: `lang` is read as the pages read it, and a value no language matches
    (`?lang=xx`) is no choice, so the customer's language prints, never an error; the API's
    PDF refuses it with a 422 naming `lang` (tests/web/test_quote_pdf_language_rule.py)."""
    plan = plans.get_plan(session=session, plan_id=plan_id)
    language = i18n.normalise(lang) or quotes.document_language(session=session, plan=plan)
    head = quotes.letterhead(request.app.state.settings)
    printed = quotes.seller_copy(session=session, plan=plan)
    pdf = render_quote_pdf(printed, lang=language, session=session, letterhead=head)
    return pdf_response(plan, pdf, lang=language)


#: The customer's answer fields; each must be a JSON string (a list or an object would be
#: turned into its Python repr and taken as a signature).
TEXT_FIELDS = ("name", "title", "reason")
#: The fields each answer takes, in JSON: anything else is a 422 naming it. `{"agreed":
#: false}` (a misspelt key) and `{"agree": null}` were both read as an accepted quote (QA).
ANSWER_FIELDS = {
    "accept": ("name", "title", "agree", "revision"),
    "decline": ("reason", "revision"),
}


def _is_json(request: Request) -> bool:
    return request.headers.get("content-type", "").startswith("application/json")


async def _answer_fields(request: Request) -> dict[str, str]:
    """The fields of a JSON body (integrators) or of the share page's form (its CSRF token
    checked by `_checked_form` first). A body that is not a JSON object, a key the answer
    does not take, a null, or a text field that is not a string, is a 422 naming it (`agree`
    may also be a boolean, `revision` a whole number)."""
    if _is_json(request):
        try:
            body = await request.json()
        except (ValueError, RecursionError) as e:  # '[' × 2,000 was a 500 (QA)
            raise errors.Invalid(N_("the body is not JSON"), field="") from e
        if not isinstance(body, dict):
            raise errors.Invalid(N_("the body must be an object"), field="")
        takes = ANSWER_FIELDS[request.url.path.rsplit("/", 1)[-1]]
        fields: dict[str, str] = {}
        for key, value in body.items():
            if key not in takes:
                raise errors.Invalid(
                    N_("is not a field of this answer, which takes %(fields)s"),
                    field=key,
                    fields=listing(takes),
                )
            whole = isinstance(value, int) and not isinstance(value, bool)
            if (key == "agree" and isinstance(value, bool)) or (key == "revision" and whole):
                fields[key] = str(value)
            elif isinstance(value, str) and key != "agree":  # "yes" is no JSON boolean (QA)
                fields[key] = value
            else:
                raise errors.Invalid(
                    N_("must be the quote's version, a whole number from 1")
                    if key == "revision"
                    else N_("must be true or false")
                    if key == "agree"
                    else N_("must be a string"),
                    field=key,
                )
        return fields
    # A field sent twice (two names, two `agree`) is refused, never its last value kept.
    return require_once(await request.form())


async def _checked_form(request: Request) -> bool:
    """True for a JSON body, which needs no CSRF token (a browser cannot send one cross-site
    without CORS); a form must carry one (else the "form has expired" page, as everywhere)."""
    if _is_json(request):
        return True
    await verify_csrf(request)
    return False


@dataclass(frozen=True)
class Answer:
    """A customer's answer as sent, read before the handler runs: the body is read
    asynchronously here so that the handler, whose database calls block, runs in the
    threadpool — as an `async def` it held the event loop, and every other request with it,
    while it waited on the plan's row lock (race QA: /healthz took 3.2 s)."""

    is_json: bool
    fields: dict[str, str]
    #: The version the customer was shown (the form's hidden field, or JSON `revision`).
    revision: int | None
    #: Why the body was refused (shown once the link is known to work).
    error: errors.DomainError | None = None


async def read_answer(request: Request) -> Answer:
    is_json = await _checked_form(request)
    try:
        fields = await _answer_fields(request)
    except errors.DomainError as exc:
        return Answer(is_json, {}, None, exc)
    raw = fields.get("revision", "").strip()
    revision = parse_id(raw) if raw else None
    if raw and revision is None:
        # Only a damaged page sends a form without its version: the customer is told what
        # to do about it; an integrator what the field takes.
        message = (
            N_("must be the quote's version, a whole number from 1")
            if is_json
            else N_("This page is out of date: reload it, then answer again.")
        )
        return Answer(is_json, fields, None, errors.Invalid(message, field="revision"))
    return Answer(is_json, fields, revision)


AnswerDep = Annotated[Answer, Depends(read_answer)]


def _client_ip(request: Request) -> str:
    return request.client.host if request.client is not None else ""


def _decided(
    request: Request, session: SessionDep, token: str, plan: Plan, is_json: bool
) -> Response:
    """A JSON answer's body: `status`, `decided_at`, `revision` (the history's version the
    answer is to) and `edition` (the same version as the customer's documents number it,
    "version 1" / 「第 1 版」: QA read `"revision": 2` for the 第 1 版 it had accepted)."""
    if is_json:
        body = {
            "status": plan.status,
            "decided_at": plan.decided_at.isoformat() if plan.decided_at else None,
            "revision": plan.decision_version,
            "edition": plans.editions(session=session, plan_id=plan.id).of(plan.decision_version),
        }
        return JSONResponse(body, headers=SHARED_HEADERS)
    return RedirectResponse(f"/s/{token}", status_code=303, headers=SHARED_HEADERS)


def _decision_error(
    request: Request,
    session: SessionDep,
    token: str,
    link: ShareLink,
    plan: Plan,
    exc: errors.DomainError,
    is_json: bool,
    fields: dict[str, str],
    whole_form: bool = False,
) -> Response:
    """The refusal: JSON for a JSON body, else the share page with the error beside the field
    (`whole_form`: and beside every other field of the acceptance form left empty)."""
    if is_json:
        return JSONResponse(exc.json_body(), status_code=exc.status, headers=SHARED_HEADERS)
    _customer_language(request, session, plan)
    activate(request)
    ctx = shared_context(
        session=session, plan=plan, link=link, token=token, settings=request.app.state.settings
    )
    field = (exc.field or "").split(".")[0]
    also = _unanswered(fields) if whole_form and exc.status == 422 else {}
    # The API's clause ("the quote was already accepted") as the customer reads it (QA).
    found = {**also, field or "form": as_sentence(exc.message)}
    ctx.update(decision_errors=found, decision_values=fields)
    return render(
        request, "sharing/shared.html", ctx, status_code=exc.status, headers=SHARED_HEADERS
    )


def _still_open(link: ShareLink) -> plans.Guard:
    assert link.id is not None
    link_id = link.id
    return lambda session: service.require_open(session, link_id)


@router.post("/s/{token}/accept")
def shared_accept(token: str, request: Request, session: SessionDep, answer: AnswerDep) -> Response:
    """The customer accepts the sent quote: name, title and the tick box (JSON or form); a
    JSON answer gives `status`, `decided_at`, `revision` and the customer's `edition`."""
    found = _open_link(token, request, session, answer.is_json)
    if isinstance(found, Response):
        return found
    link, plan = found
    fields = answer.fields
    try:
        if answer.error is not None:
            raise answer.error
        plan = quotes.accept_quote(
            session=session,
            plan=plan,
            name=fields.get("name"),
            title=fields.get("title"),
            agreed=_ticked(fields.get("agree", "true" if answer.is_json else "")),
            ip=_client_ip(request),
            revision=answer.revision,
            guard=_still_open(link),
        )
    except service.LinkGone as exc:  # revoked or expired while the customer answered
        return _refused(request, session, exc, answer.is_json)
    except errors.DomainError as exc:
        return _decision_error(
            request, session, token, link, plan, exc, answer.is_json, fields, whole_form=True
        )
    return _decided(request, session, token, plan, answer.is_json)


def _unanswered(fields: dict[str, str]) -> dict[str, str]:
    """Every part of the acceptance form left empty, so a customer who sends it blank sees
    all three marked at once (QA: only the name was, the title and the box after two more
    tries)."""
    out = {
        k: _("This field is required.") for k in ("name", "title") if not fields.get(k, "").strip()
    }
    if not _ticked(fields.get("agree", "")):
        out["agree"] = _("Tick the box to accept the quote.")
    return out


def _ticked(value: str) -> bool:
    """The acceptance tick box as a form posts it ("on") or a JSON answer gives it (true)."""
    return value.lower() in ("true", "on", "1", "yes")


@router.post("/s/{token}/decline")
def shared_decline(
    token: str, request: Request, session: SessionDep, answer: AnswerDep
) -> Response:
    """The customer declines the sent quote with a reason (JSON or form); a JSON answer gives
    `status`, `decided_at`, `revision` and the customer's `edition`."""
    found = _open_link(token, request, session, answer.is_json)
    if isinstance(found, Response):
        return found
    link, plan = found
    fields = answer.fields
    try:
        if answer.error is not None:
            raise answer.error
        plan = quotes.decline_quote(
            session=session,
            plan=plan,
            reason=fields.get("reason"),
            ip=_client_ip(request),
            revision=answer.revision,
            guard=_still_open(link),
        )
    except service.LinkGone as exc:
        return _refused(request, session, exc, answer.is_json)
    except errors.DomainError as exc:
        return _decision_error(request, session, token, link, plan, exc, answer.is_json, fields)
    return _decided(request, session, token, plan, answer.is_json)
