"""The estimate's `cost` block, ready to show: localised option names, break-evens, charts."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from app import i18n
from app.charts import figures
from app.costs import wording
from app.engine.formatting import currency_symbol
from app.engine.formatting import number as short_number
from app.engine.price_book import PriceBook
from app.i18n import N_
from app.i18n import gettext as _
from app.web.templating import money, number, percent

KIND_NAMES = {
    "rent_hourly": N_("Hourly rent"),
    "rent_monthly": N_("Monthly rent"),
    "rent_term": N_("Term contract"),
    "mig": N_("MIG slice rent"),
    "buy": N_("Buy"),
    "cloud": N_("Public cloud, on demand"),
    "cloud_reserved": N_("Public cloud, reserved"),
}
PART_NAMES = {
    "rent": N_("Rent"),
    "capex": N_("Hardware (capex)"),
    "storage_network": N_("Storage and network"),
    "power": N_("Power"),
    "facility": N_("Facility (colocation)"),
    "maintenance": N_("Maintenance"),
    "staff": N_("Operations staff"),
    "operations": N_("Operations"),
    "residual": N_("Resale value"),
    "cloud": N_("Cloud"),
}
_TERM = re.compile(r"(\d+)-month")
_TIER = re.compile(r"\((\d+)-month tier, ")
#: An offer's interconnect (app.engine.price_book.Offer.interconnect, lower-case keys) as
#: its maker writes it: "NVLink", not "NVLINK"; the planner's form offers the same choices
#: in this order (app.planner.views.INTERCONNECTS).
INTERCONNECT_NAMES: Final = {
    "nvlink": "NVLink",
    "pcie": "PCIe",
    "infiniband": "InfiniBand",
    "roce": "RoCE",
    "ethernet": N_("Ethernet"),
}


def one_off_hours(cost: Mapping[str, Any], quote: Mapping[str, Any] | None = None) -> float | None:
    """The hours of a job priced by its duration that lasts less than a month, and whose
    quote (if any) rents nothing by the month, else None.

    The five-year views (cumulative cost, TCO by year) picture capacity used month after
    month: beside a 12-hour LoRA job costing US$85.50 they drew US$350,000 over 60 months and
    a break-even "in month 60" (QA). The planner says so above them; a quote leaves them out
    (app.quotes.pdf). A quote that rents a machine for months (a 6-month contract for a
    one-day fine-tune) buys capacity: its charts stay. A line of the seller's own billed by
    the month ("Support, per month") rents no GPUs: a 2.5-hour job with one still drew
    five-year views (QA)."""
    months = cost.get("rent_months")
    if cost.get("pricing_mode") != "job" or not isinstance(months, (int, float)) or months >= 1:
        return None
    lines = (quote or {}).get("lines") or []
    if any(line.get("option_key") and line.get("unit") == "month" for line in lines):
        return None
    return float(months) * float(cost.get("hours_per_month") or 730.0)


def option_name(option: Mapping[str, Any]) -> str:
    kind = str(option.get("kind", ""))
    if kind == "rent_term":
        m = _TERM.search(str(option.get("label", "")))
        if m:
            tier = contract_tier(option)
            if tier is not None and tier != int(m.group(1)):
                # A 36-month contract on a list whose longest tier is 12 months is priced
                # at the 12-month rate: "36 個月合約" alone said a price nobody offered.
                return _("%(months)s-month contract at the %(tier)s-month rate") % {
                    "months": m.group(1),
                    "tier": tier,
                }
            return _("%(months)s-month contract") % {"months": m.group(1)}
    return _(KIND_NAMES[kind]) if kind in KIND_NAMES else str(option.get("label", kind))


def contract_tier(option: Mapping[str, Any]) -> int | None:
    """The price-list tier a term contract is priced at (its rent formula says "(12-month
    tier, 20% off)"), None where the option says none."""
    for e in option.get("explain") or []:
        m = _TIER.search(str(e.get("formula", "")))
        if m:
            return int(m.group(1))
    return None


def option_names(options: Iterable[Mapping[str, Any]], book: PriceBook | None) -> dict[str, str]:
    """The engine's option label → the option as the cost table names it, with what it is
    ("Monthly rent (24× H100 · 3 nodes · NVLink · RunPod)"): how a notice that names an
    option says it on a page (`wording.customer_notice`)."""
    return {
        str(o.get("label")): option_name(o) + i18n.paren(option_detail(o, book)) for o in options
    }


def named_options(cost: Mapping[str, Any], book: PriceBook | None) -> dict[str, Any]:
    """A copy of a cost comparison (the API's `cost` / POST /costs) whose options each carry
    `name`: the option as the pages name it, in the request's language ("Monthly rent (8×
    H100 SXM · NVLink · Stratagem Taipei)"), beside `label`, the engine's English key that
    names catalog ids (QA: an integrator had only "Hourly rent — 8× h100-sxm-80gb NVLink").
    A copy: the estimate a response rests on may be shared with a request in another
    language."""
    options = list(cost.get("options") or [])
    names = option_names(options, book)
    return {**cost, "options": [{**o, "name": names[str(o.get("label"))]} for o in options]}


def option_detail(option: Mapping[str, Any], book: PriceBook | None) -> str:
    """What the option is: the offer, server or instance from the price list.

    A rental states the GPUs and nodes it bills for (`billed`), not the first offer's: a
    24-GPU plan rented as 16 + 8 is "24× H100 · 3 nodes", not "16× H100".
    """
    ids = [str(i) for i in option.get("source_ids") or []]
    label = str(option.get("label", ""))
    fallback = wording.scrub(label.split(" — ", 1)[1], book) if " — " in label else ""
    if book is None or not ids:
        return fallback
    billed = option.get("billed") or {}
    for offer in book.offers:
        if offer.id == ids[0]:
            gpus = float(billed.get("gpus") or offer.gpu_count)
            nodes = int(billed.get("nodes") or 1)
            where = f"{_nodes(nodes)} · " if nodes > 1 else ""
            return (
                f"{number(gpus, 0 if gpus >= 1 else 2)}× {gpu_name(offer.gpu_id, book)} · {where}"
                f"{interconnect_name(offer.interconnect)} · {offer.provider}"
            )
    for server in book.servers:
        if server.id == ids[0]:
            # "4-GPU H100 NVLink server", without the catalog's "(seed 003 growth template)"
            return wording.server_name(server.name)
    for inst in book.cloud:
        if inst.id == ids[0]:
            return (
                f"{inst.provider} {wording.instance_name(inst, book)} · {inst.region} · "
                f"{inst.price_date.isoformat()}"
            )
    return fallback


def _nodes(n: int) -> str:
    return _("%(n)s nodes") % {"n": number(n)}


def interconnect_name(key: str) -> str:
    """'nvlink' → 'NVLink', 'ethernet' → '乙太網路' in zh-TW; an unknown key as it is."""
    name = INTERCONNECT_NAMES.get(key.lower())
    return _(name) if name else key


def gpu_name(gpu_id: str, book: PriceBook | None = None) -> str:
    """The GPU's short display name ("H100 SXM5 80GB"), from the price list's GPUs (a
    catalog GPU the shipped list lacks included), never its catalog id where one is known."""
    from app.engine.estimate import gpu_pool

    for g in gpu_pool(None, book):
        if g.id == gpu_id:
            return g.name.replace("NVIDIA ", "")
    return gpu_id


def chart_label(option: Mapping[str, Any], book: PriceBook | None) -> str:
    """A short legend label: the kind, or for the cloud the provider and instance."""
    if str(option.get("kind", "")).startswith("cloud") and book is not None:
        ids = [str(i) for i in option.get("source_ids") or []]
        for inst in book.cloud:
            if ids and inst.id == ids[0]:
                return f"{inst.provider} {wording.instance_name(inst, book)}"
    return option_name(option)


def _localise(
    options: Sequence[Mapping[str, Any]], book: PriceBook | None, *, words: bool = True
) -> list[dict[str, Any]]:
    """The options with their names, details and chart labels in the page's language, and,
    with `words`, their explanations and notes said too (the cost table's rows need them;
    the charts and the break-even rows only the names: saying every formula is most of the
    time a cost block takes)."""
    out = []
    for o in options:
        name = option_name(o)
        detail = option_detail(o, book)
        if not words:
            out.append({**o, "name": name, "detail": detail, "label": chart_label(o, book)})
            continue
        # Inside the option's own row its figures need not repeat its engine label
        # ("Hourly rent — 8× h100-sxm-80gb … (RunPod): total" is "total" there).
        own = f"{o.get('label', '')}: "
        explain = []
        for e in o.get("explain") or []:
            figure = str(e.get("figure", "")).removeprefix(own)
            text, translated = wording.formula_text(str(e.get("formula", "")), book, PART_NAMES)
            explain.append(
                {
                    **e,
                    "figure": wording.figure_label(figure),
                    "formula": text,
                    # A formula no pattern covers stays the engine's English, marked so.
                    "formula_lang": None if translated else "en",
                }
            )
        out.append(
            {
                **o,
                "name": name,
                "detail": detail,
                "label": chart_label(o, book),
                "explain": explain,
                "note_notices": [
                    wording.customer_notice(n, {}, book) for n in o.get("note_notices") or []
                ],
            }
        )
    return out


def chart_options(options: Sequence[Mapping[str, Any]], cheapest: Any) -> list[dict[str, Any]]:
    """One option per kind (its cheapest), so a chart stays legible on a projector."""
    best: dict[str, Mapping[str, Any]] = {}
    for o in options:
        kind = str(o.get("kind"))
        if o.get("feasible") is False:
            continue
        if kind not in best or float(o.get("total") or 0) < float(best[kind].get("total") or 0):
            best[kind] = o
    chosen = list(best.values())
    for o in options:
        if o.get("key") == cheapest and o not in chosen:
            chosen.append(o)
    return [dict(o) for o in chosen]


def hint(
    pairs: Sequence[Mapping[str, Any]], options: Sequence[Mapping[str, Any]]
) -> dict[str, Any] | None:
    """The hourly-rent break-even for the /tco hint: hourly rent against the fixed rental it
    first loses to, from the engine's pairs, among `options` — the options the utilisation
    chart draws (`chart_options`), so that the hint names a line the chart has.

    The crossing the chart marks wins: the lowest utilisation at which an hourly rent that
    is the cheapest line meets a fixed rent (the lower envelope, as
    `app.charts.costs.utilization_sensitivity` marks it). With two providers, RunPod's hourly
    rent below Stratagem's, Stratagem's own hourly/contract crossing at 40 % lies above the
    cheapest line and the chart marks RunPod's at 50 %: the hint says 50 %, not 40 %. Where
    no such crossing is the cheapest (buying is cheaper there), the first pair is said.
    """
    by_key = {str(o.get("key")): o for o in options}
    usable = [
        o
        for o in options
        if o.get("fixed_monthly") is not None and o.get("metered_monthly_full") is not None
    ]

    def cost(o: Mapping[str, Any], u: float) -> float:
        return (
            float(o.get("fixed_monthly") or 0.0) + float(o.get("metered_monthly_full") or 0.0) * u
        )

    found: list[tuple[bool, float, Mapping[str, Any], Mapping[str, Any]]] = []
    for p in pairs:
        a, b = by_key.get(str(p.get("a"))), by_key.get(str(p.get("b")))
        if a is None or b is None:
            continue
        if b.get("kind") == "rent_hourly":
            a, b = b, a
        if a.get("kind") != "rent_hourly" or b.get("kind") not in FIXED_RENT:
            continue
        u = float(p["utilization"])
        lowest = min((cost(o, u) for o in usable), default=cost(a, u))
        # the same tolerance as the chart's marker test
        cheapest = cost(a, u) <= lowest + max(1.0, abs(lowest) * 1e-6)
        found.append((not cheapest, u, a, b))
    if not found:
        return None
    _, u, a, b = min(found, key=lambda f: (f[0], f[1]))
    return {"utilization": u, "hours": u * 730.0, "a": a.get("label"), "b": b.get("label")}


FIXED_RENT = ("rent_monthly", "rent_term", "mig")


def figure_text(value: float, unit: str) -> str | None:
    """A cost figure's value in words, as the cost table says it: a share of the month as a
    percentage of its hours ("27% of 730 h a month", not "0.27 share of 730 h"), a share as
    a percentage, money as money (`money_text`); None for any other unit."""
    if unit == "fraction of 730 h":
        return _("%(share)s of %(hours)s h a month") % {
            "share": percent(value),
            "hours": number(730),
        }
    if unit == "fraction":
        return percent(value)
    return money_text(value, unit)


def money_text(value: float, unit: str) -> str | None:
    """An explanation's money value as the cost table writes it ("NT$2,100,000 per month"),
    never "2,100,000 TWD/month" beside a table in NT$; None for a unit that is no money.

    unit: "TWD", "USD" or one of them per "month", "h" or "kWh" (the engine's units).
    """
    ccy, _sep, per = unit.partition("/")
    if ccy not in ("TWD", "USD"):
        return None
    if per in ("TWD", "USD"):
        # An exchange rate is a ratio, not money: "US$0.03/TWD" was 1/32 = 0.03125 to the
        # cent, which converts nothing back (QA). Said in full, in the table's symbols.
        return f"{currency_symbol(per)}1 = {currency_symbol(ccy)}{value:.6g}"
    cents = abs(value - round(value)) >= 0.005
    price = money(value, ccy, 2 if cents else None)
    if not per:
        return price
    if per == "month":
        return _("%(price)s per month") % {"price": price}
    if per == "h":
        return _("%(price)s per hour") % {"price": price}
    if per == "1M tokens":
        return _("%(price)s per 1M tokens") % {"price": money(value, ccy, 2)}
    return f"{money(value, ccy, 2)}/{per}"


def distinct_names(
    names: Mapping[str, str], options: Sequence[Mapping[str, Any]], book: PriceBook | None
) -> dict[str, str]:
    """Option key → name, with the provider added where two options share a name.

    Two offers of one kind are both "Hourly rent" (Stratagem Taipei and a marketplace): a
    break-even row "Hourly rent stops being cheaper than Buy" must say which one. Where the
    provider does not tell them apart (AWS p4d.24xlarge on demand and reserved are both
    "AWS p4d.24xlarge"), the kind of option does.
    """
    out = dict(names)
    by_key = {str(o.get("key")): o for o in options}

    def shared(names: Mapping[str, str]) -> set[str]:
        seen: dict[str, int] = {}
        for name in names.values():
            seen[name] = seen.get(name, 0) + 1
        return {k for k, name in names.items() if seen[name] > 1 and k in by_key}

    def provider(option: Mapping[str, Any]) -> str:
        ids = [str(i) for i in option.get("source_ids") or []]
        offer = next((x for x in (book.offers if book else ()) if ids and x.id == ids[0]), None)
        return str(option.get("provider") or "") or (
            offer.provider if offer is not None else str(option.get("detail") or "")
        )

    for key in shared(names):
        if where := provider(by_key[key]):
            out[key] = names[key] + i18n.paren(where)
    for key in shared(out):
        out[key] = names[key] + i18n.paren(option_name(by_key[key]))
    return out


def break_even_rows(
    pairs: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    kept_months: int | None = None,
) -> list[dict[str, Any]]:
    """The engine's break-evens that happen, as the table and the KPI say them, by month.

    "month 19" to a tenth with trailing zeros dropped, as the cumulative chart's callouts
    write it ("month 19.0" in the table beside "Month 19" on the chart read as two figures).
    A break-even with a `note` (app.engine.costs.compare.break_evens) exists only because
    bought hardware is resold at book value that month: a one-off sale, so it is the whole
    month of the sale ("month 60") with a `qualifier` and a `note` that say so ("Only
    through the resale at book value: …") — never a month interpolated across the sale
    ("month 59.4"). `names`: option key → name.

    kept_months: the months of the view the pairs come from when it is not the cost table's
    own (the five-year view of a plan, 60): a row with a purchase then carries it as
    `kept_months`, and the table says its basis (`break_even_basis`) — the hardware kept and
    resold only in that month, where the cost table resells it at the end of the quoted
    period (QA: "buying is cheaper than hourly rent from month 21.1" under a 12-month Buy
    total of NT$2.90M beside NT$4.20M of hourly rent).
    """
    rows = []
    for p in pairs:
        if p.get("month") is None:
            continue
        a, b = names.get(p["a"], p["a"]), names.get(p["b"], p["b"])
        resale = bool(p.get("note"))
        note = ""
        if resale:
            month = float(math.ceil(float(p["month"]) - 1e-9))
            note = _(
                "Only through the resale at book value: %(b)s sells its hardware in month "
                "%(month)s; before that, %(a)s stays cheaper."
            ) % {"a": a, "b": b, "month": short_number(month, 0)}
        else:
            month = float(p["month"])
        rows.append(
            {
                "a": a,
                "b": b,
                "month": month,
                "month_text": _("month %(m)s") % {"m": short_number(month, 1)},
                "resale": resale,
                "kept_months": kept_months if _buys(p) else None,
                # For a line that has no room for the note (the /tco KPI).
                "qualifier": _("only through the resale at book value") if resale else "",
                "note": note,
            }
        )
    rows.sort(key=lambda r: r["month"])
    return rows


def _buys(pair: Mapping[str, Any]) -> bool:
    """Whether one of the pair is a purchase (keys are "<kind>:<source id>")."""
    return any(str(pair.get(k) or "").startswith("buy:") for k in ("a", "b"))


def break_even_basis(rows: Sequence[Mapping[str, Any]]) -> str:
    """What the break-even months of `rows` count, where a purchase is kept longer than the
    cost table holds it (`break_even_rows` kept_months); "" where nothing needs saying."""
    kept = next((r["kept_months"] for r in rows if r.get("kept_months")), None)
    if not kept:
        return ""
    return _(
        "These months compare the cash paid by the end of each month over %(months)s months, "
        "with bought hardware kept and resold at book value only in month %(months)s. The "
        "totals above resell it at the end of the quoted period instead, so there buying can "
        "cost less sooner."
    ) % {"months": short_number(kept, 0)}


class Drawn(NamedTuple):
    """The options a cost block's charts draw and the crossings its break-even table lists."""

    shown: list[dict[str, Any]]  # the drawn options, each `label` its legend name
    names: dict[str, str]  # option key → name, told apart by provider (`distinct_names`)
    crossings: list[dict[str, Any]]  # the engine's break-evens between drawn options
    break_even: list[dict[str, Any]]  # those as the table says them (`break_even_rows`)


def drawn_options(
    cost: Mapping[str, Any],
    book: PriceBook | None,
    options: list[dict[str, Any]] | None = None,
) -> Drawn:
    """What the cumulative chart draws and its break-even table lists, for the cost view and
    for any summary of the same plan (QA: a plan's summary said "Public cloud, on demand
    stops being cheaper than Buy · month 1" — the cost table's own period, generic names —
    above a chart and table whose first crossing was "Lambda 8× H100 … · month 19.6").
    `options`: the cost table's options already localised (`_localise`), if at hand."""
    if options is None:
        options = _localise(cost.get("options") or [], book, words=False)
    long = cost.get("tco_options") or {}
    long_options = _localise(long.get("options") or [], book, words=False) or options
    # The five-year view's crossings where it has them (none is an answer: its lines do not
    # cross), the cost table's own for a result saved before it had that view.
    long_breaks = (long["break_even"] if "break_even" in long else cost.get("break_even")) or []
    # Two providers' rent are both "Hourly rent" in the table (Stratagem Taipei's and
    # RunPod's): the charts, the hint and the break-even tables name the one they mean.
    everyone = {o["key"]: o for o in [*options, *long_options]}
    names = distinct_names(
        {k: o["label"] for k, o in everyone.items()}, list(everyone.values()), book
    )
    shown = [
        {**o, "label": names.get(o["key"], o["label"])}
        for o in chart_options(long_options, long.get("cheapest") or cost.get("cheapest"))
    ]
    shown_keys = {o.get("key") for o in shown}
    # The break-even tables list the crossings of the options the charts draw, each by the
    # name its legend gives it: a row "AWS p5.48xlarge stops being cheaper than Buy" beside a
    # chart that draws only AWS p5.4xlarge named a crossing nobody could find.
    crossings = [b for b in long_breaks if b.get("a") in shown_keys and b.get("b") in shown_keys]
    # A plan's table reads the five-year view, not the cost table's period (`break_even_rows`).
    kept = long.get("horizon_months") if long.get("break_even") else None
    return Drawn(shown, names, crossings, break_even_rows(crossings, names, kept))


def view(
    cost: Mapping[str, Any] | None,
    book: PriceBook | None,
    currency: str,
    *,
    utilization: float | None = None,
) -> dict[str, Any] | None:
    """Rows, break-even months and chart JSON for one cost block; None without a block."""
    if not cost or not cost.get("options"):
        return None
    options = _localise(cost["options"], book)
    drawn = drawn_options(cost, book, options)
    shown, names, shown_breaks, break_even = (
        drawn.shown, drawn.names, drawn.crossings, drawn.break_even,
    )  # fmt: skip
    shown_keys = {o.get("key") for o in shown}
    long = cost.get("tco_options") or {}
    tco_curves = []
    for curve in cost.get("tco") or []:
        if curve.get("key") not in shown_keys:
            continue
        match = next((o for o in shown if o.get("key") == curve.get("key")), None)
        tco_curves.append({**curve, "label": match["label"] if match else curve.get("label")})
    ccy = str(cost.get("currency") or currency)
    pairs = list(cost.get("break_even_utilization") or [])
    shown_pairs = [
        {
            **p,
            "a_name": names.get(p["a"], p["a"]),
            "b_name": names.get(p["b"], p["b"]),
        }
        for p in pairs
        if p.get("a") in shown_keys and p.get("b") in shown_keys
    ]
    return {
        "pricing_mode": cost.get("pricing_mode") or "job",
        "rent_months": cost.get("rent_months"),
        "one_off_hours": one_off_hours(cost),
        "hint": hint(pairs, shown),
        "utilization_pairs": sorted(shown_pairs, key=lambda p: float(p["utilization"])),
        "currency": ccy,
        "options": options,
        "cheapest": cost.get("cheapest"),
        "horizon_months": cost.get("horizon_months"),
        "months": cost.get("months"),
        "utilization": cost.get("utilization"),
        "hours_per_month": cost.get("hours_per_month"),
        "price_list": cost.get("price_list"),
        "break_even": break_even,
        "break_even_basis": break_even_basis(break_even),
        "break_even_utilization": cost.get("break_even_utilization") or [],
        "cost_per_million_tokens": cost.get("cost_per_million_tokens"),
        "storage_network_share": cost.get("storage_network_share"),
        "long_horizon": long.get("horizon_months"),
        "part_names": PART_NAMES,
        "charts": {
            "cumulative": figures.cumulative(shown, shown_breaks, ccy),
            "tco": figures.tco(tco_curves, ccy),
            "utilization": figures.utilization(
                shown,
                ccy,
                utilization if utilization is not None else cost.get("utilization"),
                pairs,
            ),
        },
    }
