"""Total cost of ownership by year, stacked by part (PRODUCT.md journey 3: cloud vs
on-premises TCO over 1–5 years).

Each curve is read off one comparison's cumulative cash flows at months 12, 24, …: capex
and network/storage capex at month 0, then power, facility (colocation), operations
(maintenance + staff), rent and cloud as they are paid. Bought hardware is credited with
its resale value ("residual", negative) in the month the need ends, so a year before that
shows cash spent, not yet recovered.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.engine.costs.model import CostComparison, CostInputError, TcoCurve

# breakdown part -> stacked TCO part
TCO_STACKS = {
    "capex": "capex",
    "storage_network": "storage_network",
    "residual": "residual",
    "power": "power",
    "facility": "facility",
    "maintenance": "operations",
    "staff": "operations",
    "rent": "rent",
    "cloud": "cloud",
}


def tco_curves(comparison: CostComparison, years: Iterable[int] = range(1, 6)) -> list[TcoCurve]:
    """Cumulative cost per option at the end of each year in `years`, split by part.

    The comparison must cover the last year: horizon_months ≥ 12 × max(years).
    """
    ys = sorted(set(years))
    if not ys or any(not isinstance(y, int) or y < 1 for y in ys):
        raise CostInputError("years", "whole years ≥ 1", ys)
    months = [12 * y for y in ys]
    if months[-1] > comparison.horizon_months:
        raise CostInputError(
            "years",
            f"≤ {comparison.horizon_months // 12} (the comparison covers "
            f"{comparison.horizon_months} months)",
            ys[-1],
        )
    curves = []
    for o in comparison.options:
        parts: dict[str, list[float]] = {}
        for part, cum in o.cumulative_parts.items():
            stack = parts.setdefault(TCO_STACKS.get(part, part), [0.0] * len(months))
            for j, m in enumerate(months):
                stack[j] += cum[m]
        curves.append(
            TcoCurve(
                key=o.key,
                kind=o.kind,
                label=o.label,
                currency=o.currency,
                months=months,
                parts=parts,
                total=[o.cumulative[m] for m in months],
            )
        )
    return curves
