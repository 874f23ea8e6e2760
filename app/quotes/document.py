"""The customer's document (share page and PDF): only what the customer should see, in the
customer's language.

No raw enum values (`full_finetune`), no catalog ids (`stratagem-tpe-h100-x4`), no seed-rule
or PRODUCT.md references: option labels are rebuilt from the option's kind, the GPU count and
the GPU's display name; the estimate's notes and formula appendix stay in the sales
engineer's explain view. Public-cloud options appear only when the quote switches them on.
Call with the document's language active (`app.i18n.activate`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any, Final

from babel.dates import format_date
from babel.numbers import format_decimal

from app.costs import wording
from app.engine.formatting import CURRENCY_DIGITS, currency_symbol, gpu_name, number
from app.engine.price_book import FxRate
from app.engine.units import HOURS_PER_MONTH
from app.i18n import N_, babel_locale, count_words, gettext, listing, ngettext, paren
from app.quotes import pricing
from app.quotes.currency import in_quote_currency

TASKS: Final = {
    "pretrain": N_("Pre-training"),
    "full_finetune": N_("Full fine-tuning"),
    "lora": N_("LoRA fine-tuning"),
    "qlora": N_("QLoRA fine-tuning (4-bit base)"),
    "inference": N_("Inference (serving)"),
    "image": N_("Image generation"),
}
KIND_NAMES: Final = {
    "rent_hourly": N_("Hourly rent"),
    "rent_monthly": N_("Monthly rent"),
    "rent_term": N_("Term rent"),
    "mig": N_("MIG slice rent"),
    "buy": N_("Buy"),
    "cloud": N_("Public cloud"),
    "cloud_reserved": N_("Public cloud, reserved"),
}
CLOUD_KINDS: Final = ("cloud", "cloud_reserved")
_TERM: Final = re.compile(r"(\d+)-month contract")
UNITS: Final = {"hour": N_("h"), "month": N_("months"), "item": ""}


def gpu_text(gpu: Mapping[str, Any]) -> str:
    """'4 × NVIDIA H100 SXM5 80GB'; a MIG slice as the share of one GPU it is, '1/4 of an
    NVIDIA H100 SXM5 80GB (MIG slice)' (QA: '0.25 × NVIDIA H100' read as a typo)."""
    count = gpu.get("count")
    name = gpu_name(str(gpu.get("name") or ""))  # no English qualifier in a 中文 document
    if count is None:
        return str(name)
    if 0 < float(count) < 1:
        share = Fraction(float(count)).limit_denominator(8)
        return gettext("%(share)s of one %(name)s (MIG slice)") % {
            "share": f"{share.numerator}/{share.denominator}",
            "name": name,
        }
    n = f"{int(count):,}" if float(count).is_integer() else count
    return f"{n} × {name}"


def priced_gpus_text(option: Mapping[str, Any], gpu: Mapping[str, Any]) -> str:
    """The GPUs an option pays for. A rented or bought server (or a cloud instance) comes
    whole, so it can hold more GPUs than the plan uses; the price is for all of them, and
    the label says so: '8 × NVIDIA H100 SXM5 80GB (the plan uses 5)'. GPUs spread over
    several servers say how many ('4 × NVIDIA H100 SXM5 80GB on 4 servers'): two offers of
    the same GPUs, one server of 4 and four of 1, must not read the same at other prices."""
    billed = option.get("billed") or {}
    paid = billed.get("gpus")
    used = gpu.get("count")
    if paid is None or used is None or float(paid) == float(used):
        text = gpu_text(gpu)
    else:
        text = gettext("%(paid)s (the plan uses %(used)s)") % {
            "paid": gpu_text({**gpu, "count": paid}),
            "used": f"{float(used):g}",
        }
    try:
        nodes = int(billed.get("nodes") or 1)
    except (TypeError, ValueError):
        nodes = 1
    if nodes > 1:
        text = gettext("%(gpus)s on %(n)s servers") % {"gpus": text, "n": f"{nodes:,}"}
    return text


def option_label(
    option: Mapping[str, Any],
    gpu: Mapping[str, Any],
    hours_per_month: float,
    *,
    detailed: bool = False,
) -> str:
    """'Term rent — 6-month contract · 4 × NVIDIA H100 SXM5 80GB' in the active language.

    `detailed`: a public-cloud option also names the GPUs its price pays for and the date
    of that price (the ways-to-pay table; a chart legend keeps the short name)."""
    kind = str(option.get("kind", ""))
    if option.get("key") == "schedule":  # app.plans.schedule's headline option
        return gettext("Phased rental")
    if str(option.get("key", "")).startswith("phase-"):  # one phase of a phased plan
        n = int(option.get("phase") or 0) + 1
        name = phase_name(option.get("phase_label"), option.get("phase_kind"), option.get("task"))
        # "Phase 2: name" / "第 2 階段：name": the separator is the language's own
        head = gettext("%(phase)s: %(name)s") % {
            "phase": gettext("Phase %(n)s") % {"n": n},
            "name": name,
        }
        return f"{head} — {billing_text(option)} · " + gpu_text(option.get("gpu") or gpu)
    name = gettext(KIND_NAMES.get(kind, N_("Option")))
    if kind in CLOUD_KINDS:
        # The provider's public product name ("AWS p5.48xlarge"), without our catalog id,
        # the GPUs its price pays for (an instance comes whole: 8 for a plan of 2) and the
        # date of that public price (cloud prices change: AWS cut the p5 by 44 % in 2025).
        label = str(option.get("label", ""))
        product = label.split(" — ")[0].replace(" on demand", "")
        # The engine's "1-year reserved" in the reader's words (QA: "公有雲,預留 — AWS
        # g6e.48xlarge 1-year reserved" on a 中文 page).
        provider, _sep, instance = product.partition(" ")
        kind_of, _sep, rest = instance.partition(" ")
        api_id = wording.is_api_id(kind_of)
        if api_id and (count := _GPUS_IN_ID.match(kind_of)) and gpu.get("name"):
            # Said as its GPUs, as /tco says it (app.costs.wording.instance_name).
            said = wording.gpus_said(count.group(1), str(gpu["name"]))
            product = f"{provider} {said}" + (f" {rest}" if rest else "")
        if found_term := _RESERVED.search(product):
            product = (
                product[: found_term.start()]
                + " · "
                + gettext("%(n)s-year term") % {"n": found_term.group(1)}
            )
        text = f"{name} — {product}"
        if not detailed:
            return text
        if gpu:
            text += " · " + priced_gpus_text(option, gpu)
        if found := _PRICE_DATE.search(label):
            when = format_date(date.fromisoformat(found.group(1)), "medium", locale=babel_locale())
            text += " · " + gettext("public price of %(date)s") % {"date": when}
        return text
    parts = [name]
    if kind == "rent_term":
        # The contract's length is in the engine's label ("6-month contract — …"); a total
        # over a longer view (the five-year TCO) must not turn it into a 60-month contract.
        found = _TERM.search(str(option.get("label", "")))
        months = (
            found.group(1)
            if found
            else f"{pricing.option_defaults(option, hours_per_month)['months'].normalize():f}"
        )
        parts.append(gettext("%(n)s-month contract") % {"n": months})
    if gpu:
        parts.append(priced_gpus_text(option, gpu))
    return " — ".join(parts[:1]) + (" · " + " · ".join(parts[1:]) if parts[1:] else "")


_PRICE_DATE: Final = re.compile(r"price of (\d{4}-\d{2}-\d{2})")
_RESERVED: Final = re.compile(r" (\d+)-year reserved$")
_GPUS_IN_ID: Final = re.compile(r"gpu_(\d+)x_")  # Lambda's "gpu_8x_h100_sxm5"
_PROVIDER: Final = re.compile(r"\(([^()]+)\)\s*$")


def option_labels(
    options: list[Mapping[str, Any]],
    gpu: Mapping[str, Any],
    hours_per_month: float,
    *,
    detailed: bool = False,
) -> dict[str, str]:
    """`option_label` of each option by key; two that would read the same (the provider's
    1-GPU hourly rent at NT$120/h and another provider's at NT$96/h) each end with the
    provider's name: the option's `provider`, or, in a result saved before options carried
    one, what the engine's label has last in brackets ("… (RunPod)"). So does every rental
    of a kind two providers offer: "Hourly rent · 5 × H100 on 2 servers" at NT$600/h beside
    "… on 5 servers" at NT$478/h left the customer asking for an offer nobody named (QA)."""
    labels = {
        str(o.get("key")): option_label(o, gpu, hours_per_month, detailed=detailed) for o in options
    }
    return _providers_told_apart(options, labels)


def option_labels_of(results: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """`option_labels` of the options of several results of one plan (two revisions compared,
    the first result's option first where both have a key), each named with its own result's
    GPUs, and providers told apart over all of them: after a reprice the comparison listed
    "Hourly rent · 1 × H100" twice, Stratagem's and RunPod's, and a RunPod offer the new list
    dropped read like the Stratagem one beside it (QA)."""
    options: dict[str, Mapping[str, Any]] = {}
    labels: dict[str, str] = {}
    for result in results:
        cost = result.get("cost") or {}
        hours = float(cost.get("hours_per_month") or 730.0)
        for o in cost.get("options") or []:
            key = str(o.get("key"))
            if key not in options:
                options[key] = o
                labels[key] = option_label(o, result.get("gpu") or {}, hours)
    return _providers_told_apart(list(options.values()), labels)


def _providers_told_apart(
    options: Sequence[Mapping[str, Any]], labels: dict[str, str]
) -> dict[str, str]:
    """`labels` by option key, a rental's ending with its provider where another option reads
    the same or another provider offers its kind (`option_labels`)."""
    seen = Counter(labels.values())
    providers = {str(o.get("key")): _provider(o) for o in options}
    offered_by: dict[str, set[str]] = {}
    for o in options:
        # An offer that cannot run the plan is offered to no one (app.quotes.pricing).
        if providers[str(o.get("key"))] and o.get("feasible", True) is not False:
            offered_by.setdefault(str(o.get("kind")), set()).add(providers[str(o.get("key"))])
    for o in options:
        key = str(o.get("key"))
        provider = providers[key]
        alike = seen[labels[key]] > 1 or len(offered_by.get(str(o.get("kind")), ())) > 1
        if alike and provider and o.get("kind") not in CLOUD_KINDS:
            labels[key] = f"{labels[key]} · {provider}"
    return labels


def _provider(option: Mapping[str, Any]) -> str:
    """Who offers `option`: its `provider`, else the engine's label's last brackets."""
    found = _PROVIDER.search(str(option.get("label", "")))
    return str(option.get("provider") or (found.group(1) if found else "")).strip()


def phase_name(label: Any, kind: Any, task: Any) -> str:
    """A phase's name in the active language: its label, else its task or "Capacity"."""
    if label:
        return str(label)
    if kind == "workload" and task in TASKS:
        return gettext(TASKS[str(task)])
    return gettext("Capacity")


def billing_terms(p: Mapping[str, Any]) -> list[tuple[str, str]]:
    """How a phase is billed, in customer words, as (what comes before, a piece that wraps
    whole): [('', 'Term rent'), (' ', '(12-month contract)')], in 中文 [('', '長約租用'),
    ('', '（12 個月合約）')]. A narrow cell breaks between the pieces, never inside one."""
    kind = str(p.get("billing") or p.get("kind") or "")
    parts = [("", gettext(KIND_NAMES.get(kind, N_("Monthly rent"))))]
    if p.get("term_months"):
        contract = paren(gettext("%(n)s-month contract") % {"n": p["term_months"]})
        parts.append((contract[: len(contract) - len(contract.lstrip())], contract.lstrip()))
    return parts


def billing_parts(p: Mapping[str, Any]) -> list[tuple[str, str]]:
    """`billing_terms` and, billed by the hour, the hours in all: [('', 'Hourly rent'),
    (' · ', '1,460 h in all')] (the PDF's phase table)."""
    kind = str(p.get("billing") or p.get("kind") or "")
    parts = billing_terms(p)
    if kind == "rent_hourly":
        hours = format_decimal(float(p.get("hours") or 0), format="#,##0", locale=babel_locale())
        parts.append((" · ", gettext("%(h)s h in all") % {"h": hours}))
    return parts


def billing_text(p: Mapping[str, Any]) -> str:
    """How a phase is billed, in customer words: 'Term rent (12-month contract)'."""
    return "".join(before + part for before, part in billing_terms(p))


def phase_rows(sched: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The phases of a phased plan as the customer reads them: name, what runs (a workload's
    model), GPUs, months, how billed, the month's rent (or hours), the phase's total."""
    rows = []
    for i, p in enumerate(sched.get("phases") or []):
        kind = p.get("kind") if p.get("kind") in ("workload", "capacity") else "capacity"
        hourly = (p.get("billing") or p.get("kind")) == "rent_hourly"
        rows.append(
            {
                "n": i + 1,
                "name": phase_name(p.get("label"), kind, p.get("task")),
                "model": p.get("model_name") or "",
                "gpus": gpu_text(
                    {"count": p.get("billed_gpus", p.get("gpu_count")), "name": p.get("gpu_name")}
                ),
                "months": float(p.get("months") or 0),
                "start_month": float(p.get("start_month") or 0),
                "billing_parts": billing_parts(p),
                "billing_terms": billing_terms(p),
                "hourly": hourly,
                "hours": float(p.get("hours") or 0),
                "monthly": float(p.get("monthly") or 0),
                "total": float(p.get("total") or 0),
            }
        )
    return rows


def is_comparison(option: Mapping[str, Any], house: str) -> bool:
    """Whether an option is another provider's price: public cloud, or a rent offer of a
    provider other than `house`, the seller (`PriceBook.house_provider`; "" when unknown,
    then only cloud is). Buying (no provider) is the seller's way to pay."""
    if option.get("kind") in CLOUD_KINDS:
        return True
    provider = str(option.get("provider") or "")
    return bool(house and provider and provider != house)


def visible_options(
    options: list[Mapping[str, Any]], *, include_cloud: bool, house: str = ""
) -> list[Mapping[str, Any]]:
    """The options a customer's document lists: those that can run the plan (an offer whose
    machines are smaller than the plan's NVLink group is priced by the engine, `feasible`
    false, but shown to a customer it reads as a cheaper way to buy a job it cannot run),
    and other providers' prices (`is_comparison`: public cloud and GPU marketplaces) only
    when the quote switches the comparison on. QA: a marketplace's NT$96/h H100 was listed
    beside the seller's NT$120/h in every single-GPU quote, with the comparison off."""
    return [
        o
        for o in options
        if o.get("feasible", True) and (include_cloud or not is_comparison(o, house))
    ]


def percent_text(value: Any) -> str:
    """A percentage as entered, to its last significant decimal, in the active locale:
    2.5 → "2.5%", 7.50 → "7.5%", 0.4 → "0.4%", 10 → "10%" (never rounded to a whole
    number: a printed 2% beside 2.5% of the amount is a wrong document)."""
    d = pricing.dec(value if value not in (None, "") else 0)
    return quantity_text(d) + "%"


def tax_label(rate: Any) -> str:
    """The tax row's label in the active language: "Tax 5%", and at 0% "Tax 0% (zero-rated
    export)" (PRODUCT.md §6: 0% is the export rate; a bare "Tax 0%" reads as a forgotten
    tax). `rate` is a fraction (0.05)."""
    d = pricing.dec(rate if rate not in (None, "") else 0)
    if d == 0:
        return gettext("Tax 0%% (zero-rated export)") % {}
    return gettext("Tax %(rate)s") % {"rate": percent_text(d * 100)}


def money_text(value: Any, currency: str) -> str:
    """An amount as the documents print it ("NT$7,485", "US$1,234.50"): the currency's
    decimals, half up like the quote's own rounding (pricing.round_money)."""
    ccy = (currency or "TWD").upper()
    digits = CURRENCY_DIGITS.get(ccy, 2)
    amount = pricing.dec(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    body = format_decimal(abs(amount), format=pattern, locale=babel_locale())
    return f"{'-' if amount < 0 else ''}{currency_symbol(ccy)}{body}"


def quantity_text(value: Any) -> str:
    """A quantity, hours, months or percentage exactly as stored, grouped in the active
    locale: 8,760 · 2.5 · 0.0548 (never rounded for display: the printed unit price ×
    quantity × months is the printed amount, M5 of the QA pass)."""
    d = pricing.dec(value).normalize()
    exponent = d.as_tuple().exponent
    places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    pattern = "#,##0" + ("." + "0" * places if places else "")
    return format_decimal(d, format=pattern, locale=babel_locale())


def _months_phrase(months: Decimal) -> str:
    return ngettext("%(num)s month", "%(num)s months", 1 if months == 1 else 2) % {
        "num": quantity_text(months)
    }


#: Days and hours in the engine's month (730 h, app.engine.costs.model.HOURS_PER_MONTH): a
#: purchase held for the job's hours then reads as many days as the job takes (QA: "17.3
#: days" of running costs beside a 17.2-day job, at 30.4375 days a month).
_HOURS_PER_MONTH: Final = Decimal(HOURS_PER_MONTH)
_DAYS_PER_MONTH: Final = _HOURS_PER_MONTH / Decimal(24)


def held_phrase(months: Decimal) -> str:
    """How long servers are held, as a reader says it: "12 months", "6.3 months", "1.1 days",
    "2.8 hours" (under a month in days, under a day in hours; one decimal at most)."""
    tenth = Decimal("0.1")
    if months >= 1:
        num, count = months.quantize(tenth, rounding=ROUND_HALF_UP), months
        singular, plural = "%(num)s month", "%(num)s months"
    elif months * _DAYS_PER_MONTH >= 1:
        num = count = (months * _DAYS_PER_MONTH).quantize(tenth, rounding=ROUND_HALF_UP)
        singular, plural = "%(num)s day", "%(num)s days"
    else:
        num = count = (months * _HOURS_PER_MONTH).quantize(tenth, rounding=ROUND_HALF_UP)
        singular, plural = "%(num)s hour", "%(num)s hours"
    return ngettext(singular, plural, 1 if count == 1 else 2) % {"num": quantity_text(num)}


def buy_line_notes(
    line: Mapping[str, Any],
    option: Mapping[str, Any] | None,
    quote: Mapping[str, Any],
    option_currency: str,
) -> list[str]:
    """What a line that buys servers says under its description, in the active language.

    The line quotes the up-front price, once (pricing.option_defaults): the note names what
    it pays for, and the running costs of owning the servers over the plan's period, which
    are not in the quote: a monthly figure rounded to the currency's unit × the months, and
    their product (so the note multiplies out as the lines do). A line saved before buying
    was quoted up front (the amortised run-rate per month) says what it is."""
    if option is None or line.get("kind") != "buy":
        return []
    if line.get("unit") == "month":
        return [gettext("Amortised monthly cost of owning the servers, not their purchase price.")]
    notes = [gettext("Paid once, up front: servers, installation, network and storage.")]
    running = pricing.running_costs(option)
    if running is None or running.total <= 0:
        return notes
    ccy = str(quote.get("currency") or option_currency)
    # The option's running costs are those of the servers it buys once; a line buying it
    # 3 times runs 3 times the servers (QA: the note stayed at one set's figure).
    times = Decimal(str(line.get("quantity") or 1))
    if not per_month_multiplies(running, option_currency):
        # Held for part of a month, or whole months and a part: a total over the period (a
        # rate per month × 0.0038 months would not read, nor multiply out once rounded);
        # likewise where the costs are not one figure a month (a job's power for its 3.2
        # months of work beside 6 months of colocation).
        total = in_quote_currency(running.total * times, option_currency, quote)
        if total is None:
            return notes
        notes.append(
            gettext(
                "Not in this quote: running costs of owning them over %(period)s, estimated "
                "at %(total)s (power, colocation, maintenance, operations staff)."
            )
            % {
                "period": held_phrase(running.months),
                "total": money_text(pricing.round_money(total, ccy), ccy),
            }
        )
        return notes
    per_month = in_quote_currency(running.per_month * times, option_currency, quote)
    if per_month is None:
        return notes
    per_month = pricing.round_money(per_month, ccy)
    notes.append(
        gettext(
            "Not in this quote: running costs of owning them, estimated at %(per_month)s/month "
            "× %(months)s = %(total)s (power, colocation, maintenance, operations staff)."
        )
        % {
            "per_month": money_text(per_month, ccy),
            "months": _months_phrase(running.months),
            "total": money_text(per_month * running.months, ccy),
        }
    )
    return notes


def quote_lines(
    quote: Mapping[str, Any],
    options: list[Mapping[str, Any]],
    gpu: Mapping[str, Any],
    hours_per_month: float,
    option_currency: str = "TWD",
) -> list[dict[str, Any]]:
    """The quote's lines as printed: description, unit price, quantity and months exactly
    as stored (`quantity_text`, `months_text`), `gross` = unit price × quantity × months,
    the discount as entered (`discount_text`) and what it takes off (`discount_amount` =
    gross − amount), the amount (rounded once, `pricing.totals`) and notes under the
    description (a purchase: what the up-front price covers and the running costs beside
    it). Every printed figure multiplies out: price × quantity × months − discount =
    amount, exactly (M5 of the QA pass)."""
    by_key = {o.get("key"): o for o in options}
    labels = option_labels(options, gpu, hours_per_month)
    amounts = pricing.totals(quote).line_amounts
    out = []
    for line, amount in zip(quote.get("lines") or [], amounts, strict=True):
        option = by_key.get(line.get("option_key"))
        description = line.get("description") or (
            labels.get(str(line.get("option_key")), "") if option is not None else ""
        )
        if not line.get("description") and option is not None and option.get("kind") in CLOUD_KINDS:
            # A rate for 2 instances read as one 8-GPU instance at twice the public price
            # (QA: "Lambda 8× H100 … US$63.84/h"): the line says the GPUs and instances its
            # price pays for, as the ways-to-pay table does.
            description += " · " + priced_gpus_text(option, gpu)
        unit_price = Decimal(line["unit_price"])
        quantity = Decimal(line["quantity"])
        months = Decimal(line["months"])
        gross = unit_price * quantity * months
        out.append(
            {
                "description": description,
                "unit": gettext(UNITS.get(str(line.get("unit")), ""))
                if UNITS.get(str(line.get("unit")))
                else "",
                "unit_kind": line.get("unit"),
                "unit_price": unit_price,
                "quantity": quantity,
                "quantity_text": quantity_text(quantity),
                "months": months,
                "months_text": quantity_text(months),
                "months_phrase": _months_phrase(months),
                # A one-off or hourly line has no period: its months multiplier (1) is not
                # printed (it would read "for 1 month").
                "shows_months": line.get("unit") == "month" or months != 1,
                # The whole phased rental quoted as one item is no one-off: it says the
                # months it covers (QA read "NT$3,430,000 × qty 1, one-off" for 20 months).
                "period_text": schedule_period(line, option)
                or item_period(line, option, hours_per_month, option_currency),
                "gross": gross,
                "discount_pct": Decimal(line.get("discount_pct") or 0),
                "discount_text": percent_text(line.get("discount_pct") or 0),
                "discount_amount": gross - amount,
                "amount": amount,
                "notes": buy_line_notes(line, option, quote, option_currency),
            }
        )
    return out


def item_period(
    line: Mapping[str, Any],
    option: Mapping[str, Any] | None,
    hours_per_month: float,
    currency: str,
) -> str:
    """How an option quoted as one item at its total is billed ("NT$1,761.28/h × 18,396 h"),
    for the line's own text; '' for any other line. QA read a public cloud's 36 months of
    use as "NT$32,400,507 × qty 1, one-off": an option whose rate is not a whole unit price
    is quoted as one item at its total (`pricing.option_rate`), and it is no one-off."""
    if option is None or line.get("unit") != "item" or option.get("kind") == "buy":
        return ""
    if pricing.dec(line.get("quantity", 1)) != 1 or pricing.dec(line.get("months", 1)) != 1:
        return ""
    price = option_price(option, hours_per_month, currency)
    if price is None or pricing.dec(line["unit_price"]) != pricing.dec(price["total"]):
        return ""
    return str(price["rate_text"])


def schedule_period(line: Mapping[str, Any], option: Mapping[str, Any] | None) -> str:
    """'total for 20 months, by phase' for a line of a phased plan's whole rental quoted as one
    item; '' for any other line. A plan saved before the option stated its months counts them
    from its cumulative cost (one value per month from month 0)."""
    if option is None or option.get("key") != "schedule" or line.get("unit") != "item":
        return ""
    months = option.get("months")
    if months is None:
        months = max(0, len(option.get("cumulative") or []) - 1)
    if not months:
        return ""
    return gettext("total for %(months)s, by phase") % {
        "months": _months_phrase(Decimal(str(months)))
    }


def option_price(
    option: Mapping[str, Any], hours_per_month: float, currency: str
) -> dict[str, Any] | None:
    """An option of "Ways to pay" as rate × hours or months = total. The total is the
    option's own — the engine's total, rounded once, as the planner, the plan page and the
    API print it (a US$ quote: converted at its rate, then rounded once) — and the rate is
    printed in full where it is not whole ("NT$1,761.28/h × 15,768 h" for AWS p5's
    NT$27,771,863): rounded once, the product of the printed figures is the printed total
    (`pricing.option_rate`). A quote line of the option comes to that same total
    (`pricing.default_figures`: per hour at a whole rate, else one item). QA: the rate
    rounded to NT$1,761 first printed NT$27,767,448 here beside NT$27,771,863 on the plan.
    Keys: unit ("hour" | "month"), unit_price (the rate in full), quantity, total,
    `rate_text`. None for buying (its total for the period is no rate × months:
    `buy_breakdown_text`) and for an option that is no such product."""
    if option.get("kind") == "buy":
        return None
    price = pricing.option_rate(pricing.option_defaults(option, hours_per_month), currency)
    if price is None:
        return None
    if price.unit == "hour":
        text = gettext("%(price)s/h × %(qty)s h") % {
            "price": rate_text(price.rate, currency),
            "qty": quantity_text(price.quantity),
        }
    else:
        text = gettext("%(price)s/month × %(months)s") % {
            "price": rate_text(price.rate, currency),
            "months": _months_phrase(price.quantity),
        }
    return {
        "unit": price.unit,
        "unit_price": price.rate,
        "quantity": price.quantity,
        "total": price.total,
        "rate_text": text,
    }


def rate_text(rate: Decimal, currency: str) -> str:
    """A rate printed in full: the currency's decimals at least, more where it has them, and
    two at least where it has any ("NT$1,761.28", "NT$120", "NT$69,846.40", "US$55.04",
    "US$0.1334"), so it multiplies as printed."""
    exponent = rate.normalize().as_tuple().exponent
    places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    # cents as cents: "NT$69,846.40/month", as the engine prints it (exact_money)
    digits = max(CURRENCY_DIGITS.get((currency or "TWD").upper(), 2), places and max(places, 2))
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    body = format_decimal(abs(rate), format=pattern, locale=babel_locale())
    symbol = currency_symbol((currency or "TWD").upper())
    return f"{'-' if rate < 0 else ''}{symbol}{body}"


def per_month_multiplies(running: pricing.RunningCosts, currency: str) -> bool:
    """Whether the running costs are one figure a month over whole months: the monthly
    figure rounded to the currency's unit × the months is their total (rounded). The engine
    rounds each cost per month once (app.engine.costs.ownership), so for a purchase held
    whole months this holds and "NT$391,407/month × 36" is the planner's own period total;
    a job's power paid for its 3.2 months of work beside 7 months of colocation is no one
    figure a month: the documents print the total."""
    if running.months != running.months.to_integral_value():
        return False
    total = pricing.round_money(running.total, currency)
    if total != running.total:
        # Priced before the engine rounded its parts: printed as it always was (a saved
        # quote's document does not change), its resale value taking the rounding.
        return True
    return pricing.round_money(running.per_month, currency) * running.months == total


def running_costs_printed(running: pricing.RunningCosts, currency: str) -> Decimal:
    """The running costs of owning the servers as every document prints them: the monthly
    figure rounded to the currency's unit × whole months (so "NT$2,466/month × 12 =
    NT$29,592" multiplies out) where that is their total (`per_month_multiplies`), else the
    total rounded (held for part of a month). The buy line's note and the "Ways to pay"
    breakdown both print this figure (QA: the note read NT$29,587 and the breakdown NT$29,586
    for the same 9.7 days); with it the resale value they print is the engine's, as the
    planner prints it (QA: NT$1,560,087 in the PDF beside NT$1,560,084 on the plan page)."""
    if per_month_multiplies(running, currency):
        return pricing.round_money(running.per_month, currency) * running.months
    return pricing.round_money(running.total, currency)


def buy_breakdown_text(option: Mapping[str, Any], currency: str) -> str:
    """Why buying's total for the period is below its up-front price, in the active language:
    "NT$5,426,381 up front − NT$3,640,197 resale value at the end + NT$1,002,069 running
    costs over 12 months" — the three as printed add up to the printed total. The up-front
    price and the total are printed beside it and the running costs in the buy line's note
    (`running_costs_printed`); the resale value is what is left, which is the engine's own
    (the planner's "Resale value at the end"): the engine rounds each part once and adds the
    rounded parts. A plan priced before it did keeps the rounding in its resale value. The
    period is the one the servers are held ("2.8 hours"), not the whole months billed. ""
    for other options."""
    running = pricing.running_costs(option)
    if running is None or not option.get("upfront"):
        return ""
    upfront = pricing.round_money(pricing.dec(option["upfront"]), currency)
    total = pricing.round_money(pricing.dec(option.get("total") or 0), currency)
    costs = running_costs_printed(running, currency)
    resale = upfront + costs - total
    if resale < 0:  # no resale to speak of: the running costs take the rounding instead
        resale = pricing.round_money(running.resale, currency)
        costs = total - upfront + resale
    return gettext(
        "%(upfront)s up front − %(resale)s resale value at the end + %(running)s running "
        "costs over %(months)s"
    ) % {
        "upfront": money_text(upfront, currency),
        "resale": money_text(resale, currency),
        "running": money_text(costs, currency),
        "months": held_phrase(running.months),
    }


def infra_rows(infra: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Included infrastructure as (component, specification) in the active language; CPU,
    NVMe and NAS read the same in both, RAM is 記憶體（RAM） in 中文 as on the bill of
    materials (QA found the bare English word in the 中文 PDF)."""
    rows: list[tuple[str, str]] = []
    if infra.get("cpu_cores"):
        rows.append(("CPU", gettext("%(n)s cores") % {"n": f"{int(infra['cpu_cores']):,}"}))
    if infra.get("ram_gb"):
        rows.append((gettext("RAM"), f"{infra['ram_gb']:,.0f} GB"))
    if infra.get("nvme_tb"):
        rows.append(("NVMe", f"{infra['nvme_tb']:,.0f} TB"))
    if infra.get("nas_tb"):
        rows.append(("NAS", f"{infra['nas_tb']:,.0f} TB"))
    net = infra.get("network") or {}
    uplink = net.get("uplink_gbps")
    if uplink:
        # Under 1 Gbps in Mbps, as the planner writes it ("100 Mbps", not "0.1 Gbps").
        text = (
            gettext("%(n)s Mbps uplink") % {"n": f"{uplink * 1000:g}"}
            if uplink < 1
            else gettext("%(n)s Gbps uplink") % {"n": f"{uplink:g}"}
        )
        rows.append((gettext("Network"), text))
    if infra.get("power_kw"):
        rows.append((gettext("Power"), f"{infra['power_kw']:,.1f} kW"))
    return rows


TRAINING_TASKS: Final = ("pretrain", "full_finetune", "lora", "qlora")
# What each kind of workload is described by, in the customer's words. A stored workload
# carries every request field with its default (a LoRA plan has `concurrency: 1`, an image
# plan `seq_len: 4096`), so each task shows only the fields that describe it.
_TRAINING_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("seq_len", N_("Sequence length (tokens)")),
    ("tokens", N_("Training tokens")),
    ("epochs", N_("Epochs")),
    ("dataset_gb", N_("Dataset (GB)")),
    ("deadline_days", N_("Deadline (days)")),
)
_SERVING_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("concurrency", N_("Concurrent sequences")),
    ("avg_context_tokens", N_("Average context (tokens)")),
    ("output_tokens", N_("Output tokens per request")),
)
_IMAGE_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("images_per_hour", N_("Target images per hour")),
    ("image_steps", N_("Diffusion steps per image")),
)


def _count_text(value: Any) -> str:
    """A count in the reader's words: 4,096; 2 billion / 20億; 0.5 (never "2e+09")."""
    v = float(value)
    if abs(v) >= 1e7:
        return count_words(v)
    return f"{v:,.0f}" if v.is_integer() else f"{v:,.3g}"


def assumption_rows(workload: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The workload in customer words (no enum values, no catalog ids), the fields its task
    uses only."""
    rows: list[tuple[str, str]] = []
    task = str(workload.get("task") or "")
    if task:
        rows.append((gettext("Task"), gettext(TASKS.get(task, task))))
    if task == "image":
        if not workload.get("images_per_hour") and workload.get("images"):
            rows.append((gettext("Images to generate"), _count_text(workload["images"])))
        if workload.get("image_resolution"):
            px = _count_text(workload["image_resolution"])
            rows.append((gettext("Image resolution (pixels)"), f"{px} × {px}"))
        fields = _IMAGE_FIELDS
    elif task == "inference":
        fields = _SERVING_FIELDS
        if workload.get("users"):
            # The service is sized for `users` at once (they take precedence over
            # `concurrency`, which the engine then ignores): state what was sized.
            fields = (("users", N_("Users served at once")), *_SERVING_FIELDS[1:])
    else:
        fields = _TRAINING_FIELDS
    for key, label in fields:
        value = workload.get(key)
        if value not in (None, "", 0):
            rows.append((gettext(label), _count_text(value)))
    if workload.get("precision"):
        rows.append((gettext("Precision"), str(workload["precision"]).upper()))
    return rows


def pricing_assumption_rows(
    cost: Mapping[str, Any],
    workload: Mapping[str, Any],
    *,
    rates: Sequence[FxRate],
) -> list[tuple[str, str]]:
    """What the money depends on, for the assumptions table: the GPUs' utilisation (the busy
    hours a month that hourly and cloud options bill and a purchase draws power for), the
    contract term, the period the options are compared over, and each exchange rate a price
    was converted at (`rates`, as the price list states them: US$1 = NT$32).
    QA: the table listed the task, epochs and deadline, none of these, while every rental
    and cloud total depends on them."""
    rows: list[tuple[str, str]] = []
    utilization = cost.get("utilization")
    hours = cost.get("hours_per_month")
    if utilization is not None and hours is not None:
        pct = quantity_text(pricing.dec(utilization) * 100)
        rows.append(
            (
                gettext("GPU utilisation"),
                gettext("%(pct)s%% of the month: %(hours)s busy hours a month")
                % {"pct": pct, "hours": quantity_text(round(float(hours), 1))},
            )
        )
    term = workload.get("term_months")
    if term:
        rows.append((gettext("Contract term"), _months_phrase(pricing.dec(term))))
    horizon = cost.get("horizon_months")
    if cost.get("pricing_mode") == "job":
        rows.append((gettext("Period compared"), gettext("the job itself, from start to finish")))
    elif horizon:
        rows.append((gettext("Period compared"), _months_phrase(pricing.dec(horizon))))
    for fx in rates:
        said = format_decimal(fx.rate, format="#,##0.####", locale=babel_locale())
        rows.append(
            (
                gettext("Exchange rate"),
                gettext("%(one)s = %(rate)s, the price list's rate of %(date)s")
                % {
                    "one": f"{currency_symbol(fx.base)}1",
                    "rate": f"{currency_symbol(fx.quote)}{said}",
                    "date": format_date(fx.as_of, "medium", locale=babel_locale()),
                },
            )
        )
    return rows


def _days_text(value: float) -> str:
    """A number of days as the document prints it: 7, 7.5, 14.5 (no "7.0")."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def deadline_note(
    training: Mapping[str, Any] | None, workload: Mapping[str, Any]
) -> tuple[str, str] | None:
    """("missed" | "tight" | "met", sentence): the finish time against the customer's own
    deadline, in the active language; None without a deadline or a verdict on it.

    The verdict is the estimate's (`meets_deadline`, and `deadline_margin`: met even at the
    slow end of its error band); the document must never show a plan that misses the
    customer's deadline without saying so. A plan that does not fit in memory has no finish
    time to compare (its figures are of a layout that cannot run), so it gets no note.
    """
    deadline = workload.get("deadline_days")
    if not training or not deadline or training.get("fits") is False:
        return None
    meets = training.get("meets_deadline")
    if meets is None:
        return None
    days = float(training["days"])
    params = {"days": f"{days:,.1f}", "deadline": _days_text(float(deadline))}
    if meets is False:
        late = days - float(deadline)
        if round(late, 1) < 0.1:  # "0.0 days after" would read as on time
            text = gettext(
                "Misses your deadline: finishes in %(days)s days, just after the "
                "%(deadline)s-day deadline you gave."
            )
        else:
            text = gettext(
                "Misses your deadline: finishes in %(days)s days, %(late)s days after the "
                "%(deadline)s-day deadline you gave."
            )
            params["late"] = f"{late:,.1f}"
        return "missed", text % params
    if training.get("deadline_margin") is False:
        return "tight", gettext(
            "Within your %(deadline)s-day deadline, with no room to spare: a run as slow as "
            "the error band below allows would finish after it."
        ) % params
    return "met", gettext("Within your %(deadline)s-day deadline.") % params


def service_rows(
    inference: Mapping[str, Any] | None,
    gpu: Mapping[str, Any],
    workload: Mapping[str, Any] | None = None,
) -> list[tuple[str, str]]:
    """(label, sentence) rows: what the GPUs deliver when they serve ([] for training).

    An image plan: images per hour on all its GPUs and seconds per image on one, and for a
    batch (no target per hour) how long its images take. A text model sized for users at
    latency targets: the tokens/s for those users and the replicas that hold them. Any other
    text model: the output speed at the concurrency asked for, and — on its own labelled
    row — the most sequences the GPUs' memory holds at once (visual QA: "最多 820 個同時序列"
    printed unlabelled beside a speed measured at 64). The figures are the estimate's own.
    """
    if not inference:
        return []
    w = workload or {}
    if inference.get("images_per_hour") is not None:
        text = gettext("%(n)s images per hour on %(gpus)s") % {
            "n": f"{float(inference['images_per_hour']):,.0f}",
            "gpus": gpu_text(gpu),
        }
        if inference.get("seconds_per_image") is not None:
            text += " · " + gettext("%(s)s s per image on one GPU") % {
                "s": f"{float(inference['seconds_per_image']):,.2f}"
            }
        hours = inference.get("batch_hours")
        if hours is not None and w.get("images") and not w.get("images_per_hour"):
            text += " · " + gettext("%(n)s images in %(h)s h") % {
                "n": f"{float(w['images']):,.0f}",
                "h": f"{float(hours):,.1f}",
            }
        return [(gettext("Image generation"), text)]
    if inference.get("tokens_per_s") is None:
        return []
    tps = f"{float(inference['tokens_per_s']):,.0f}"
    users = w.get("users") or w.get("concurrency")
    replicas = inference.get("replicas")
    per_replica = inference.get("concurrency_per_replica")
    if w.get("users") and replicas and per_replica and inference.get("meets_slo") is not False:
        # Sized for the customer's users at their latency targets: the figures the plan
        # shows (4 replicas × 142 users), never the KV cache's room (800 sequences), which
        # no latency target was checked at.
        return [
            (
                gettext("Inference"),
                gettext(
                    "%(tps)s tokens/s for %(users)s users at once: %(replicas)s × up to "
                    "%(per)s users each at your latency targets"
                )
                % {
                    "tps": tps,
                    "users": f"{float(w['users']):,.0f}",
                    "replicas": ngettext("%(num)s replica", "%(num)s replicas", int(replicas))
                    % {"num": f"{int(replicas):,}"},
                    "per": f"{float(per_replica):,.0f}",
                },
            ),
            *_latency_rows(w.get("slo") or {}, inference, float(w["users"])),
        ]
    rows = []
    each = inference.get("tokens_per_s_per_user")
    if users and each is not None:
        speed = gettext(
            "%(tps)s tokens/s in total at %(n)s sequences at once (%(per)s tokens/s each)"
        ) % {"tps": tps, "n": f"{float(users):,.0f}", "per": f"{float(each):,.0f}"}
    elif users:
        speed = gettext("%(tps)s tokens/s in total at %(n)s sequences at once") % {
            "tps": tps,
            "n": f"{float(users):,.0f}",
        }
    else:
        speed = gettext("%(tps)s tokens/s in total") % {"tps": tps}
    rows.append((gettext("Output speed"), speed))
    if inference.get("max_concurrency"):
        rows.append(
            (
                gettext("Sequences at once, at most"),
                gettext("%(n)s (what the GPUs' memory holds)")
                % {"n": f"{float(inference['max_concurrency']):,.0f}"},
            )
        )
    return rows


def _latency_rows(
    slo: Mapping[str, Any], inference: Mapping[str, Any], users: float
) -> list[tuple[str, str]]:
    """The customer's latency targets and what the plan gives at them, side by side (QA: "at
    your latency targets" with the targets printed nowhere)."""
    ttft, each = slo.get("ttft_s"), slo.get("tokens_per_s_per_user")
    got_ttft = inference.get("time_to_first_token_s")
    got_each = inference.get("tokens_per_s_per_user")
    asked, given = [], []
    if ttft:
        asked.append(gettext("first token within %(s)s s") % {"s": _seconds_text(ttft)})
    if each:
        asked.append(gettext("%(n)s tokens/s per user") % {"n": f"{float(each):g}"})
    if ttft and got_ttft is not None:
        given.append(gettext("first token in %(s)s s") % {"s": _seconds_text(got_ttft)})
    if each and got_each is not None:
        given.append(gettext("%(n)s tokens/s per user") % {"n": f"{float(got_each):,.0f}"})
    rows = []
    if asked:
        rows.append((gettext("Your latency targets"), listing(asked)))
    if given:
        label = gettext("This plan at %(users)s users") % {"users": f"{users:,.0f}"}
        rows.append((label, listing(given)))
    return rows


def _seconds_text(value: Any) -> str:
    """Seconds as a person reads them: 1, 0.5, 0.25, 0.07 (two decimals under 10 s)."""
    v = float(value)
    return number(v, 2 if v < 10 else 1)


def period_text(option: Mapping[str, Any]) -> str:
    """What an option's total covers, in the reader's language: "for 132 hours", "for 12
    months" (its billed quantity and unit; "" when the option states none)."""
    billed = option.get("billed") or {}
    held = option.get("held_months")
    if option.get("kind") == "buy" and held:
        # A purchase is held for its period, then resold: not "for 1 month" (the whole
        # months billed) for a job of 2.8 hours.
        return gettext("held for %(period)s") % {"period": held_phrase(pricing.dec(held))}
    try:
        qty = float(billed.get("quantity") or 0)
    except (TypeError, ValueError):
        return ""
    if qty <= 0:
        return ""
    num = f"{qty:,.0f}" if qty.is_integer() else f"{qty:,.1f}"
    if billed.get("unit") == "hour":
        return ngettext("for %(num)s hour", "for %(num)s hours", int(qty) or 1) % {"num": num}
    if billed.get("unit") == "month":
        return ngettext("for %(num)s month", "for %(num)s months", int(qty) or 1) % {"num": num}
    return ""
