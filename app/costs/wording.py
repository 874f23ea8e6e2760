"""The cost engine's explanations in the reader's words and language.

The engine writes each figure's formula in English with its numbers substituted ("NT$960/h
(stratagem-tpe-h100-x8) × 584 h/month = NT$560,640/month") and its source as the seed rule,
price-list entry and file it rests on ("seed 003 T8; price list '2026-11 list'; offers …").
The JSON API keeps both as they are. A page a customer may see shows neither an entry id
nor a rule number: this module says the formula in the page's language, without the ids,
and the source in words ("List prices of Stratagem Taipei, price list of 1 Nov 2026").

Each formula the cost engine writes has one English pattern below; `{name}` holds a number
or an amount as the engine formatted it (app.engine.formatting, the helper every page
uses), and the pattern with `%(name)s` is the gettext msgid (app/locale/…/tco.po). A
formula no pattern matches is shown as the engine wrote it, its ids removed, marked English
(tests/web/test_tco_names.py checks that /tco shows none).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from app.engine.costs.ownership import TOO_SHORT_TO_BUY as ENGINE_TOO_SHORT
from app.engine.price_book import CloudInstance, PriceBook
from app.i18n import N_, listing
from app.i18n import gettext as _
from app.i18n import paren as paren_said

#: Figures of an option's "How this total is worked out" list and of the Explain panel, by
#: the engine's English name (the option's own label removed).
FIGURE_LABELS: Final = {
    "Hourly rent per month": N_("Hourly rent, per month"),
    "Monthly rent": N_("Monthly rent, per month"),
    "rent": N_("Rent for the period"),
    "per month": N_("Cost per month at this utilisation"),
    "total": N_("Total for the period"),
    "Servers": N_("Servers"),
    "Installation and integration": N_("Installation and integration"),
    "Network + storage capex": N_("Network and storage equipment"),
    "Upfront capex": N_("Paid up front"),
    "Electricity per month": N_("Electricity, per month"),
    "Electricity (not included in rent)": N_("Electricity not included in the rent, per month"),
    "Colocation (rack, cooling) per month": N_("Colocation (rack, cooling), per month"),
    "Maintenance per month": N_("Maintenance, per month"),
    "Operations staff per month": N_("Operations staff, per month"),
    "Resale at the end (residual)": N_("Resale value at the end"),
    "Amortised capex per month": N_("Hardware, amortised per month"),
    "Amortised cost per month": N_("Cost of owning, per month"),
    "Cost of delay (rent while waiting for delivery)": N_(
        "Rent while waiting for delivery (not in the total)"
    ),
    "Shortest holding period for buying": N_("Shortest holding period for buying"),
    "Cloud on demand": N_("Cloud on demand, for the period"),
    "Cloud reserved per month": N_("Cloud reserved, per month"),
    "Storage and network per month": N_("Storage and network, per month"),
}
_CONTRACT_FIGURE = re.compile(r"(\d+)-month contract rent")

#: The engine's formulas, one pattern each (see the module docstring).
PATTERNS: Final = (
    "{rate}/h × {hours} h/month = {total}/month",
    # Several offers' hourly prices summed ("(NT$240/h + NT$120/h)"): see _SUMS.
    "({rates}) × {hours} h/month = {total}/month",
    "{price} × (1 − {discount}) = {total}/month ({tier}-month tier, {off} off)",
    # Offers whose tiers differ, each at its own discount: their discounted prices summed.
    "{rate} = {total}/month ({tier}-month tier, {off} off)",
    "{rate}/h × {hours} h billed = {total} ({gpus} GPUs, 1 node)",
    "{rate}/h × {hours} h billed = {total} ({gpus} GPUs, {nodes} nodes)",
    "{rate}/month × 1 month = {total} ({gpus} GPUs, 1 node)",
    "{rate}/month × 1 month = {total} ({gpus} GPUs, {nodes} nodes)",
    "{rate}/month × {months} months = {total} ({gpus} GPUs, 1 node)",
    "{rate}/month × {months} months = {total} ({gpus} GPUs, {nodes} nodes)",
    "{fixed} fixed + {metered} at 730 h × {hours} / 730 h = {total}/month",
    "ceil({gpus} GPUs / {per} per server) = {servers} × {price} = {total}",
    "{servers} × {kw} kW rated = {total_kw} kW × {hours} h = {kwh} kWh × PUE {pue} × "
    "{tariff}/kWh = {total}/month",
    "{kw} kW × {hours} h × PUE {pue} × {tariff}/kWh = {total}/month",
    "{servers} × {kw} kW rated = {total_kw} kW × {rate}/kW-month = {total}/month",
    "{rate}/year × {base} / 12 = {total}/month",
    "{rate}/month (over 1 month: {total})",
    "{rate}/month (over {months} months: {total})",
    "{base} × (1 − {share} × min({held}, {life}) / {months} months) = {total} back",
    "{base} × (1 − {share} × min({held} {life}) / {months} months) = {total} back",
    "({upfront} − {residual} residual) / ({years} years × 12) = {total}/month",
    "{capex} + power {power} + colocation {colo} + maintenance {maint} + staff {staff} = "
    "{total}/month",
    "{days} days × {rate}/month × 12 / 365 days = {total}",
    "{days} days / {per} + {floor} = {months} months > {held} held",
    "{n} × {usd}/h (= {rate}/h at {fx} TWD/USD) × {hours} h billed = {total}",
    "{n} × {usd}/h (= {rate}/h at {fx} TWD/USD) × {hours} h (paid whether used or not) = "
    "{total}/month for {months} months",
    "{n} × {rate}/h × {hours} h billed = {total}",
    # Reserved on a page in the instance's own currency (no conversion to show).
    "{n} × {rate}/h × {hours} h (paid whether used or not) = {total}/month for {months} months",
    "{rate} per 1M output tokens × {out} output tokens / {prompt} prompt tokens = {total}",
    "730 h × {share} = {hours} h/month",
    "{hours} h/month as entered ({share} of 730 h)",
    # The rental period, "1 month" singular (app.engine.formatting.months).
    "1 month: the need, as no rental period was given; capacity mode: an ongoing service, "
    "every option priced per month",
    "1 month: the need, as no rental period was given; job mode: hourly options bill the "
    "job's hours, monthly ones whole months",
    "{months} months: the need, as no rental period was given; capacity mode: an ongoing "
    "service, every option priced per month",
    "{months} months: the need, as no rental period was given; job mode: hourly options "
    "bill the job's hours, monthly ones whole months",
    "1 month as asked (rent for); the work itself takes {need} months; capacity mode: an "
    "ongoing service, every option priced per month",
    "1 month as asked (rent for); the work itself takes {need} months; job mode: hourly "
    "options bill the job's hours, monthly ones whole months",
    "{months} months as asked (rent for); the work itself takes 1 month; capacity mode: an "
    "ongoing service, every option priced per month",
    "{months} months as asked (rent for); the work itself takes 1 month; job mode: hourly "
    "options bill the job's hours, monthly ones whole months",
    "{months} months as asked (rent for); the work itself takes {need} months; capacity "
    "mode: an ongoing service, every option priced per month",
    "{months} months as asked (rent for); the work itself takes {need} months; job mode: "
    "hourly options bill the job's hours, monthly ones whole months",
    "{monthly}/month / {hourly}/h = {hours} h/month ({share} of 730 h)",
    "1 USD = {fx} TWD, the price list's rate of {date}: every USD price here is shown in TWD at it",
    "1 USD = {fx} TWD, the price list's rate of {date} (1 TWD = {rate} USD): every USD price "
    "here is shown in TWD at it",
    "1 TWD = {fx} USD, the price list's rate of {date} (1 USD = {rate} TWD): every TWD price "
    "here is shown in USD at it",
    "1 TWD = {fx} USD, the price list's rate of {date}: every TWD price here is shown in USD at it",
    "like for like — the same {gpus} GPUs for a full month (730 h): {rate}/GPU-h × "
    "{billed} GPUs × 730 h = {month} vs {rent} rent = {ratio}×",
    "like for like — the same {gpus} GPUs for a full month (730 h): amortised {run}/month / "
    "{billed} GPUs × {n} = {month} vs {rent} rent = {ratio}×",
    "({a} − {b}) / ({c} − {d}) = {share} = {hours} h/month",
    "{part} / {total} = {share} (≥ 15 %)",
    "{part} / {total} = {share} (< 15 %)",
    # Last: it would match any formula that ends in a monthly amount; an amount alone or a
    # sum of amounts ("2 × NT$350,000 + NT$200,000"), never words (see _plain).
    "{rate} = {total}/month",
)
# Patterns msgids for Babel's eyes: each is translated in tco.po (a test checks it).
MSGIDS: Final = tuple(re.sub(r"\{(\w+)\}", r"%(\1)s", p.replace("%", "%%")) for p in PATTERNS)


@dataclass(frozen=True, slots=True)
class _Pattern:
    regex: re.Pattern[str]
    msgid: str


def _literal(text: str) -> str:
    """A pattern's words as a regex; "{gpus} GPUs" also reads "1 GPU" (the engine says one
    GPU in the singular, app.engine.formatting.gpus; Chinese has one form for both)."""
    rx = re.escape(text)
    return re.sub(r"^(\\ )GPUs(?![-\w])", r"\1GPUs?", rx)


@lru_cache(maxsize=1)
def _compiled() -> tuple[_Pattern, ...]:
    out = []
    for pattern, msgid in zip(PATTERNS, MSGIDS, strict=True):
        parts = re.split(r"(\{\w+\})", pattern)
        rx = "".join(
            f"(?P<{p[1:-1]}>.+?)" if p.startswith("{") and p.endswith("}") else _literal(p)
            for p in parts
        )
        out.append(_Pattern(re.compile(rx + r"\Z"), msgid))
    return tuple(out)


@lru_cache(maxsize=16)
def _id_regex(ids: tuple[str, ...]) -> re.Pattern[str] | None:
    """ " (id)" or " (id, id)" for the price list's entry ids, longest first."""
    if not ids:
        return None
    alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(r" ?\((?:" + alternatives + r")(?:, [^)]*)?\)")


def _ids(book: PriceBook) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    """A regex of the price list's entry ids and the cloud names a page replaces."""
    ids = [o.id for o in book.offers] + [s.id for s in book.servers] + [c.id for c in book.cloud]
    ids += [e.id for e in book.energy]
    names = {
        f"{c.provider} {c.name}": f"{c.provider} {instance_name(c, book)}"
        for c in book.cloud
        if instance_name(c, book) != c.name
    }
    return _id_regex(tuple(ids)), names


def is_api_id(instance: str) -> bool:
    """Whether a cloud instance type is an API identifier ("gpu_8x_h100_sxm5", Lambda's)
    rather than a public product name ("p5.48xlarge", "Standard_ND96isr_H100_v5")."""
    return "_" in instance and re.fullmatch(r"[a-z0-9_]+", instance) is not None


def gpus_said(count: object, gpu_name: str) -> str:
    """'8× H100 SXM5 80GB': an instance said as its GPUs."""
    return f"{count}× {gpu_name.replace('NVIDIA ', '')}"


def instance_name(inst: CloudInstance, book: PriceBook | None) -> str:
    """A cloud instance as its provider sells it: its public name, or, for an API identifier
    (`is_api_id`), its GPUs ("8× H100 SXM5 80GB")."""
    if is_api_id(inst.name):
        from app.engine.estimate import gpu_pool

        gpu = next((g for g in gpu_pool(None, book) if g.id == inst.gpu_id), None)
        return gpus_said(inst.gpu_count, gpu.name if gpu is not None else inst.gpu_id)
    return inst.name


#: A parenthesis of a catalog name ("(seed 003 growth template)", "(Taiwan purchase, seed
#: 003 T9)") and, in it, the note on where the configuration comes from: an internal
#: reference, not part of the name.
_PAREN = re.compile(r" ?\(([^()]*)\)")
_SEED_PART = re.compile(r"^seed \d+\b")
#: "4-GPU H100 NVLink server": said in the page's language (the catalog keeps English).
_N_GPU_SERVER = re.compile(r"(\d+)-GPU (.+) server")


def _without_seed_notes(m: re.Match[str]) -> str:
    parts = [p.strip() for p in m.group(1).split(",")]
    if not any(_SEED_PART.match(p) for p in parts):
        return m.group(0)  # any other parenthesis stands as written ("(NT$10,045 − NT$0)")
    kept = [p for p in parts if not _SEED_PART.match(p)]
    return f" ({', '.join(kept)})" if kept else ""


def catalog_name(name: str) -> str:
    """A price-list entry's name as a customer reads it: "4-GPU H100 NVLink server", never
    "… (seed 003 growth template)"; "8-GPU HGX H100 server (Taiwan purchase)", never
    "(Taiwan purchase, seed 003 T9)", which reached the customer's documents."""
    return _PAREN.sub(_without_seed_notes, name)


def server_name(name: str) -> str:
    """A server's catalog name for a customer, in the page's language: "4 卡 H100 NVLink
    伺服器" in 中文 (QA read "4-GPU H100 NVLink server" as the subtitle of a 中文 buy row).
    A name of another shape (a product's, "NVIDIA DGX H100") is kept as it is."""
    name = catalog_name(name)
    head, paren, rest = name.partition(" (")
    m = _N_GPU_SERVER.fullmatch(head)
    if m is None:
        return name
    said = _("%(n)s-GPU %(model)s server") % {"n": m.group(1), "model": m.group(2)}
    return said + (paren_said(_(rest[:-1])) if paren else "")


def scrub(text: str, book: PriceBook | None) -> str:
    """`text` without the price list's entry ids ("(stratagem-tpe-h100-x8)") or the catalog's
    seed notes, and with cloud instances by their public names."""
    if not text:
        return text
    text = catalog_name(text)
    if book is None:
        return text
    rx, names = _ids(book)
    if rx is not None:
        text = rx.sub("", text)
    for old, new in names.items():
        text = text.replace(old, new)
    return text


def figure_label(figure: str) -> str:
    """An option's figure in the page's language ("Hourly rent per month" → "時租，每月")."""
    m = _CONTRACT_FIGURE.fullmatch(figure)
    if m:
        return _("%(months)s-month contract rent, per month") % {"months": m.group(1)}
    label = FIGURE_LABELS.get(figure)
    return _(label) if label else figure


def _parts_total(formula: str, part_names: Mapping[str, str]) -> str | None:
    """ "capex NT$1 + storage_network NT$2 = NT$3" with each part by its name."""
    head, sep, total = formula.rpartition(" = ")
    if not sep:
        return None
    parts = []
    for piece in head.split(" + "):
        key, _sp, amount = piece.partition(" ")
        if key not in part_names or not amount:
            return None
        parts.append(f"{_(part_names[key])} {amount}")
    return " + ".join(parts) + f" = {total}"


#: Placeholders that hold a sum of priced terms, each said in the page's language:
#: "NT$240/h + 2 × NT$120/h" is "NT$240/小時 + 2 × NT$120/小時" on a 中文 page.
_AMOUNT = r"(?:NT|US)\$\d[\d,]*(?:\.\d+)?"
_HOURLY_SUM = re.compile(rf"(?:\d+ × )?{_AMOUNT}/h(?: \+ (?:\d+ × )?{_AMOUNT}/h)+")
_HOURLY = re.compile(rf"({_AMOUNT})/h")
_SUMS: Final = {"rates": (_HOURLY_SUM, _HOURLY, N_("%(rate)s/h"))}


def _sum_text(value: str, whole: re.Pattern[str], term: re.Pattern[str], msgid: str) -> str | None:
    """A sum of priced terms with each term's unit in the page's language, None if `value`
    is no such sum."""
    if not whole.fullmatch(value):
        return None
    return term.sub(lambda m: _(msgid) % {"rate": m.group(1)}, value)


def _plain(value: str) -> bool:
    """Whether a placeholder's text is numbers and arithmetic only: no word of the engine's
    English ("h/month", "USD") may reach a formula said in another language."""
    return not re.search(r"[A-Za-z]", value.replace("NT$", "").replace("US$", ""))


def _values(groups: Mapping[str, str]) -> dict[str, str] | None:
    """A pattern's placeholders as the page says them; None where one is not plain."""
    out = {}
    for name, value in groups.items():
        if name in _SUMS:
            said = _sum_text(value, *_SUMS[name])
            if said is None:
                return None
            out[name] = said
        elif _plain(value):
            out[name] = value
        else:
            return None
    return out


def formula_text(
    formula: str, book: PriceBook | None, part_names: Mapping[str, str]
) -> tuple[str, bool]:
    """(the formula in the page's language, whether it is translated): ids removed, each
    pattern's words translated, its numbers as the engine formatted them.

    A pattern applies only where each placeholder holds numbers and arithmetic (`_plain`):
    the catch-all "{rate} = {total}/month" once took "(NT$240/h + NT$120/h) × 36.5 h/month"
    for its rate and left "h/month" in a formula marked translated."""
    text = scrub(formula, book)
    parts = _parts_total(text, part_names)
    if parts is not None:
        return parts, True
    for p in _compiled():
        m = p.regex.match(text)
        if m is None:
            continue
        values = _values(m.groupdict())
        if values is not None:
            said = _(p.msgid)
            # Untranslated (English), the engine's own words stand: they say "1 GPU" where
            # the pattern's one form read "(1 GPUs, 1 node)" (QA).
            return (text if said == p.msgid else said % values), True
    # Arithmetic alone ("5% × NT$9,043,968 = NT$452,198") reads the same in every language.
    return text, not re.search(r"[A-Za-z]{2,}", text.replace("NT$", "").replace("US$", ""))


def source_text(
    figure: str, source: str, book: PriceBook | None, date: Callable[[Any], str]
) -> str:
    """Where a panel figure comes from, in words: the price list by its date, a provider by
    name — never a seed rule, a file or an entry id."""
    when = date(book.effective_date) if book is not None else ""
    provider = _provider(source, book)
    if figure == "Busy GPU hours per month":
        return _("An average month has 730 hours (8,760 hours a year ÷ 12).")
    if figure == "Rental period":
        return _(
            "The months needed, as entered: monthly, term and reserved options pay whole "
            "months of it; a purchase is held for it."
        )
    if figure == "Exchange rate":
        return _("The price list's exchange rate, fixed as of %(date)s.") % {"date": when}
    if figure.startswith("Break-even utilisation"):
        return _(
            "Where the two options cost the same per month: each option's fixed monthly cost "
            "plus its hourly cost × utilisation."
        )
    if figure == "Cheapest option":
        return _(
            "The lowest total among the options that can run this configuration and are "
            "worth taking (a purchase held too briefly to pay for itself is left out)."
        )
    if figure == "Cost per 1M input tokens":
        return _(
            "The same monthly cost over the prompt tokens the service reads instead of the "
            "tokens it writes: the two are in the ratio of a request's prompt to its answer, "
            "as API price lists quote input tokens separately. Not to be added to the output "
            "figure."
        )
    if figure == "Storage + network share of the budget":
        return _("A budget should keep at least 15% for storage and network.")
    if figure.endswith("(like for like)"):
        if figure.startswith("Buy"):
            return _(
                "The purchase's amortised monthly cost against the monthly rent, both from "
                "the price list of %(date)s."
            ) % {"date": when}
        return _(
            "The cloud provider's published hourly price against the monthly rent of the "
            "price list of %(date)s."
        ) % {"date": when}
    if provider:
        return _("List prices of %(provider)s, price list of %(date)s.") % {
            "provider": provider,
            "date": when,
        }
    return _("Price list of %(date)s.") % {"date": when}


def _provider(source: str, book: PriceBook | None) -> str:
    m = re.search(r"offers ([\w.-]+)", source)
    if book is None or not m:
        return ""
    return next((o.provider for o in book.offers if o.id == m.group(1)), "")


#: The engine's notices that cite a seed rule, as a customer reads them (same parameters).
CUSTOMER_NOTICES: Final = {
    "The cheapest option (%(option)s) prices no storage or network: seed 003 T13 says they "
    "should be at least 15 %% of the budget (NVMe, NAS, 10GbE/InfiniBand, uplink).": N_(
        "The cheapest option (%(option)s) prices no storage or network: plan at least 15 %% "
        "of the budget for them (NVMe, NAS, 10GbE/InfiniBand, uplink)."
    ),
    "Storage + network is %(share)s of the budget of the cheapest option (%(option)s); seed "
    "003 T13 says at least 15 %%: a GPU starved by slow storage sits idle while the rent "
    "runs.": N_(
        "Storage + network is %(share)s of the budget of the cheapest option (%(option)s); "
        "plan at least 15 %%: a GPU starved by slow storage sits idle while the rent runs."
    ),
    "Delivery takes ≈%(weeks)s weeks (seed 003 T9: 8–12): renting meanwhile costs "
    "≈%(delay)s (%(days)s days at %(rent)s a month), not included in this total.": N_(
        "Delivery takes ≈%(weeks)s weeks (usually 8–12): renting meanwhile costs ≈%(delay)s "
        "(%(days)s days at %(rent)s a month), not included in this total."
    ),
    "%(nodes)s nodes, rented as %(offers)s offers: seed 003 T1 quotes multi-node clusters per "
    "project; priced here as the sum of the offers' rent, before any volume discount.": N_(
        "%(nodes)s nodes, rented as %(offers)s offers: multi-node clusters are quoted per "
        "project; priced here as the sum of the offers' rent, before any volume discount."
    ),
}


#: Engine notices that name price-list entries or print an enum value, by template: each
#: gives its customer template and parameters (see `customer_notice`).
_NO_TIER = (
    "No contract tier of %(term)s months or less for %(offers)s (tiers: %(tiers)s); no term "
    "rent shown."
)
_NO_TIER_PLURAL = N_(
    "%(provider)s offers no contract of %(term)s months or less (its contracts: %(tiers)s "
    "months); no term rent shown."
)
_NO_TIER_ONE = N_(
    "%(provider)s offers no contract of 1 month or less (its contracts: %(tiers)s months); no "
    "term rent shown."
)
_NO_TIERS = N_("%(provider)s offers no term contracts; no term rent shown.")
#: A purchase held too briefly (app.engine.costs.ownership.TOO_SHORT_TO_BUY), by its period,
#: without the seed rule the shortest holding period comes from.
TOO_SHORT_TO_BUY: Final = {
    "month": N_(
        "Not economical for this period: 1 month is shorter than the %(delivery)s-month "
        "delivery plus %(floor)s months, the shortest period for which buying is compared."
    ),
    "months": N_(
        "Not economical for this period: %(period)s months is shorter than the "
        "%(delivery)s-month delivery plus %(floor)s months, the shortest period for which "
        "buying is compared."
    ),
    "days": N_(
        "Not economical for this period: %(period)s days is shorter than the "
        "%(delivery)s-month delivery plus %(floor)s months, the shortest period for which "
        "buying is compared."
    ),
    "hours": N_(
        "Not economical for this period: %(period)s hours is shorter than the "
        "%(delivery)s-month delivery plus %(floor)s months, the shortest period for which "
        "buying is compared."
    ),
}


#: Every engine template a customer reads in other words, by the engine's template.
_CUSTOMER_TEMPLATES: Final = {
    **CUSTOMER_NOTICES,
    **{ENGINE_TOO_SHORT[k]: TOO_SHORT_TO_BUY[k] for k in TOO_SHORT_TO_BUY},
}


def _listing(items: Sequence[str]) -> str:
    """ "RunPod, Stratagem Taipei"; "1、3、6、12" on a 中文 page."""
    return listing(items)


def _no_tier(params: dict[str, str], book: PriceBook | None) -> tuple[str, dict[str, str]]:
    """ "runpod-secure-l4-x1 has no contract tier (tiers: none)" as "RunPod offers no term
    contracts": the offers by their provider, the tiers as months or none at all."""
    ids = [i.strip() for i in str(params.get("offers", "")).split(",") if i.strip()]
    offers = {o.id: o.provider for o in book.offers} if book is not None else {}
    providers = list(dict.fromkeys(offers.get(i, "") for i in ids if offers.get(i)))
    provider = _listing(providers) if providers else _("The rental offer")
    tiers = [t.strip() for t in str(params.get("tiers", "")).split(",")]
    tiers = [t for t in tiers if t.isdigit()]
    if not tiers:
        return _NO_TIERS, {"provider": provider}
    term = str(params.get("term", ""))
    template = _NO_TIER_ONE if term == "1" else _NO_TIER_PLURAL
    return template, {"provider": provider, "term": term, "tiers": _listing(tiers)}


def _param(value: Any, book: PriceBook | None) -> Any:
    """A notice's parameter without entry ids or seed notes."""
    return scrub(value, book) if isinstance(value, str) else value


def customer_notice(pair: Any, names: Mapping[str, str], book: PriceBook | None = None) -> Any:
    """A notice {template, params} as a customer reads it: without its seed rule, an entry
    id or an enum value; an option named as the table names it (`names`: the engine's option
    label → its name on the page) and a cloud instance by its public name (`book`)."""
    if not isinstance(pair, Mapping) or "template" not in pair:
        return pair
    template = str(pair["template"])
    params = {k: _param(v, book) for k, v in dict(pair.get("params") or {}).items()}
    if template == _NO_TIER:
        template, params = _no_tier(params, book)
    template = _CUSTOMER_TEMPLATES.get(template, template)
    if "option" in params:
        params["option"] = names.get(str(pair["params"]["option"]), params["option"])
    if book is not None and "provider" in params and "name" in params:
        inst = next(
            (
                c
                for c in book.cloud
                if c.provider == params["provider"] and c.name == params["name"]
            ),
            None,
        )
        if inst is not None:
            params["name"] = instance_name(inst, book)
    return {**pair, "template": template, "params": params}
