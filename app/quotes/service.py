"""What a quote shows, built once from a saved plan: used by the PDF and the shared page.

Everything comes from the plan's stored workload and result (and its own price list for the
rental offers), so a quote never changes when the catalog does. Call with the language
active (`app.i18n.activate`): labels and money are formatted in it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, Final

from sqlmodel import Session

from app import errors, text
from app.accounts.models import User
from app.catalog import service as catalog
from app.costs import wording
from app.customers.models import Customer
from app.dates import in_business_tz
from app.engine.price_book import FxRate, PriceBook
from app.i18n import N_, gettext, zh_translations
from app.plans import schedule
from app.plans import service as plans
from app.plans.models import DocumentTotal, Plan, PlanPublic, utcnow
from app.quotes import currency, document, pricing
from app.quotes.bom import Bom, build_bom, quoted_option
from app.quotes.models import DOMESTIC_AT_ZERO, DOMESTIC_TAX_RATE, EXPORT_TAX_RATE
from app.settings import Settings

VALID_DAYS: Final = 30

TIERS: Final = {
    "single_gpu": N_("Single GPU"),
    "multi_gpu": N_("Multi-GPU"),
    "multi_node": N_("Multi-node"),
}
KINDS: Final = {
    "rent_hourly": N_("Hourly rent"),
    "rent_monthly": N_("Monthly rent"),
    "rent_term": N_("Term rent"),
    "mig": N_("MIG slice rent"),
    "buy": N_("Buy"),
    "cloud": N_("Public cloud"),
    "cloud_reserved": N_("Public cloud, reserved"),
}
# Workload fields the quote lists as assumptions (English msgid of each).
ASSUMPTIONS: Final = (
    ("task", N_("Task")),
    ("precision", N_("Precision")),
    ("seq_len", N_("Sequence length (tokens)")),
    ("micro_batch", N_("Micro-batch")),
    ("global_batch", N_("Global batch")),
    ("tokens", N_("Training tokens")),
    ("epochs", N_("Epochs")),
    ("dataset_gb", N_("Dataset (GB)")),
    ("deadline_days", N_("Deadline (days)")),
    ("concurrency", N_("Concurrent sequences")),
    ("avg_context_tokens", N_("Average context (tokens)")),
    ("gpu", N_("GPU (pinned)")),
    ("gpu_count", N_("GPU count (pinned)")),
    ("utilization", N_("Utilisation")),
    ("term_months", N_("Contract term (months)")),
)
# Seed 003 T15: the acceptance tests and the contract checklist, in both languages.
ACCEPTANCE: Final = (
    N_("nccl-tests: all-reduce bus bandwidth between every GPU meets the interconnect's spec"),
    N_("48 h burn-in at full load: GPU temperatures, clocks and throttling logged"),
    N_("Throughput of your own workload (tokens/s or images/h) measured against this plan"),
)
CHECKLIST: Final = (
    N_("Power: circuit capacity and redundancy for the peak draw"),
    N_("Cooling: heat load removed at the planned inlet temperature"),
    N_("Backup: checkpoints and data copied off-site, restore tested"),
    N_("Operations SLA: response and repair times, spare parts"),
    N_("Contract: term, price, acceptance criteria and exit terms"),
)


def acceptance_tests(result: Mapping[str, Any]) -> tuple[str, ...]:
    """Seed 003 T15's acceptance tests that apply to the plan: nccl-tests measure the
    bandwidth *between* GPUs, so a plan on one GPU (or a slice of one) has none to measure
    (QA: single-GPU quotes asked for all-reduce bandwidth "between every GPU")."""
    gpus = (result.get("gpu") or {}).get("count") or 0
    return ACCEPTANCE if gpus > 1 else ACCEPTANCE[1:]


def both_languages(msgid: str) -> dict[str, str]:
    return {"zh": zh_translations().gettext(msgid), "en": msgid}


def _book(session: Session, plan: Plan) -> PriceBook | None:
    return catalog.price_book_if_any(session=session, price_list_id=plan.price_list_id)


def house_provider(*, session: Session, plan: Plan) -> str:
    """The seller among the plan's price list's providers (`PriceBook.house_provider`; ""
    for a plan priced without a list): whose offers a customer's document shows as its own
    ways to pay, every other provider's being the comparison the quote may switch on."""
    book = _book(session, plan)
    return book.house_provider if book is not None else ""


def _rates(
    book: PriceBook | None, options: Sequence[Mapping[str, Any]], currency: str
) -> list[FxRate]:
    """The price list's exchange rates the document's `options` were converted at: one for
    each currency other than the document's that a price row they quote is in (a cloud's
    US$ list price in a NT$ quote)."""
    if book is None or currency != book.currency:
        # A document in another currency than the list's (a US$ customer's) is priced at
        # the quote's own rate, and prints no NT$ at all: its figures are its currency's.
        return []
    ids = {str(i) for o in options for i in o.get("source_ids") or []}
    priced = [(r.id, r.currency) for r in book.offers]
    priced += [(r.id, r.currency) for r in book.servers] + [(r.id, r.currency) for r in book.cloud]
    foreign = sorted({ccy for key, ccy in priced if key in ids and ccy != currency})
    found = (
        next((r for r in book.fx if {r.base, r.quote} == {c, currency}), None) for c in foreign
    )
    return [r for r in found if r is not None]


def _assumptions(workload: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(label, value) rows for the quote's assumptions table.

    A phased plan's workload holds only ``{"schedule": …}`` (app.plans.schedule): its phases
    are listed in the quote's phase table, so it has no workload fields to list here. Keys
    are read with `.get`: a workload saved before a field existed must still quote."""
    if schedule.is_schedule(workload):
        return []
    return [
        (gettext(label), workload.get(key))
        for key, label in ASSUMPTIONS
        if workload.get(key) not in (None, "", 0)
        or (key == "dataset_gb" and workload.get(key) is not None)
    ]


def issue_date(plan: Plan) -> date:
    """The date of the plan's current revision on Taipei's calendar (the quoted date of a
    quote with lines, `pricing.resolve`'s `issued`, is Taipei's too). QA: a plan saved at
    06:39 in Taipei, 22:39 UTC the day before, was dated that day before, its validity a day
    short, while a line added a minute later dated the same plan the day after."""
    return in_business_tz(plan.updated_at).date()


def quote_view(
    *, session: Session, plan: Plan, letterhead: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The quote's content (see the module docstring); no internal notes, no owner e-mail.

    `letterhead`: the seller's company name, address, 統一編號 and contact (app.settings).
    Amounts are in the quote's currency: a plan priced in NT$ for a customer billed in US$
    prints its ways to pay, phases and totals in US$ at the quote's own rate."""
    quote: dict[str, Any] = dict(plan.quote or {})
    stored: Mapping[str, Any] = plan.result or {}
    stored_cost: Mapping[str, Any] = stored.get("cost") or {}
    result = currency.result_in_quote_currency(stored, quote)
    workload: Mapping[str, Any] = plan.workload or {}
    cost: Mapping[str, Any] = result.get("cost") or {}
    owner = session.get(User, plan.owner_id)
    bom: Bom = build_bom(stored, book=_book(session, plan), workload=workload, quote=quote)
    # The option the bill of materials quotes, with its figures in the document's currency.
    quoted = next(
        (
            o
            for o in cost.get("options") or []
            if bom.option and o.get("key") == bom.option.get("key")
        ),
        bom.option,
    )
    doc_currency = str(cost.get("currency") or bom.currency)
    issued = issue_date(plan)
    model = workload.get("model") or {}
    model_name = (
        (result.get("model") or {}).get("name")
        or model.get("preset")
        or (f"{model.get('params_b')}B" if model.get("params_b") else "")
    )
    assumptions = _assumptions(workload)
    if plans.is_default_terms(quote.get("payment_terms")):
        quote["payment_terms"] = gettext(plans.DEFAULT_PAYMENT_TERMS)  # the document's language
    gpu = result.get("gpu") or {}
    hours = float(cost.get("hours_per_month") or 730.0)
    all_options = list(cost.get("options") or [])
    house = house_provider(session=session, plan=plan)
    shown = document.visible_options(
        all_options, include_cloud=bool(quote.get("include_cloud_comparison")), house=house
    )
    customer = printed_customer(session, plan)
    book = _book(session, plan)
    labels = document.option_labels(all_options, gpu, hours, detailed=True)
    quoted_price = _quoted_price(quoted, hours, doc_currency)
    # The lines convert their own option prices (pricing.resolve) from the plan's currency.
    stored_currency = str(stored_cost.get("currency") or bom.currency)
    numbered = plans.editions(session=session, plan_id=plan.id)
    return {
        "plan": plan,
        # The customer's numbers (`plans.Editions`): this revision's, and the one answered.
        "editions": numbered,
        "edition": numbered.of(plan.version),
        "decision_edition": numbered.of(plan.decision_version),
        "doc_state": document_state(plan),
        "doc_state_names": DOCUMENT_STATE_NAMES,
        # A sent quote's revision saved since: the customer's version it follows (its draft
        # says so, as the plan page does: QA read "(version 2) Status Draft" and no word of
        # the version 1 the customer had).
        "draft_after": numbered.of(plan.sent_version)
        if plan.status == "sent" and plan.sent_version not in (None, plan.version)
        else None,
        "letterhead": dict(letterhead or {"name": gettext("Stratagem")}),
        "customer_record": customer,
        "quote": quote,
        "quote_lines": (
            document.quote_lines(
                quote, list(stored_cost.get("options") or []), gpu, hours, stored_currency
            )
            if quote
            else []
        ),
        "totals": pricing.totals(quote) if quote.get("lines") else None,
        # A percentage as entered (2.5% stays 2.5%): discounts and the tax rate.
        "pct": document.percent_text,
        "tax_label": document.tax_label,
        "customer_options": [
            {
                **o,
                "customer_label": labels.get(str(o.get("key")))
                or document.option_label(o, gpu, hours, detailed=True),
                "period_text": document.period_text(o),
                # The option's own total (the plan's), its rate in full beside it: the
                # rate × hours printed rounds to the total printed (NT$382.72/h × 28 h =
                # NT$10,716); a quote line of it comes to the same total.
                "price": document.option_price(o, hours, doc_currency),
                "buy_text": document.buy_breakdown_text(o, doc_currency),
            }
            for o in shown
        ],
        "infra_rows": document.infra_rows(result.get("infra") or {}),
        "customer_assumptions": document.assumption_rows(workload)
        + document.pricing_assumption_rows(cost, workload, rates=_rates(book, shown, doc_currency)),
        "gpu_text": (
            # a phased plan's GPUs change by phase: the summary names the peak as such
            gettext("up to %(gpus)s, by phase below") % {"gpus": document.gpu_text(gpu)}
            if result.get("schedule")
            else document.gpu_text(gpu)
        ),
        "quote_number": plan.quote_number,
        "issued": date.fromisoformat(quote["issued"]) if quote.get("issued") else issued,
        "valid_until": (
            date.fromisoformat(quote["valid_until"])
            if quote.get("valid_until")
            else issued + timedelta(days=VALID_DAYS)
        ),
        "seller": (owner.name or "").strip() if owner is not None else "",
        "model_name": model_name,
        "tier": result.get("tier", ""),
        "tier_label": gettext(TIERS.get(str(result.get("tier")), str(result.get("tier", "")))),
        "gpu": result.get("gpu") or {},
        "training": result.get("training"),
        "deadline_note": document.deadline_note(result.get("training"), workload),
        "memory": result.get("memory_per_gpu_gb") or {},
        "inference": result.get("inference"),
        "service_rows": document.service_rows(result.get("inference"), gpu, workload),
        "infra": result.get("infra") or {},
        "phased": result.get("schedule"),
        "phase_rows": document.phase_rows(result.get("schedule") or {}),
        "cost": cost,
        "currency": doc_currency,
        "options": cost.get("options") or [],
        "kinds": KINDS,
        # the seller, whose offers are its own ways to pay (the charts filter by it too)
        "house_provider": house,
        "quoted": quoted,
        "quoted_price": quoted_price,
        "quoted_tax": _quoted_tax(
            quoted_price, quoted, export=bool(customer and customer.export), currency=doc_currency
        ),
        "bom": bom,
        "quote_price_list": cost.get("price_list") or {},
        # Printed as a date in the document's language (never "2026-11-01" in a 中文 quote).
        "quote_price_list_date": _list_date(cost.get("price_list")),
        "assumptions": assumptions,
        "warnings": result.get("warnings") or [],
        "explain": result.get("explain") or [],
        "acceptance": [both_languages(m) for m in acceptance_tests(result)],
        "checklist": [both_languages(m) for m in CHECKLIST],
    }


def _list_date(stored: Any) -> date | None:
    """The effective date of the price list a plan was priced from; None without one."""
    if not isinstance(stored, Mapping) or not stored.get("effective_date"):
        return None
    try:
        return date.fromisoformat(str(stored["effective_date"]))
    except ValueError:
        return None


def _quoted_tax(
    price: Mapping[str, Any] | None,
    option: Mapping[str, Any] | None,
    *,
    export: bool,
    currency: str,
) -> dict[str, Any] | None:
    """Tax and total of a plan without quote lines, on its quoted total (`_quoted_price`,
    else the option's total in the currency's unit), at the customer's usual rate: 5% on a
    domestic sale, 0% on an export (PRODUCT.md §6: a quote shows 未稅, 稅額 and 含稅; QA: such
    a 報價單 showed its amount excluding tax only). Keys: rate, tax, total (Decimal)."""
    if price is not None:
        excl = pricing.dec(price["total"])
    elif option is not None and option.get("total") is not None:
        excl = pricing.round_money(pricing.dec(option["total"]), currency)
    else:
        return None
    rate = EXPORT_TAX_RATE if export else DOMESTIC_TAX_RATE
    tax = pricing.round_money(excl * rate, currency)
    return {"rate": rate, "tax": tax, "total": excl + tax}


def _quoted_price(
    option: Mapping[str, Any] | None, hours_per_month: float, currency: str
) -> dict[str, Any] | None:
    """The summary's "Quoted total" of a plan without quote lines, priced as a line of the
    option would be: buying at its up-front price, once (not its total for the period,
    which nets the resale value); a rental at its own total, rate in full × hours or months
    (`document.option_price`)."""
    if option is None:
        return None
    if option.get("kind") == "buy" and option.get("upfront"):
        return {
            "total": pricing.round_money(pricing.dec(option["upfront"]), currency),
            "rate_text": gettext("paid once, up front"),
        }
    return document.option_price(option, hours_per_month, currency)


def document_total(*, session: Session, plan: Plan) -> DocumentTotal | None:
    """The total the quote's documents print (`DocumentTotal`): its lines' totals, else the
    summary's quoted option with its tax, read from the document's own context
    (`quote_view`), so the API and the PDF cannot disagree."""
    quote = plan.quote or {}
    if quote.get("lines"):
        t = pricing.totals(quote)
        return DocumentTotal(
            basis="lines", currency=t.currency, subtotal=t.subtotal, tax_rate=t.tax_rate,
            tax=t.tax, total=t.total,
        )  # fmt: skip
    view = quote_view(session=session, plan=plan)
    option, price, tax = view["quoted"], view["quoted_price"], view["quoted_tax"]
    if option is None or tax is None:
        return None
    return DocumentTotal(
        basis="option",
        option_key=str(option.get("key")),
        currency=str(view["currency"]),
        subtotal=tax["total"] - tax["tax"],
        tax_rate=tax["rate"],
        tax=tax["tax"],
        total=tax["total"],
        rate_text=price["rate_text"] if price else None,
    )


#: (infrastructure figure, what a server has of it, its unit, its name) for `server_shortfalls`.
_SERVER_PARTS: Final = (
    ("ram_gb", "ram_gb", "GB", N_("RAM")),
    ("cpu_cores", "cpu_cores", "", N_("CPU cores")),
    ("nvme_tb", "nvme_tb", "TB", N_("local NVMe")),
)


def server_shortfalls(*, session: Session, plan: Plan) -> list[str]:
    """What the plan's infrastructure asks beyond the servers its quote buys, in the page's
    language, for the sales engineer: QA read "RAM 768 GB" in the quote's infrastructure
    table beside a purchase line for the catalog's 4-GPU server of 512 GB (seed 003 T6's
    template, below T6/U5's own RAM ≥ 2 × VRAM). Empty unless a line quotes buying."""
    quote: Mapping[str, Any] = plan.quote or {}
    result: Mapping[str, Any] = plan.result or {}
    cost: Mapping[str, Any] = result.get("cost") or {}
    infra: Mapping[str, Any] = result.get("infra") or {}
    book = _book(session, plan)
    option = quoted_option(cost, quote, book.house_provider if book is not None else "")
    quoted_keys = {line.get("option_key") for line in quote.get("lines") or []}
    if book is None or not option or option.get("kind") != "buy":
        return []
    if option.get("key") not in quoted_keys:
        return []
    ids = set(option.get("source_ids") or [])
    server = next((sv for sv in book.servers if sv.id in ids), None)
    if server is None:
        return []
    gpus = float(
        (option.get("billed") or {}).get("gpus") or (result.get("gpu") or {}).get("count") or 0
    )
    count = max(1, math.ceil(gpus / server.gpu_count)) if gpus else 1
    out = []
    for need_key, have_key, unit, label in _SERVER_PARTS:
        need = infra.get(need_key)
        have = float(getattr(server, have_key)) * count
        if need and have < float(need):
            out.append(
                gettext(
                    "%(count)s × %(server)s has %(have)s of %(what)s; this plan is sized for "
                    "%(need)s. Quote the upgrade as a line of its own, or tell the customer "
                    "why less will do."
                )
                % {
                    "count": count,
                    "server": wording.server_name(server.name),
                    "have": f"{have:,.0f} {unit}".strip(),
                    "what": gettext(label),
                    "need": f"{float(need):,.0f} {unit}".strip(),
                }
            )
    return out


def public(*, session: Session, plan: Plan) -> PlanPublic:
    """The API's view of a plan (`plans.public`) with the total its documents print."""
    out = plans.public(session=session, plan=plan)
    out.document_total = document_total(session=session, plan=plan)
    return out


def bom_for(*, session: Session, plan: Plan) -> Bom:
    """The plan's bill of materials (app.quotes.bom), priced from its stored result."""
    return build_bom(
        plan.result or {},
        book=_book(session, plan),
        workload=plan.workload or {},
        quote=plan.quote,
    )


# --------------------------------------------------------------------------------------------
# A quote's life: draft → sent → accepted | declined | expired (issue 10)
# --------------------------------------------------------------------------------------------


class QuoteStateError(errors.Conflict):
    """The quote is not in a state that allows this (409); `field` names the state."""

    def __init__(self, message: str, *, state: str, **params: Any) -> None:
        super().__init__(message, field=f"status.{state}", **params)


def _owner(session: Session, plan: Plan) -> User:
    owner = session.get(User, plan.owner_id)
    assert owner is not None  # FK
    return owner


def discount_state(*, session: Session, plan: Plan, limit_pct: Decimal) -> dict[str, Any]:
    """{deepest, limit, needs_approval, approved_by, approved_at} for the plan pages."""
    owner = _owner(session, plan)
    approver = (
        session.get(User, plan.discount_approved_by)
        if plan.discount_approved_by is not None
        else None
    )
    return {
        "deepest": pricing.max_discount_pct(plan.quote) if plan.quote else Decimal(0),
        "limit": limit_pct,
        "needs_approval": plans.needs_discount_approval(plan, owner=owner, limit_pct=limit_pct),
        "approved_pct": plan.discount_approved_pct,
        "approved_by": (approver.name or approver.email) if approver is not None else "",
        "approved_at": plan.discount_approved_at,
    }


def option_keys(result: Mapping[str, Any]) -> set[str]:
    """The keys of the cost options a plan's result offers (what a quote line may name)."""
    return {str(o.get("key")) for o in (result.get("cost") or {}).get("options") or []}


def stale_option_lines(plan: Plan) -> list[int]:
    """Lines (1-based, as printed) whose cost option the plan's current result no longer has.

    A revision of the workload (5 GPUs where the quote priced a 4-GPU server) leaves such a
    line behind: it prints its price with no name (QA), so it is flagged in the builder and
    never sent."""
    keys = option_keys(plan.result)
    return [
        i
        for i, line in enumerate((plan.quote or {}).get("lines") or [], start=1)
        if line.get("option_key") and str(line["option_key"]) not in keys
    ]


#: A quote line naming an option the engine marks not runnable (RunPod's single-GPU
#: machines for a plan that needs 8 GPUs on NVLink): the customer would buy what cannot run.
NOT_RUNNABLE_LINES: Final = N_(
    "line %(lines)s quotes a cost option that cannot run this plan (its note on the plan "
    "says why): choose a runnable option for it, or remove it, then send"
)


def _options_by_key(plan: Plan) -> dict[str, Mapping[str, Any]]:
    """The plan's cost options by key (what a quote line's `option_key` names)."""
    options = ((plan.result or {}).get("cost") or {}).get("options") or []
    return {str(o.get("key")): o for o in options}


def infeasible_option_lines(plan: Plan) -> list[int]:
    """Lines (1-based, as printed) quoting a cost option the plan's result marks not runnable
    (`feasible: false`): a revision or a new price list can turn a quoted option so."""
    by_key = _options_by_key(plan)
    return [
        i
        for i, line in enumerate((plan.quote or {}).get("lines") or [], start=1)
        if line.get("option_key")
        and by_key.get(str(line["option_key"]), {}).get("feasible", True) is False
    ]


#: A term contract's price quoted for fewer months than the contract: a discount no
#: approval saw (QA: a 12-month price for 7 months, NT$40,000 against NT$50,000 monthly).
SHORT_CONTRACT: Final = N_(
    "line %(line)s quotes a %(term)s-month contract's price for %(months)s months: quote at "
    "least %(term)s months, or choose monthly rent for a shorter period"
)


def short_contract_lines(plan: Plan) -> list[tuple[int, int, str]]:
    """(line, contract months, months quoted) for each line quoting a term contract's price
    for fewer months than the contract (options saved before `contract_months`: none)."""
    by_key = _options_by_key(plan)
    out = []
    for i, line in enumerate((plan.quote or {}).get("lines") or [], start=1):
        option = by_key.get(str(line.get("option_key") or ""), {})
        term = option.get("contract_months")
        if option.get("kind") != "rent_term" or not term or line.get("unit") != "month":
            continue
        months = Decimal(str(line.get("months") or 0))
        if months < Decimal(int(term)):
            out.append((i, int(term), format(months.normalize(), "f")))
    return out


def _numbers(lines: list[int]) -> str:
    return ", ".join(map(str, lines))


def _check_tax_rate(session: Session, plan: Plan, quote: Mapping[str, Any]) -> None:
    """A domestic customer's quote is not sent at 0%: its document would call the sale a
    zero-rated export (QA). An export customer at 5% is allowed (a service used in Taiwan):
    the document then says what it charges, and the builder warns."""
    customer = session.get(Customer, plan.customer_id) if plan.customer_id is not None else None
    if customer is not None and pricing.domestic_at_zero(
        export=customer.export, tax_rate=quote.get("tax_rate")
    ):
        raise errors.Invalid(DOMESTIC_AT_ZERO, field="quote.tax_rate", name=customer.name)


#: The customer's record changed its billing currency after the quote was saved.
CURRENCY_MOVED: Final = N_(
    "is %(old)s, but %(name)s is now billed in %(new)s: save the quote again to price it in "
    "%(new)s, then send"
)


def _check_currency(session: Session, plan: Plan, quote: Mapping[str, Any]) -> None:
    """The quote goes out in the currency its customer is billed in. A customer record
    switched from US$ to NT$ after the quote was saved kept the draft in US$, and "Send"
    sent it so without a word (QA); a save prices it anew (`plans.service._billed_anew`)."""
    customer = session.get(Customer, plan.customer_id) if plan.customer_id is not None else None
    stored = str(quote.get("currency") or "")
    if customer is not None and stored and customer.currency != stored:
        raise errors.Invalid(
            CURRENCY_MOVED, field="quote.currency", old=stored, new=customer.currency,
            name=customer.name,
        )  # fmt: skip


def _seen(session: Session, plan: Plan, version: int | None) -> None:
    """Conflict when what the user saw at `version` (None: not said) has changed since, other
    than the status (`plans.content_changed_since`)."""
    if version is not None and version > plan.version:  # a version the plan never had
        raise plans.Conflict(current_version=plan.version, changed_fields=[])
    changed = plans.content_changed_since(session, plan, version)
    if changed:
        raise plans.Conflict(current_version=plan.version, changed_fields=changed)


def _sent_as_is(plan: Plan, buyer: dict[str, Any] | None = None) -> bool:
    """The quote was sent and nothing was saved since: the customer has this version — and,
    given the buyer as it would be sent now (`customer_snapshot`), to the same buyer (a
    corrected address or 統一編號 is sent again, as a new revision)."""
    return (
        plan.status == "sent"
        and plan.sent_version == plan.version
        and (buyer is None or plan.sent_customer is None or plan.sent_customer == buyer)
    )


#: What a sent quote keeps of its customer record: what its documents print and decide by.
BUYER_FIELDS: Final = (
    "name",
    "tax_id",
    "contact",
    "email",
    "address",
    "language",
    "currency",
    "export",
)


def customer_snapshot(session: Session, plan: Plan) -> dict[str, Any] | None:
    """The plan's customer record as a quote sent now carries it (None: no customer)."""
    customer = session.get(Customer, plan.customer_id) if plan.customer_id is not None else None
    if customer is None:
        return None
    return {f: getattr(customer, f) for f in BUYER_FIELDS}


def printed_customer(session: Session, plan: Plan) -> Customer | None:
    """The buyer a document of `plan` (the live plan or a `customer_copy`) prints: on the sent
    revision, the customer as the quote was sent (a transient record, never added to the
    session); otherwise, and for quotes sent before buyers were kept, the record as it is."""
    if (
        plan.sent_customer is not None
        and plan.sent_version is not None
        and plan.version == plan.sent_version
    ):
        return Customer(id=plan.customer_id, **plan.sent_customer)
    return session.get(Customer, plan.customer_id) if plan.customer_id is not None else None


def send_quote(
    *,
    session: Session,
    plan_id: int,
    actor: User,
    limit_pct: Decimal,
    version: int | None = None,
) -> Plan:
    """Freeze the current revision as the one the customer sees and mark the quote sent.

    422 when there is no quote line or its validity date has passed; 409 when the quote was
    already decided, its discount waits for an admin's approval, or its content changed since
    `version` (the revision the sender was looking at; None: the current one). Sending again
    what was already sent, unchanged, changes nothing — also when two sends of the same
    revision race (a double click): the second finds the first's result and answers as it did.
    """
    plan = plans.get_plan(session=session, plan_id=plan_id)
    if not plans.can_edit(actor, plan):
        raise plans.Forbidden(N_("Only the plan's owner or an admin can change it."))
    plans.require_undecided(plan)  # a second answer must never replace the first
    if plan.archived:
        # Archived is "put away": a customer must not receive a quote nobody can find.
        raise QuoteStateError(
            N_("the plan is archived: restore it before sending its quote"), state="archived"
        )
    _seen(session, plan, version)
    quote = plan.quote or {}
    if not quote.get("lines"):
        raise errors.Invalid(N_("add at least one line before sending"), field="quote.lines")
    stale = stale_option_lines(plan)
    if stale:
        raise errors.Invalid(
            N_(
                "line %(lines)s quotes a cost option this revision of the plan no longer has: "
                "choose one of its options for it, or remove it, then send"
            ),
            field="quote.lines",
            lines=_numbers(stale),
        )
    infeasible = infeasible_option_lines(plan)
    if infeasible:
        raise errors.Invalid(NOT_RUNNABLE_LINES, field="quote.lines", lines=_numbers(infeasible))
    short = short_contract_lines(plan)
    if short:
        line, term, months = short[0]
        raise errors.Invalid(
            SHORT_CONTRACT, field="quote.lines", line=line, term=term, months=months
        )
    if plan.valid_until is not None and plan.valid_until < plans.today():
        raise errors.Invalid(
            N_("is in the past: set a new validity date"), field="quote.valid_until"
        )
    _check_tax_rate(session, plan, quote)
    _check_currency(session, plan, quote)
    if plans.needs_discount_approval(plan, owner=_owner(session, plan), limit_pct=limit_pct):
        raise QuoteStateError(
            N_("a discount of %(pct)s%% is over the %(limit)s%% limit: an admin must approve it"),
            state="discount_approval_required",
            pct=pricing.max_discount_pct(quote),
            limit=limit_pct,
        )
    buyer = customer_snapshot(session, plan)
    if _sent_as_is(plan, buyer):
        # Nothing changed since it was sent: the customer already has this version, and a
        # second revision would list one quote as sent twice (a double click, a retry).
        return plan
    read_at = plan.version
    try:
        return plans.record_change(
            session=session,
            plan=plan,
            values={
                "status": "sent",
                "sent_version": plan.version + 1,
                "sent_at": utcnow(),
                "sent_customer": buyer,
            },
            actor=actor,
            summary=plans.SENT_SUMMARY,  # the customer's editions count these (plans.editions)
        )
    except plans.Conflict:
        # Another request wrote in between. When it was a send of the very revision this one
        # read, the customer has what this send meant to give them.
        current = plans.get_plan(session=session, plan_id=plan_id)
        if _sent_as_is(current) and current.version == read_at + 1:
            return current
        raise


def approve_discount(
    *, session: Session, plan_id: int, actor: User, version: int | None = None
) -> Plan:
    """An admin approves the quote's current deepest discount: who, when and how deep are
    recorded on the plan and as a revision in its history.

    `version`: the revision the admin reviewed. When the quote changed since (a deeper
    discount saved while the admin was reading), the approval is refused with a Conflict, so
    an approval never covers a discount its admin did not see. Approving what is already
    approved changes nothing."""
    if actor.role != "admin":
        raise plans.Forbidden(N_("Only an admin can approve a discount."))
    plan = plans.get_plan(session=session, plan_id=plan_id)
    if not plan.quote:
        raise errors.Invalid(N_("the plan has no quote"), field="quote")
    plans.require_undecided(plan)  # the approval on record is the one the customer saw
    _seen(session, plan, version)
    deepest = pricing.max_discount_pct(plan.quote)
    if plan.discount_approved_pct is not None and Decimal(plan.discount_approved_pct) >= deepest:
        return plan
    # The version check of the write is the arbiter: a save landing between this read and
    # the write makes this approval a Conflict rather than an approval of unseen content.
    return plans.record_change(
        session=session,
        plan=plan,
        values={
            "discount_approved_pct": deepest,
            "discount_approved_by": actor.id,
            "discount_approved_at": utcnow(),
        },
        actor=actor,
        summary=f"discount of {deepest.normalize():f}% approved",
    )


def _decidable(plan: Plan) -> None:
    if plan.status == "expired":
        raise QuoteStateError(
            N_("the quote expired and can no longer be accepted"), state="expired"
        )
    # One msgid per state: a status value inside a translated sentence stays English.
    if plan.status == "accepted":
        raise QuoteStateError(N_("the quote was already accepted"), state=plan.status)
    if plan.status == "declined":
        raise QuoteStateError(N_("the quote was already declined"), state=plan.status)
    if plan.status != "sent" or plan.sent_version is None:
        raise QuoteStateError(N_("the quote has not been sent"), state=plan.status)


def _required(value: str | None, field: str, limit: int, *, multiline: bool = False) -> str:
    """The customer's text, trimmed: required, without control or direction characters (a
    signature must read as it was stored), at most `limit` characters."""
    answer = (value or "").strip()
    if not answer:
        raise errors.Invalid(N_("This field is required."), field=field)
    text.check(answer, field=field, multiline=multiline)
    if len(answer) > limit:
        raise errors.Invalid(N_("at most %(n)s characters"), field=field, n=limit)
    return answer


#: How many times a customer's answer is written again when a save lands between reading
#: the plan and writing the answer (a salesperson editing the sent quote, the validity date
#: passing): the answer is to the sent revision, which such a save does not change, so the
#: customer must not be turned away by it (race QA: 5 of 5 accepts refused on PostgreSQL).
ANSWER_ATTEMPTS: Final = 5


def _answer(
    session: Session,
    plan_id: int,
    *,
    revision: int | None,
    decision: Callable[[], tuple[dict[str, Any], str]],
    guard: plans.Guard | None,
) -> Plan:
    """Write the customer's answer to the sent revision (see `accept_quote`).

    `decision()` gives the answer's columns and its history summary (validating the
    customer's fields); the plan's content is set back to the sent revision's (`as_sent`).
    `revision`: the version the customer was shown (None: not said); a quote sent again as
    another version since is refused (409 `status.revised`) — an answer names what it covers.
    """
    for _attempt in range(ANSWER_ATTEMPTS):
        plan = plans.get_plan(session=session, plan_id=plan_id)  # applies expiry
        _decidable(plan)
        if revision is not None and plan.sent_version != revision:
            raise QuoteStateError(
                N_(
                    "This quote was revised after you opened it: version %(n)s is the one on "
                    "offer now. Please read it, then answer again."
                ),
                state="revised",
                n=plans.editions(session=session, plan_id=plan_id).of(plan.sent_version),
            )
        values, summary = decision()
        restored = plans.as_sent(session, plan)
        try:
            return plans.record_change(
                session=session,
                plan=plan,
                values={**restored, **values, "decision_version": plan.sent_version},
                actor=_owner(session, plan),
                summary=summary + _restored_note(restored, plan),
                guard=guard,
            )
        except plans.Conflict:
            continue  # read again: decided, re-sent or only edited since?
    raise QuoteStateError(
        N_("The quote is being updated right now: please try again in a minute."),
        state="busy",
    )


def accept_quote(
    *,
    session: Session,
    plan: Plan,
    name: str | None,
    title: str | None,
    agreed: bool,
    ip: str,
    revision: int | None = None,
    guard: plans.Guard | None = None,
) -> Plan:
    """The customer accepts the sent revision: name, title, the tick box; time, IP and the
    revision are recorded. 409 when expired, already decided, never sent, or sent again as
    another version than `revision` (the one the customer read). `guard` runs in the
    answer's transaction (the share link still open: `app.sharing.service.require_open`)."""

    def accepted() -> tuple[dict[str, Any], str]:
        who = _required(name, "name", 200)
        role = _required(title, "title", 200)
        if not agreed:
            raise errors.Invalid(N_("Tick the box to accept the quote."), field="agree")
        values = {
            "decision_name": who,
            "decision_title": role,
            "status": "accepted",
            "decided_at": utcnow(),
            "decision_ip": ip[:64],
        }
        return values, f"accepted by the customer: {who}, {role}"

    return _answer(session, _id(plan), revision=revision, decision=accepted, guard=guard)


def _restored_note(restored: Mapping[str, Any], plan: Plan) -> str:
    if not restored:
        return ""
    return (
        f"; the plan is version {plan.sent_version} again, as sent "
        f"(version {plan.version} was saved after sending)"
    )


def decline_quote(
    *,
    session: Session,
    plan: Plan,
    reason: str | None,
    ip: str,
    revision: int | None = None,
    guard: plans.Guard | None = None,
) -> Plan:
    """The customer declines the sent revision with a reason (409s as `accept_quote`)."""

    def declined() -> tuple[dict[str, Any], str]:
        values = {
            "status": "declined",
            "decline_reason": _required(reason, "reason", 2000, multiline=True),
            "decided_at": utcnow(),
            "decision_ip": ip[:64],
        }
        return values, "declined by the customer"

    return _answer(session, _id(plan), revision=revision, decision=declined, guard=guard)


def _id(plan: Plan) -> int:
    assert plan.id is not None
    return plan.id


def customer_copy(*, session: Session, plan: Plan) -> Plan:
    """What the customer sees: the sent revision once the quote was sent, else the plan.

    A transient Plan (never added to the session) built from the revision's snapshot, with
    the live plan's identity and decision, so documents render it like any plan."""
    if plan.sent_version is None:
        return plan
    assert plan.id is not None
    rev = plans.get_revision(session=session, plan_id=plan.id, version=plan.sent_version)
    copy = Plan(
        id=plan.id,
        quote_number=plan.quote_number,
        owner_id=plan.owner_id,
        version=rev.version,
        created_at=plan.created_at,
        updated_at=rev.created_at,
        tier=str((rev.result or {}).get("tier", "")),
        **{k: v for k, v in plans.snapshot(rev).items() if k != "status"},
        status=plan.status,
        sent_version=plan.sent_version,
        sent_at=plan.sent_at,
        sent_customer=plan.sent_customer,
        decided_at=plan.decided_at,
        decision_name=plan.decision_name,
        decision_title=plan.decision_title,
        decision_version=plan.decision_version,
        decline_reason=plan.decline_reason,
    )
    if rev.quote:
        copy.quote_totals = pricing.totals(rev.quote).public()
        copy.valid_until = date.fromisoformat(rev.quote["valid_until"])
    return copy


#: What a quote document says it is, in the customer's words (`document_state`): never the
#: sales pipeline's "Lost", nor "Sent" over a revision nobody sent.
DOCUMENT_STATE_NAMES: Final = {
    "draft": N_("Draft"),
    "sent": N_("Sent"),
    "accepted": N_("Accepted"),
    "declined": N_("Declined"),
    "expired": N_("Expired"),
    "withdrawn": N_("Withdrawn"),
}


def document_state(plan: Plan) -> str:
    """The state a document of `plan` (the live plan or a `customer_copy`) states, one of
    `DOCUMENT_STATE_NAMES`: only a "sent" document of the sent revision can be signed.

    The customer's answer and the validity date are said as they are; a revision saved after
    sending and not sent is a draft; a sent quote the seller set back to draft or marked lost
    is withdrawn for the customer (QA: declined, lost and draft quotes printed signature lines,
    and the share page showed "Lost" and "This is a draft" over a quote that had been sent).
    """
    if plan.status in ("accepted", "declined", "expired"):
        return plan.status
    is_sent_revision = plan.sent_version is not None and plan.version == plan.sent_version
    if plan.status == "sent":
        return "sent" if is_sent_revision else "draft"
    if plan.status == "lost" or is_sent_revision:
        return "withdrawn"
    return "draft"


def seller_copy(*, session: Session, plan: Plan) -> Plan:
    """What the seller's document prints: the revision the customer has (`customer_copy`,
    numbered as sent) once the customer answered or the quote expired, and while it is sent
    or lost with nothing it prints changed since sending; else the plan as it is (a draft).

    QA: the seller's PDF of an accepted quote read "version 5" over "accepted … version 4",
    the customer's copy "version 4": recording the answer is a revision of its own."""
    if plan.sent_version is None or plan.status == "draft":
        return plan
    if plan.status in ("accepted", "declined", "expired"):
        return customer_copy(session=session, plan=plan)
    sent = plans.as_sent(session, plan)
    if all(getattr(plan, f) == sent[f] for f in plans.AS_SENT if f in sent):
        return customer_copy(session=session, plan=plan)
    return plan


@dataclass(frozen=True, slots=True)
class UnsentRevision:
    """A sent quote saved since with other content (a reprice, an edit): what the customer's
    link still shows and what this revision asks, each as its documents total it."""

    sent_edition: int  # the customer's version, the one the share link shows
    sent_total: DocumentTotal | None
    edition: int  # the customer's version this revision becomes when it is sent
    total: DocumentTotal | None


def unsent_revision(*, session: Session, plan: Plan) -> UnsentRevision | None:
    """The sent quote's unsent revision (`UnsentRevision`), or None: not sent, answered, or
    nothing the documents print changed since sending (`seller_copy`).

    QA: after a sent quote was repriced the page said "Sent" over the new total, the seller's
    PDF printed the new total as a draft "version 2", and nothing said that the customer's
    link still asked the sent one."""
    if plan.status != "sent" or plan.sent_version is None or plan.version == plan.sent_version:
        return None
    if seller_copy(session=session, plan=plan) is not plan:
        return None  # a save that changed nothing the customer reads (notes, tags)
    numbered = plans.editions(session=session, plan_id=plan.id)
    sent = customer_copy(session=session, plan=plan)
    return UnsentRevision(
        sent_edition=numbered.of(plan.sent_version) or 1,
        sent_total=document_total(session=session, plan=sent),
        edition=numbered.of(plan.version) or 1,
        total=document_total(session=session, plan=plan),
    )


def document_language(*, session: Session, plan: Plan) -> str:
    """The language of the customer's document: the customer's (as the quote was sent, once it
    was), else 中文."""
    if plan.sent_customer is not None and plan.sent_version is not None:
        return str(plan.sent_customer.get("language") or "zh-TW")
    if plan.customer_id is not None:
        customer = session.get(Customer, plan.customer_id)
        if customer is not None:
            return customer.language
    return "zh-TW"


def letterhead(settings: Settings) -> dict[str, str]:
    """The seller's block of every quote (STRATAGEM_COMPANY_* settings)."""
    return {
        "name": settings.company_name,
        "address": settings.company_address,
        "tax_id": settings.company_tax_id,
        "contact": settings.company_contact,
    }
