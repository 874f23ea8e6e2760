"""Total cost of ownership by year, stacked by part (PRODUCT.md journey 3: cloud vs
on-premises TCO over 1–5 years).

Year N is the cost of an N-year horizon, as a procurement committee compares "the 3-year
TCO" of renting and buying: everything paid by the end of month 12 × N (capex and
network/storage capex at month 0, then power, facility (colocation), operations
(maintenance + staff), rent and cloud as they are paid), less the resale value of bought
hardware sold at that point at book value (the "residual" part, negative). That is how a
comparison prices a need that ends then (`ownership.buy_option` resells at the end of the
holding period), so the Buy total of a 36-month comparison is the Buy bar of year 3 of the
five-year view with the same prices — where a cash-flow curve kept the hardware and showed
the resale only in the year the five-year need ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from app.engine.costs.model import CostComparison, CostInputError, CostOption, TcoCurve
from app.engine.costs.ownership import RESALE_FIGURE
from app.engine.expression import evaluate

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


def resale_if_sold(option: CostOption) -> Callable[[float], float] | None:
    """The resale credit (≤ 0, money) of `option`'s bought hardware if sold after `months`.

    The option's own resale formula (straight line to the residual share over the
    amortisation period, seed 003 T9) with the holding period set to `months`; None for an
    option that buys nothing.
    """
    x = next((e for e in option.explain if e.figure == RESALE_FIGURE and e.expression), None)
    if x is None:
        return None
    values = {o.name: o.value for o in x.operands}
    if "held_months" not in values:
        return None
    return lambda months: evaluate(x.expression, {**values, "held_months": float(months)})


def tco_curves(comparison: CostComparison, years: Iterable[int] = range(1, 6)) -> list[TcoCurve]:
    """Cost per option of a horizon ending with each year in `years`, split by part.

    Year N: cumulative cost at month 12 × N, plus — for hardware not yet sold by then — its
    resale at book value at that month (`resale_if_sold`). Parts sum to the total. The
    comparison must cover the last year: horizon_months ≥ 12 × max(years).
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
        total = [o.cumulative[m] for m in months]
        resale = resale_if_sold(o)
        sold = o.cumulative_parts.get("residual")
        if resale is not None:
            credits = parts.setdefault("residual", [0.0] * len(months))
            for j, m in enumerate(months):
                if sold is None or sold[m] == 0:  # still held at month m: sell it then
                    credit = resale(m)
                    credits[j] += credit
                    total[j] += credit
        curves.append(
            TcoCurve(
                key=o.key,
                kind=o.kind,
                label=o.label,
                currency=o.currency,
                months=months,
                parts=parts,
                total=total,
            )
        )
    return curves
