"""The estimate's `cost` block, ready to show: localised option names, break-evens, charts."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from app.charts import figures
from app.engine.price_book import PriceBook
from app.i18n import N_
from app.i18n import gettext as _
from app.web.templating import number

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


def option_name(option: Mapping[str, Any]) -> str:
    kind = str(option.get("kind", ""))
    if kind == "rent_term":
        m = _TERM.search(str(option.get("label", "")))
        if m:
            return _("%(months)s-month contract") % {"months": m.group(1)}
    return _(KIND_NAMES[kind]) if kind in KIND_NAMES else str(option.get("label", kind))


def option_detail(option: Mapping[str, Any], book: PriceBook | None) -> str:
    """What the option is: the offer, server or instance from the price list.

    A rental states the GPUs and nodes it bills for (`billed`), not the first offer's: a
    24-GPU plan rented as 16 + 8 is "24× H100 · 3 nodes", not "16× H100".
    """
    ids = [str(i) for i in option.get("source_ids") or []]
    label = str(option.get("label", ""))
    fallback = label.split(" — ", 1)[1] if " — " in label else ""
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
            return server.name
    for inst in book.cloud:
        if inst.id == ids[0]:
            return f"{inst.provider} {inst.name} · {inst.region} · {inst.price_date.isoformat()}"
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
                return f"{inst.provider} {inst.name}"
    return option_name(option)


def _localise(options: Sequence[Mapping[str, Any]], book: PriceBook | None) -> list[dict[str, Any]]:
    out = []
    for o in options:
        name = option_name(o)
        detail = option_detail(o, book)
        out.append({**o, "name": name, "detail": detail, "label": chart_label(o, book)})
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
    first loses to (the crossing on the utilisation chart), from the engine's pairs."""
    by_key = {str(o.get("key")): o for o in options}
    best: tuple[float, Mapping[str, Any], Mapping[str, Any]] | None = None
    for p in pairs:
        a, b = by_key.get(str(p.get("a"))), by_key.get(str(p.get("b")))
        if a is None or b is None:
            continue
        if b.get("kind") == "rent_hourly":
            a, b = b, a
        if a.get("kind") != "rent_hourly" or b.get("kind") not in FIXED_RENT:
            continue
        u = float(p["utilization"])
        if best is None or u < best[0]:
            best = (u, a, b)
    if best is None:
        return None
    u, a, b = best
    return {"utilization": u, "hours": u * 730.0, "a": a.get("label"), "b": b.get("label")}


FIXED_RENT = ("rent_monthly", "rent_term", "mig")


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
    names = {o["key"]: o["label"] for o in options}
    long = cost.get("tco_options") or {}
    long_options = _localise(long.get("options") or [], book) or options
    long_breaks = long.get("break_even") or cost.get("break_even") or []
    for o in long_options:
        names.setdefault(o["key"], o["label"])
    break_even = [
        {"a": names.get(b["a"], b["a"]), "b": names.get(b["b"], b["b"]), "month": b["month"]}
        for b in long_breaks
        if b.get("month") is not None
    ]
    break_even.sort(key=lambda b: b["month"])
    shown = chart_options(long_options, long.get("cheapest") or cost.get("cheapest"))
    shown_keys = {o.get("key") for o in shown}
    shown_breaks = [b for b in long_breaks if b.get("a") in shown_keys and b.get("b") in shown_keys]
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
        "hint": hint(pairs, [*options, *long_options]),
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
