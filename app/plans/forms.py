"""Form handling of the plan pages: list filters, the edit form, compare picks, saving."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlencode

from sqlmodel import Session

from app import errors as errors_mod
from app import i18n
from app.accounts.models import User
from app.engine.architectures import get_preset
from app.engine.schemas import EstimateRequest
from app.i18n import N_
from app.i18n import gettext as _
from app.ids import DB_ID_MAX
from app.planner import views as planner
from app.plans import service
from app.plans.models import NOTES_MAX, STATUSES, TAG_MAX, TAGS_MAX, Plan
from app.plans.presenters import STATUS_NAMES, field_label, field_value
from app.text import problem as text_problem
from app.text import trim
from app.web.forms import Posted, parse_id, repeated_errors, repeated_message

#: List columns that sort, with their labels.
SORT_COLUMNS: Final = (
    ("quote_number", N_("Quote")),
    ("name", N_("Name")),
    ("customer", N_("Customer")),
    ("status", N_("Status")),
    ("updated_at", N_("Updated")),
)


PER_PAGE: Final = 25


@dataclass(frozen=True, slots=True)
class ListQuery:
    q: str = ""
    status: str = ""
    owner: str = ""
    tier: str = ""
    customer: str = ""
    customer_id: str = ""
    sort: str = "-updated_at"
    page: int = 1
    archived: bool = False
    #: (parameter, value as sent) of each filter the list could not apply and left out: the
    #: page says so beside the filters (`refused_filters`) rather than quietly showing
    #: another list than the address asked for (QA)
    refused: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> ListQuery:
        refused: list[tuple[str, str]] = []

        def keep(name: str, ok: bool, sent: str | None = None) -> bool:
            if not ok:
                refused.append((name, (params.get(name) or "") if sent is None else sent))
            return ok

        sort = params.get("sort") or "-updated_at"
        if not keep("sort", sort.removeprefix("-") in service.SORTS):
            sort = "-updated_at"
        raw_page = (params.get("page") or "").strip()
        page = parse_id(raw_page) if raw_page else 1
        if not keep("page", page is not None and page <= 1_000_000):
            page = 1
        status = params.get("status") or ""
        tier = params.get("tier") or ""
        # `owner_id` is the API's name of this filter (GET /api/v1/plans): the list reads it
        # too, and says why it cannot apply one (QA: ?owner_id=abc was silently ignored).
        owner = (params.get("owner") or params.get("owner_id") or "").strip()
        cid = (params.get("customer_id") or "").strip()
        archived = params.get("archived") or ""
        return cls(
            # Searched whole, as the API does: cut (it was, to 100 characters) it matched
            # plans the text typed does not (QA: silent truncation).
            q=(params.get("q") or "").strip(),
            status=status if keep("status", status in ("", *STATUSES)) else "",
            owner=owner
            if keep("owner", owner in ("", "me") or parse_id(owner) is not None, owner)
            else "",
            tier=tier if keep("tier", tier in ("", *planner.TIER_NAMES)) else "",
            customer=(params.get("customer") or "").strip(),
            customer_id=cid if keep("customer_id", not cid or parse_id(cid) is not None) else "",
            sort=sort,
            page=page or 1,
            archived=keep("archived", archived in ("", "0", "1")) and archived == "1",
            refused=tuple(refused),
        )

    def url(self, **change: Any) -> str:
        values = {
            "q": self.q,
            "status": self.status,
            "owner": self.owner,
            "tier": self.tier,
            "customer": self.customer,
            "customer_id": self.customer_id,
            "sort": self.sort if self.sort != "-updated_at" else "",
            "page": self.page if self.page != 1 else "",
            "archived": "1" if self.archived else "",
        }
        values.update(change)
        query = urlencode({k: v for k, v in values.items() if v not in ("", None)})
        return "/plans" + (f"?{query}" if query else "")


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
    version = parse_id(form.get("version")) or 0  # not a version: stale (409) like any other
    name = trim(form.get("name") or "")
    if not name:
        errors["name"] = _("Give the plan a name.")
    elif len(name) > 200:
        errors["name"] = _("At most %(n)s characters.") % {"n": 200}
    elif bad := text_problem(name):
        errors["name"] = bad
    customer = trim(form.get("customer") or "")
    if len(customer) > 200:
        errors["customer"] = _("At most %(n)s characters.") % {"n": 200}
    elif bad := text_problem(customer):
        errors["customer"] = bad
    # No status is no choice (QA: an empty one saved a sent plan as a draft).
    status = form.get("status") or ""
    if status not in STATUSES:
        errors["status"] = _("Choose a status.")
    notes = form.get("notes") or ""
    if len(notes) > NOTES_MAX:
        errors["notes"] = _("At most %(n)s characters.") % {"n": NOTES_MAX}
    elif bad := text_problem(notes, multiline=True):
        errors["notes"] = bad
    tags, tags_error = parse_tags(form.get("tags") or "")
    if tags_error:
        errors["tags"] = tags_error
    elif bad := next((p for t in tags if (p := text_problem(t))), ""):
        errors["tags"] = bad
    changes = {
        "name": name,
        "customer": customer,
        "status": status,
        "notes": notes,
        "tags": tags,
    }
    return version, changes, errors


def parse_tags(text: str) -> tuple[list[str], str]:
    """(tags, error) from 'a, b, a': trimmed, blanks and repeats dropped; a tag or a count over
    the API's limits is an error (the user's text stays in the form), never cut."""
    tags = list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
    if any(len(t) > TAG_MAX for t in tags):
        return tags, _("Each tag has at most %(n)s characters.") % {"n": TAG_MAX}
    if len(tags) > TAGS_MAX:
        return tags, _("At most %(n)s tags.") % {"n": TAGS_MAX}
    return tags, ""


def parse_compare(ids: str, revs: Sequence[str]) -> tuple[list[tuple[int, int | None]], str]:
    """[(plan id, version or None)] from `ids=1,2` and `rev=3:2` items, or an error message
    that quotes the first item that is not a plan (QA: "1,abc,-5" was told only that plans
    are numbers)."""
    items: list[tuple[int, int | None]] = []
    parts = [(p, False) for p in (ids or "").replace(" ", "").split(",") if p]
    parts += [(p, True) for r in revs for p in r.replace(" ", "").split(",") if p]
    for part, versioned in parts:
        pid, _sep, ver = part.partition(":") if versioned else (part, "", "")
        # An id or version past the database's integer range names no row (and overflows
        # SQLite); a sign or a letter names none either.
        if not _plan_number(pid) or (ver and not _plan_number(ver)):
            return [], _(
                "“%(item)s” is not a plan: plans are numbers, as in ?ids=1,2 or ?rev=1:3 "
                "(plan 1, version 3)."
            ) % {"item": part[:40]}
        items.append((int(pid), int(ver) if ver else None))
    if len(items) > 4:
        return [], _("Compare two to four plans.")
    return items, ""


def _plan_number(text: str) -> bool:
    """Whether `text` is a plan id or version: digits only, 1 to the database's limit."""
    return text.isascii() and text.isdigit() and 1 <= int(text) <= DB_ID_MAX


def default_name(req: EstimateRequest) -> str:
    """'Llama 2 13B · Full fine-tuning' for a plan saved without a name: the model as the
    planner names it (QA: it read 'qwen3-235b-a22b · 推論（服務）', the preset's id)."""
    if req.model.preset:
        try:
            model = get_preset(req.model.preset).name
        except KeyError:
            model = req.model.preset
    else:
        model = f"{req.model.params_b:g}B" if req.model.params_b else _("Custom model")
    return f"{model} · {_(planner.TASK_NAMES.get(req.task, req.task))}"


def save_from_planner(
    *, session: Session, form: Mapping[str, str], user: User, currency: str
) -> tuple[Plan | None, dict[str, str]]:
    """A new plan from the planner's form (its fields plus name and customer)."""
    req, errors = planner.build_request(planner.form_values(form), currency)
    name = trim(form.get("name") or "")
    customer = trim(form.get("customer") or "")
    # As long as the edit form and the API take (200), else refused: never saved cut short.
    for field, label, text in (
        ("name", _("Plan name"), name),
        ("customer", _("Customer"), customer),
    ):
        if len(text) > 200:
            errors[field] = f"{label}{i18n.colon()}" + _("At most %(n)s characters.") % {"n": 200}
        elif bad := text_problem(text):
            # As the edit form and the API refuse it: saved, a NUL in the name made every
            # later edit and the plan's own export a 422 (QA).
            errors[field] = f"{label}{i18n.colon()}" + bad
    if req is None or errors:
        return None, errors
    # A name typed as a customer record has it is that customer: linked, so the quote
    # builder, the customer's page and the list filter find the plan (named as the record).
    linked = service.customer_named(session=session, name=customer)
    plan = service.create_plan(
        session=session,
        owner=user,
        name=name or default_name(req),
        customer=linked.name if linked is not None else customer,
        customer_id=linked.id if linked is not None else None,
        workload=req,
    )
    return plan, {}


def save_workload(
    *, session: Session, plan_id: int, form: Mapping[str, str], user: User, version: int
) -> Plan:
    """A new revision of the plan with the planner's workload (422 naming the field, 409 if
    someone saved since `version`), in the plan's own currency: the planner's display
    currency is the reader's, not the plan's."""
    plan = service.get_plan(session=session, plan_id=plan_id)
    req, errors = planner.build_request(planner.form_values(form), service.plan_currency(plan))
    if req is None:
        field, message = next(iter(errors.items()))
        raise service.Invalid(field, message)
    return service.update_plan(
        session=session,
        plan_id=plan_id,
        expected_version=version,
        changes={"workload": req},
        actor=user,
    )


def form_choices(plan: Plan) -> dict[str, Any]:
    """The edit form's status choices: those a save may give the plan now (an answer, or
    "sent" once it has a quote, is set by the quote's life; QA: the edit form offered them
    and answered with an error page that lost the edit)."""
    return {"statuses": [(s, STATUS_NAMES[s]) for s in service.settable_statuses(plan)]}


#: The edit form's inputs (a repeated one is said beside it; any other above the form).
EDIT_FIELDS: Final = ("name", "customer", "status", "tags", "notes")


def save_edit(*, session: Session, plan_id: int, form: Posted, user: User) -> dict[str, Any] | None:
    """Save the edit form; None when saved, else the form's context (errors or a conflict).

    On a conflict the user's input stays in the form, the hidden version moves to the
    current one (saving again overwrites, knowingly) and the changes since are listed. A
    field sent twice is an error beside it (QA: `name=a&name=b` saved "b")."""
    version, changes, errors = parse_edit(form)
    errors.update(repeated_errors(form, EDIT_FIELDS))
    values = {k: str(form.get(k, "")) for k in EDIT_FIELDS}
    values["version"] = str(version)
    plan = service.get_plan(session=session, plan_id=plan_id)
    if plan.customer_id is not None:
        # Linked to a customer record: the form shows it, the quote builder chooses it.
        changes.pop("customer")
        values["customer"] = plan.customer
    ctx: dict[str, Any] = {
        "nav_active": "plans",
        "plan": plan,
        "values": values,
        "errors": errors,
        "status": 422,
        **form_choices(plan),
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
    except service.Decided as e:
        # Accepted or declined: only notes and tags may change; say so above the form.
        ctx.update(errors={"form": e.message}, status=e.status)
        return ctx
    except errors_mod.Invalid as e:
        # A status the quote's life sets (a crafted post: the select does not offer it):
        # beside its field, the typed edit kept.
        field = (e.field or "form").rsplit(".", 1)[-1]
        ctx.update(errors={field if field in values else "form": e.message}, status=e.status)
        return ctx
    return None


#: A status the plan cannot take from the status form (a crafted post: the select offers
#: only the settable ones), said beside the select.
STATUS_REFUSED: Final = N_("Choose one of the statuses this plan can take now: %(allowed)s.")


class StatusRefused(Exception):
    """The status form's refusal: `message` (in the active language) and the HTTP status."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def set_status(*, session: Session, plan_id: int, form: Posted, user: User) -> str:
    """Change the status; the URL to go to next (the plan, with a note on a conflict).

    A status the plan cannot take now (not one of `service.settable_statuses`: an unknown
    word, or an answer the customer gives) is `StatusRefused` naming the allowed ones, and
    nothing changes (QA: a crafted post got the generic error page); so is a field sent
    twice."""
    plan = service.get_plan(session=session, plan_id=plan_id)
    if form.repeated:
        raise StatusRefused(repeated_message(form, next(iter(form.repeated))))
    status = form.get("status", "")
    allowed = service.settable_statuses(plan)
    if status not in allowed:
        names = i18n.listing(_(STATUS_NAMES[s]) for s in allowed)
        raise StatusRefused(_(STATUS_REFUSED) % {"allowed": names})
    version = parse_id(form.get("version")) or 0  # not a version: stale like any other
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
    except (service.Decided, service.Invalid) as e:
        # Answered meanwhile, or a status the quote's life sets: said on the plan page.
        raise StatusRefused(e.message, e.status) from None
    return f"/plans/{plan_id}"


def conflict_context(*, session: Session, plan_id: int, expected_version: int) -> dict[str, Any]:
    """What changed since `expected_version`: [(label, then, now)] and the current plan."""
    plan = service.get_plan(session=session, plan_id=plan_id)
    try:
        then = service.get_revision(session=session, plan_id=plan_id, version=expected_version)
        diff = service.diff_snapshots(service.snapshot(then), service.snapshot(plan))
    except service.NotFound:
        diff = []
    rows = [(field_label(f), field_value(f, a), field_value(f, b)) for f, a, b in diff]
    return {"current": plan, "since": rows, "current_version": plan.version}
